import Foundation

/// One zone of a zone configuration: a range of heart rate or cycling power.
///
/// Zones are half-open, `[minimum, maximum)`: a value equal to a zone's maximum belongs to the next zone. The
/// first zone has no minimum and the last no maximum. (HealthKit does not document which side a boundary value
/// falls on; this is OpenHealthKit's rule.)
///
/// HealthKit: HKWorkoutZone.
public struct HKWorkoutZone: Sendable, Hashable {
    /// The zone's position in its configuration, from 0, lowest to highest.
    public let index: Int
    /// The lower threshold (included), or nil for the first zone.
    public var minimum: HKQuantity?
    /// The upper threshold (excluded), or nil for the last zone.
    public var maximum: HKQuantity?

    package init(index: Int, minimum: HKQuantity?, maximum: HKQuantity?) {
        self.index = index
        self.minimum = minimum
        self.maximum = maximum
    }
}

/// The time spent in one zone during a workout or activity.
///
/// HealthKit: HKWorkoutZoneDuration.
public struct HKWorkoutZoneDuration: Sendable, Hashable {
    /// The zone.
    public let zone: HKWorkoutZone
    /// The time spent in the zone, in seconds of running time (pauses excluded).
    public let duration: TimeInterval

    package init(zone: HKWorkoutZone, duration: TimeInterval) {
        self.zone = zone
        self.duration = duration
    }
}

/// A zone configuration and the time spent in each of its zones, for one quantity type.
///
/// HealthKit: HKWorkoutZoneGroup.
public struct HKWorkoutZoneGroup: Sendable, Hashable {
    /// The configuration whose zones the durations count.
    public let configuration: HKWorkoutZoneConfiguration
    /// The time in each zone, ordered from the lowest zone to the highest; one entry per zone.
    public let zoneDurations: [HKWorkoutZoneDuration]

    package init(configuration: HKWorkoutZoneConfiguration, durations: [Double]) {
        self.configuration = configuration
        self.zoneDurations = zip(configuration.zones, durations).map { HKWorkoutZoneDuration(zone: $0, duration: $1) }
    }

    /// The durations in seconds, zone by zone.
    package var durations: [Double] { zoneDurations.map(\.duration) }
}
