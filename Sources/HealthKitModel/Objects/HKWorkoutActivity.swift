import Foundation

/// One activity of a workout: a leg of a triathlon, an interval, or the whole workout when it has only one.
///
/// Created on its own, an activity knows its configuration and dates. Read from a saved workout, it also knows
/// its `duration` (its span less the parent workout's pauses), its `workoutEvents` (the parent's events that
/// overlap it, even partly) and its statistics (from the workout's samples inside its span).
///
/// HealthKit: HKWorkoutActivity.
public final class HKWorkoutActivity: NSObject, NSCopying, Sendable {
    public let uuid: UUID
    package let configuration: HKWorkoutConfiguration
    public let startDate: Date
    /// The end, or nil while the activity is in progress.
    public let endDate: Date?
    /// Not checked by the compiler only because Apple's type is `[String: Any]`: its values are property-list values
    /// and quantities, never changed once the object is made.
    nonisolated(unsafe) public let metadata: [String: Any]?
    /// The parent's events that overlap this activity.
    public let workoutEvents: [HKWorkoutEvent]
    /// Statistics of the workout's samples inside this activity's span, by type.
    public let allStatistics: [HKQuantityType: HKStatistics]
    /// Time in zone over this activity's own span, by type (heart rate, cycling power); nil when none was computed.
    ///
    /// HealthKit: HKWorkoutActivity.zoneGroupsByType.
    public let zoneGroupsByType: [HKQuantityType: HKWorkoutZoneGroup]?
    private let parentEvents: [HKWorkoutEvent]

    /// A copy of the activity's configuration.
    public var workoutConfiguration: HKWorkoutConfiguration { configuration.copied() }

    public convenience init(
        workoutConfiguration: HKWorkoutConfiguration, start startDate: Date, end endDate: Date?,
        metadata: [String: Any]?
    ) {
        self.init(
            uuid: UUID(), configuration: workoutConfiguration.copied(), startDate: startDate, endDate: endDate,
            metadata: metadata, parentEvents: [], statistics: [:])
    }

    package init(
        uuid: UUID, configuration: HKWorkoutConfiguration, startDate: Date, endDate: Date?, metadata: [String: Any]?,
        parentEvents: [HKWorkoutEvent], statistics: [HKQuantityType: HKStatistics],
        zoneGroups: [HKQuantityType: HKWorkoutZoneGroup]? = nil
    ) {
        self.uuid = uuid
        self.zoneGroupsByType = (zoneGroups?.isEmpty ?? true) ? nil : zoneGroups
        self.configuration = configuration
        self.startDate = startDate
        self.endDate = endDate
        self.metadata = (metadata?.isEmpty ?? true) ? nil : metadata
        self.parentEvents = parentEvents
        self.allStatistics = statistics
        let end = endDate ?? .distantFuture
        self.workoutEvents = parentEvents.filter { event in
            event.dateInterval.end >= startDate && event.dateInterval.start <= end
        }
    }

    /// The same activity as part of a workout with these events and statistics.
    package func attached(
        parentEvents: [HKWorkoutEvent], statistics: [HKQuantityType: HKStatistics]
    ) -> HKWorkoutActivity {
        HKWorkoutActivity(
            uuid: uuid, configuration: configuration, startDate: startDate, endDate: endDate,
            metadata: metadata, parentEvents: parentEvents, statistics: statistics, zoneGroups: zoneGroupsByType)
    }

    /// The activity's running time: its span less the parent workout's pauses (0 while in progress).
    public var duration: TimeInterval {
        guard let endDate else { return 0 }
        return WorkoutPauses.runningTime(from: startDate, to: endDate, events: parentEvents)
    }

    /// The statistics for one type, or nil when the activity has no samples of it.
    public func statistics(for quantityType: HKQuantityType) -> HKStatistics? { allStatistics[quantityType] }

    /// The time in zone of one type over this activity, or nil.
    ///
    /// HealthKit: HKWorkoutActivity.zoneGroup(for:).
    public func zoneGroup(for quantityType: HKQuantityType) -> HKWorkoutZoneGroup? { zoneGroupsByType?[quantityType] }

    package var activityType: HKWorkoutActivityType { configuration.activityType }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKWorkoutActivity else { return false }
        return other.uuid == uuid
    }

    public override var hash: Int { uuid.hashValue }

    public override var description: String {
        "<HKWorkoutActivity \(configuration.activityType.name) \(startDate) – \(endDate.map { "\($0)" } ?? "in progress")>"
    }
}
