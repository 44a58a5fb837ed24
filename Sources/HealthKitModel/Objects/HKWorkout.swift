import Foundation

/// Sort keys for workouts. HealthKit: HKWorkoutSortIdentifier…
public let HKWorkoutSortIdentifierDuration = "duration"
public let HKWorkoutSortIdentifierTotalDistance = "totalDistance"
public let HKWorkoutSortIdentifierTotalEnergyBurned = "totalEnergyBurned"
public let HKWorkoutSortIdentifierTotalSwimmingStrokeCount = "totalSwimmingStrokeCount"
public let HKWorkoutSortIdentifierTotalFlightsClimbed = "totalFlightsClimbed"

/// A workout: an activity type, a span of time, events, activities and statistics.
///
/// Since iOS 17 HealthKit builds workouts with `HKWorkoutBuilder`; the initializers below are deprecated there and
/// kept here because Apple's documentation still shows them. With them, `totalEnergyBurned` becomes the workout's
/// `activeEnergyBurned` statistics and `totalDistance` the statistics of the distance type that fits the activity
/// (cycling → `distanceCycling`, swimming → `distanceSwimming`, …), and a workout saved without activities has
/// one activity of its own type spanning it.
///
/// HealthKit: HKWorkout.
public final class HKWorkout: HKSample, @unchecked Sendable {
    public let workoutActivityType: HKWorkoutActivityType
    /// The running time: end − start less the pauses.
    public let duration: TimeInterval
    /// The workout's events, in ascending start order; nil when it has none.
    public let workoutEvents: [HKWorkoutEvent]?
    /// The workout's activities, ordered by start date; at least one.
    public let workoutActivities: [HKWorkoutActivity]
    /// The workout's statistics by quantity type.
    public let allStatistics: [HKQuantityType: HKStatistics]

    /// The statistics of one type, or nil.
    public func statistics(for quantityType: HKQuantityType) -> HKStatistics? { allStatistics[quantityType] }

    /// Time in zone over the whole workout, by type (heart rate, cycling power): computed by the builder that made
    /// the workout from the samples it collected; nil for workouts saved without a builder.
    ///
    /// HealthKit: HKWorkout.zoneGroupsByType.
    public let zoneGroupsByType: [HKQuantityType: HKWorkoutZoneGroup]?

    /// The time in zone of one type over the whole workout, or nil.
    ///
    /// HealthKit: HKWorkout.zoneGroup(for:).
    public func zoneGroup(for quantityType: HKQuantityType) -> HKWorkoutZoneGroup? { zoneGroupsByType?[quantityType] }

    @available(*, deprecated, message: "Use statistics(for: HKQuantityType(.activeEnergyBurned))")
    public var totalEnergyBurned: HKQuantity? { total(.activeEnergyBurned) }
    @available(*, deprecated, message: "Use statistics(for:) with the activity's distance type")
    public var totalDistance: HKQuantity? { total(HKWorkout.distanceType(for: workoutActivityType)) }
    @available(*, deprecated, message: "Use statistics(for: HKQuantityType(.swimmingStrokeCount))")
    public var totalSwimmingStrokeCount: HKQuantity? { total(.swimmingStrokeCount) }
    @available(*, deprecated, message: "Use statistics(for: HKQuantityType(.flightsClimbed))")
    public var totalFlightsClimbed: HKQuantity? { total(.flightsClimbed) }

    private func total(_ identifier: HKQuantityTypeIdentifier) -> HKQuantity? {
        allStatistics[HKQuantityType(identifier)]?.sumQuantity()
    }

    // Comparable projections for NSSortDescriptor(key:ascending:) with HealthKit's workout sort identifiers.
    private func sortValue(_ identifier: HKQuantityTypeIdentifier) -> Double {
        allStatistics[HKQuantityType(identifier)]?.merged.sum ?? -.infinity
    }
    package var sortTotalDistance: Double { sortValue(HKWorkout.distanceType(for: workoutActivityType)) }
    package var sortTotalEnergyBurned: Double { sortValue(.activeEnergyBurned) }
    package var sortTotalSwimmingStrokeCount: Double { sortValue(.swimmingStrokeCount) }
    package var sortTotalFlightsClimbed: Double { sortValue(.flightsClimbed) }

    // MARK: Initializers documented by Apple (deprecated there)

    @available(*, deprecated, message: "Use HKWorkoutBuilder")
    public convenience init(activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date) {
        self.init(
            legacy: activityType, start: startDate, end: endDate, events: nil, duration: nil, energy: nil,
            distance: nil, strokes: nil, flights: nil, device: nil, metadata: nil)
    }

    @available(*, deprecated, message: "Use HKWorkoutBuilder")
    public convenience init(
        activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date,
        workoutEvents: [HKWorkoutEvent]?, totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?,
        metadata: [String: Any]?
    ) {
        self.init(
            legacy: activityType, start: startDate, end: endDate, events: workoutEvents, duration: nil,
            energy: totalEnergyBurned, distance: totalDistance, strokes: nil, flights: nil, device: nil,
            metadata: metadata)
    }

    @available(*, deprecated, message: "Use HKWorkoutBuilder")
    public convenience init(
        activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date,
        workoutEvents: [HKWorkoutEvent]?, totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?,
        device: HKDevice?, metadata: [String: Any]?
    ) {
        self.init(
            legacy: activityType, start: startDate, end: endDate, events: workoutEvents, duration: nil,
            energy: totalEnergyBurned, distance: totalDistance, strokes: nil, flights: nil, device: device,
            metadata: metadata)
    }

    /// `duration: 0` means end − start, as in HealthKit.
    @available(*, deprecated, message: "Use HKWorkoutBuilder")
    public convenience init(
        activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date,
        duration: TimeInterval, totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?,
        metadata: [String: Any]?
    ) {
        self.init(
            legacy: activityType, start: startDate, end: endDate, events: nil, duration: duration,
            energy: totalEnergyBurned, distance: totalDistance, strokes: nil, flights: nil, device: nil,
            metadata: metadata)
    }

    @available(*, deprecated, message: "Use HKWorkoutBuilder")
    public convenience init(
        activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date,
        duration: TimeInterval, totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?,
        device: HKDevice?, metadata: [String: Any]?
    ) {
        self.init(
            legacy: activityType, start: startDate, end: endDate, events: nil, duration: duration,
            energy: totalEnergyBurned, distance: totalDistance, strokes: nil, flights: nil, device: device,
            metadata: metadata)
    }

    @available(*, deprecated, message: "Use HKWorkoutBuilder")
    public convenience init(
        activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date,
        workoutEvents: [HKWorkoutEvent]?, totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?,
        totalSwimmingStrokeCount: HKQuantity?, device: HKDevice?, metadata: [String: Any]?
    ) {
        self.init(
            legacy: activityType, start: startDate, end: endDate, events: workoutEvents, duration: nil,
            energy: totalEnergyBurned, distance: totalDistance, strokes: totalSwimmingStrokeCount, flights: nil,
            device: device, metadata: metadata)
    }

    @available(*, deprecated, message: "Use HKWorkoutBuilder")
    public convenience init(
        activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date,
        workoutEvents: [HKWorkoutEvent]?, totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?,
        totalFlightsClimbed: HKQuantity?, device: HKDevice?, metadata: [String: Any]?
    ) {
        self.init(
            legacy: activityType, start: startDate, end: endDate, events: workoutEvents, duration: nil,
            energy: totalEnergyBurned, distance: totalDistance, strokes: nil, flights: totalFlightsClimbed,
            device: device, metadata: metadata)
    }

    private convenience init(
        legacy activityType: HKWorkoutActivityType, start: Date, end: Date, events: [HKWorkoutEvent]?,
        duration: TimeInterval?, energy: HKQuantity?, distance: HKQuantity?, strokes: HKQuantity?,
        flights: HKQuantity?, device: HKDevice?, metadata: [String: Any]?
    ) {
        let sortedEvents = events.map { $0.sorted { $0.dateInterval.start < $1.dateInterval.start } }
        let resolvedDuration: TimeInterval =
            if let duration, duration != 0 {
                duration
            } else if duration == nil, let sortedEvents {
                WorkoutPauses.runningTime(from: start, to: end, events: sortedEvents)
            } else {
                end.timeIntervalSince(start)
            }
        var statistics: [HKQuantityType: HKStatistics] = [:]
        func add(_ identifier: HKQuantityTypeIdentifier, _ quantity: HKQuantity?) {
            guard let quantity else { return }
            let type = HKQuantityType(identifier)
            guard quantity.is(compatibleWith: type.storageUnit) else { return }  // reported by validate()
            statistics[type] = HKStatistics(
                quantityType: type, startDate: start, endDate: end,
                merged: .init(sum: quantity.doubleValue(for: type.storageUnit)))
        }
        add(.activeEnergyBurned, energy)
        add(HKWorkout.distanceType(for: activityType), distance)
        add(.swimmingStrokeCount, strokes)
        add(.flightsClimbed, flights)
        self.init(
            activityType: activityType, startDate: start, endDate: end, duration: resolvedDuration,
            events: sortedEvents, activities: [], statistics: statistics, uuid: UUID(), metadata: metadata,
            device: device, sourceRevision: nil)
        legacyTotals = [energy, distance, strokes, flights]
    }

    /// Archives the workout with its events, activities and statistics (not its zone groups; see
    /// `Coding/WorkoutCoding.swift`).
    public override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        encodeWorkoutFields(coder)
    }

    public required convenience init?(coder: NSCoder) {
        guard let sample = HKSample.decodeSampleFields(coder), sample.type == HKObjectType.workoutType(),
            let fields = HKWorkout.decodeWorkoutFields(coder)
        else {
            SecureCoding.fail(coder, "an HKWorkout")
            return nil
        }
        self.init(
            activityType: fields.activityType, startDate: sample.start, endDate: sample.end, duration: fields.duration,
            events: fields.events, activities: fields.activities, statistics: fields.statistics,
            uuid: sample.object.uuid,
            metadata: sample.object.metadata, device: sample.object.device, sourceRevision: sample.object.sourceRevision
        )
    }

    /// The totals given to a deprecated initializer, kept so `validate()` can report an incompatible unit.
    private var legacyTotals: [HKQuantity?] = []

    /// The designated initializer: everything known. A workout without activities gets one of its own type.
    package init(
        activityType: HKWorkoutActivityType, startDate: Date, endDate: Date, duration: TimeInterval,
        events: [HKWorkoutEvent]?, activities: [HKWorkoutActivity], statistics: [HKQuantityType: HKStatistics],
        uuid: UUID, metadata: [String: Any]?, device: HKDevice?, sourceRevision: HKSourceRevision?,
        zoneGroups: [HKQuantityType: HKWorkoutZoneGroup]? = nil
    ) {
        self.workoutActivityType = activityType
        self.zoneGroupsByType = (zoneGroups?.isEmpty ?? true) ? nil : zoneGroups
        self.duration = duration
        let events = (events?.isEmpty ?? true) ? nil : events
        self.workoutEvents = events
        self.allStatistics = statistics
        let parentEvents = events ?? []
        if activities.isEmpty {
            let configuration = HKWorkoutConfiguration()
            configuration.activityType = activityType
            if let indoor = metadata?[HKMetadataKeyIndoorWorkout] as? Bool {
                configuration.locationType = indoor ? .indoor : .outdoor
            }
            self.workoutActivities = [
                HKWorkoutActivity(
                    uuid: uuid, configuration: configuration, startDate: startDate,
                    endDate: endDate, metadata: nil, parentEvents: parentEvents,
                    statistics: statistics, zoneGroups: zoneGroups)
            ]
        } else {
            self.workoutActivities = activities.sorted { $0.startDate < $1.startDate }
                .map { $0.attached(parentEvents: parentEvents, statistics: $0.allStatistics) }
        }
        super.init(
            sampleType: HKWorkoutType.shared, startDate: startDate, endDate: endDate, uuid: uuid,
            metadata: metadata, device: device, sourceRevision: sourceRevision)
    }

    /// The distance type HealthKit uses for an activity type's total distance.
    public static func distanceType(for activityType: HKWorkoutActivityType) -> HKQuantityTypeIdentifier {
        switch activityType {
        case .cycling, .handCycling: .distanceCycling
        case .swimming: .distanceSwimming
        case .wheelchairWalkPace, .wheelchairRunPace: .distanceWheelchair
        case .downhillSkiing, .snowboarding, .snowSports: .distanceDownhillSnowSports
        case .crossCountrySkiing: .distanceCrossCountrySkiing
        case .paddleSports: .distancePaddleSports
        case .rowing: .distanceRowing
        case .skatingSports: .distanceSkatingSports
        default: .distanceWalkingRunning
        }
    }

    package override func validate() throws {
        try super.validate()
        for (total, identifier) in zip(
            legacyTotals,
            [
                HKQuantityTypeIdentifier.activeEnergyBurned,
                HKWorkout.distanceType(for: workoutActivityType),
                .swimmingStrokeCount, .flightsClimbed,
            ])
        {
            if let total, !total.is(compatibleWith: HKQuantityType(identifier).storageUnit) {
                throw HKError(
                    .errorInvalidArgument,
                    "The workout's total \(total) is not compatible with \(identifier.rawValue).")
            }
        }
        guard duration >= 0, duration.isFinite else {
            throw HKError(.errorInvalidArgument, "A workout's duration must be a non-negative number of seconds.")
        }
        if let events = workoutEvents {
            if events.first?.type == .resume {
                throw HKError(.errorInvalidArgument, "A workout's first event cannot be a resume.")
            }
            for event in events where event.dateInterval.start < startDate || event.dateInterval.end > endDate {
                throw HKError(
                    .errorInvalidArgument,
                    "The workout event \(event.type.name) at \(event.dateInterval.start) lies outside the workout.")
            }
        }
        var previousEnd: Date?
        for activity in workoutActivities {
            let end = activity.endDate ?? endDate
            if activity.startDate < startDate || end > endDate || activity.startDate > end {
                throw HKError(.errorInvalidArgument, "A workout activity must lie inside its workout.")
            }
            if let previousEnd, activity.startDate < previousEnd {
                throw HKError(.errorInvalidArgument, "A workout's activities must not overlap.")
            }
            previousEnd = end
        }
    }

    public override var description: String {
        "<HKWorkout \(workoutActivityType.name) \(uuid) \(startDate) – \(endDate) (\(Int(duration)) s)>"
    }
}
