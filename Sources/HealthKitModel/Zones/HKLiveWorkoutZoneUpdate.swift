import Foundation

/// A change of zone during a live workout: the zone left, the zone entered, and the time in every zone so far.
///
/// Delivered to `HKLiveWorkoutBuilderDelegate.workoutBuilder(_:didUpdateWorkoutZone:)` and through
/// `HKLiveWorkoutBuilder.zoneUpdates` only when the zone in effect changes, never once per sample.
/// `previousZoneDuration` is nil on the first update of a type; `currentZoneDuration` is nil when no zone applies
/// any more (the strap went silent for longer than the hold, or the workout paused).
///
/// HealthKit's reference declares `currentZoneDuration` and an optional `zoneGroup`; its article "Accessing
/// workout zone data" writes `zoneUpdate.newZoneDuration` and `zoneUpdate.group` (and, earlier,
/// `HKLiveWorkoutBuilder.ZoneUpdate`). All of these spellings work here.
///
/// HealthKit: HKLiveWorkoutZoneUpdate.
public final class HKLiveWorkoutZoneUpdate: NSObject, Sendable {
    /// The end of the latest sample the builder had processed when the zone changed.
    public let lastSampleProcessedDate: Date?
    /// The zone entered, with the time spent in it so far; nil when no zone applies.
    public let currentZoneDuration: HKWorkoutZoneDuration?
    /// The zone left, with the time spent in it so far; nil on the first update.
    public let previousZoneDuration: HKWorkoutZoneDuration?
    /// The configuration and the running time in every zone. Never nil in OpenHealthKit.
    public var zoneGroup: HKWorkoutZoneGroup? { group }
    /// The configuration and the running time in every zone (the article's spelling).
    public let group: HKWorkoutZoneGroup

    /// The zone entered (the article's spelling of `currentZoneDuration`).
    public var newZoneDuration: HKWorkoutZoneDuration? { currentZoneDuration }
    /// The quantity type whose zone changed. OpenHealthKit.
    public var quantityType: HKQuantityType { group.configuration.quantityType }

    package init(group: HKWorkoutZoneGroup, current: Int?, previous: Int?, lastSampleProcessedDate: Date?) {
        self.group = group
        currentZoneDuration = current.map { group.zoneDurations[$0] }
        previousZoneDuration = previous.map { group.zoneDurations[$0] }
        self.lastSampleProcessedDate = lastSampleProcessedDate
    }

    public override var description: String {
        let zone = { (duration: HKWorkoutZoneDuration?) in duration.map { "zone \($0.zone.index)" } ?? "none" }
        return "<HKLiveWorkoutZoneUpdate \(HKWorkoutZoneConfiguration.name(of: quantityType)): "
            + "\(zone(previousZoneDuration)) → \(zone(currentZoneDuration))>"
    }
}
