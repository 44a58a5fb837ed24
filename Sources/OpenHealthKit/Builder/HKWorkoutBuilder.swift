import Foundation

/// Builds a workout piece by piece — samples, events, activities, metadata — and saves it in one transaction.
///
/// The lifecycle is HealthKit's: `beginCollection(at:)` → `endCollection(at:)` → `finishWorkout()`, or
/// `discardWorkout()` before finishing; calls out of order fail with `errorInvalidArgument`. Everything added is
/// journaled to the store as it arrives, so a crash loses nothing (see `HKHealthStore.recoverActiveWorkoutSession()`).
/// Statistics are kept as samples arrive, for the workout and for each activity over its own span; only pause and
/// resume events move the elapsed-time clock.
///
/// Samples the app adds are kept in the store even if the workout is discarded, as in HealthKit; samples a live
/// data source collected are dropped with it.
///
/// HealthKit: HKWorkoutBuilder.
open class HKWorkoutBuilder: NSObject, @unchecked Sendable {
    let healthStore: HKHealthStore
    let configuration: HKWorkoutConfiguration
    /// The device the workout is recorded with.
    public let device: HKDevice?
    let lock = NSRecursiveLock()
    let builderUUID: UUID

    // Guarded by `lock`.
    var lifecycle = BuilderLifecycle() {
        didSet { collecting.store(lifecycle.phase == .active) }
    }
    /// Whether the builder is collecting (`lifecycle.phase == .active`), readable without the lock.
    let collecting = SharedFlag()
    var storedMetadata: [String: Any] = [:]
    var events: [HKWorkoutEvent] = []
    var activities: [ActivityRecord] = []
    var statisticsState = BuilderStatistics()
    var journal: LiveJournal?
    var associatedUUIDs: [UUID] = []
    var zoneState = BuilderZones()

    /// An activity as the builder keeps it.
    struct ActivityRecord {
        var uuid: UUID
        var configuration: HKWorkoutConfiguration
        var start: Date
        var end: Date?
        var metadata: [String: Any]?
    }

    public init(healthStore: HKHealthStore, configuration: HKWorkoutConfiguration, device: HKDevice?) {
        self.healthStore = healthStore
        self.configuration = configuration.copied()
        self.device = device
        self.builderUUID = UUID()
    }

    /// Whether a live session drives this builder (journals are offered back for recovery only then).
    var hasSession: Bool { false }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: Properties

    public var workoutConfiguration: HKWorkoutConfiguration { configuration.copied() }
    public var startDate: Date? { locked { lifecycle.startDate } }
    public var endDate: Date? { locked { lifecycle.endDate } }
    public var metadata: [String: Any] { locked { storedMetadata } }
    public var workoutEvents: [HKWorkoutEvent] { locked { events } }

    /// The activities added so far, ordered by start date, each with its statistics so far.
    public var workoutActivities: [HKWorkoutActivity] {
        locked {
            let now = healthStore.wallClock()
            return activities.sorted { $0.start < $1.start }.map { makeActivity($0, through: now) }
        }
    }

    /// The statistics of every type collected so far.
    public var allStatistics: [HKQuantityType: HKStatistics] {
        locked { statisticsState.allStatistics(start: lifecycle.startDate, through: statisticsHorizon, source: source) }
    }

    /// The statistics of one type collected so far, or nil when no sample of it was collected.
    public func statistics(for quantityType: HKQuantityType) -> HKStatistics? {
        locked { statisticsState.statistics(for: quantityType, start: lifecycle.startDate, through: statisticsHorizon, source: source) }
    }

    /// The running time at `date`: the span from the start, clamped to the end, less the pauses.
    public func elapsedTime(at date: Date) -> TimeInterval {
        locked { lifecycle.elapsedTime(at: date, events: events) }
    }

    var source: HKSource { healthStore.sourceRevision.source }
    var currentJournal: LiveJournal? { locked { journal } }
    /// Statistics are read up to now while collecting, up to the end once ended.
    var statisticsHorizon: Date { lifecycle.endDate ?? healthStore.wallClock() }

    func makeActivity(_ record: ActivityRecord, through now: Date) -> HKWorkoutActivity {
        HKWorkoutActivity(uuid: record.uuid, configuration: record.configuration, startDate: record.start, endDate: record.end,
                          metadata: record.metadata, parentEvents: events,
                          statistics: statisticsState.activityStatistics(record.uuid, through: record.end ?? now, source: source),
                          zoneGroups: activityZoneGroups(record, through: now))
    }

    // MARK: Lifecycle

    public func beginCollection(at startDate: Date) async throws {
        let zoneConfigurations = try resolvedZoneConfigurations()
        try locked {
            var next = lifecycle
            try next.begin(at: startDate)
            let journal = try LiveJournal.create(database: try healthStore.database(), builderUUID: builderUUID,
                                                 client: healthStore.clientIdentifier, hasSession: hasSession,
                                                 configuration: configuration, device: device, now: healthStore.wallClock())
            try journal.record(.builderPhase(phase: BuilderLifecycle.Phase.active.rawValue, start: startDate.storeValue, end: nil))
            for zones in zoneConfigurations { try journal.record(zones.journalEntry) }
            self.journal = journal
            lifecycle = next
            zoneState.begin(zoneConfigurations, events: events)
        }
        didBeginCollection()
    }

    public func endCollection(at endDate: Date) async throws {
        try locked {
            var next = lifecycle
            try next.end(at: endDate)
            try journal?.record(.builderPhase(phase: BuilderLifecycle.Phase.ended.rawValue, start: next.startDate?.storeValue,
                                              end: endDate.storeValue))
            lifecycle = next
            for index in activities.indices where activities[index].end == nil {
                activities[index].end = endDate
                statisticsState.endActivity(activities[index].uuid, at: endDate)
            }
        }
        didEndCollection()
    }

    /// Adds samples: quantity samples count towards the statistics and are saved with the workout; other samples
    /// (heartbeat series) are saved now and associated when the workout is finished.
    public func addSamples(_ samples: [HKSample]) async throws {
        for sample in samples { try sample.validate() }
        try checkShareAuthorization(samples.map(\.sampleType))
        var collected: [CollectedSample] = []
        var others: [HKSample] = []
        for sample in samples {
            if let quantity = sample as? HKQuantitySample { collected.append(try CollectedSample(quantity)) } else { others.append(sample) }
        }
        try locked {
            try lifecycle.checkCanAdd("samples")
            if let start = lifecycle.startDate, let early = samples.first(where: { $0.startDate < start }) {
                throw HKError(.errorInvalidArgument, "A sample starting at \(early.startDate) is before the workout's start \(start).")
            }
        }
        if !others.isEmpty {
            try await healthStore.save(others)
            try locked {
                for sample in others {
                    associatedUUIDs.append(sample.uuid)
                    try journal?.record(.associated(uuid: sample.uuid))
                }
            }
        }
        try collect(collected, appAdded: true)
    }

    /// Folds collected samples into the statistics and the journal. Called by `addSamples` and the data source.
    func collect(_ samples: [CollectedSample], appAdded: Bool) throws {
        guard !samples.isEmpty else { return }
        let zoneChanges = try locked {
            try lifecycle.checkCanAdd("samples")
            guard let journal else {
                throw HKError(.errorInvalidArgument, "Samples can be added once collection has begun.")
            }
            for sample in samples { statisticsState.add(sample) }
            try journal.append(appAdded ? samples.map { var s = $0; s.appAdded = true; return s } : samples)
            return zoneState.collect(samples)
        }
        didCollect(samples, zoneChanges: zoneChanges)
    }

    /// Journals heartbeats rebuilt from RR intervals; they become the workout's heartbeat series when it is finished.
    func collectHeartbeats(_ beats: [HeartbeatCollector.Beat]) throws {
        try locked {
            guard lifecycle.phase == .active, let journal else { return }
            try journal.appendHeartbeats(beats)
        }
    }

    public func addWorkoutEvents(_ workoutEvents: [HKWorkoutEvent]) async throws {
        let zoneChanges = try locked {
            try lifecycle.checkCanAdd("workout events")
            for event in workoutEvents {
                try MetadataCoding.validate(event.metadata)
                try journal?.record(.event(type: event.type.rawValue, start: event.dateInterval.start.storeValue,
                                           end: event.dateInterval.end.storeValue, metadata: MetadataCoding.encode(event.metadata)))
                events.append(event)
            }
            events.sort { $0.dateInterval.start < $1.dateInterval.start }
            return zoneState.eventsChanged(events, now: healthStore.wallClock())
        }
        didCollectEvents()
        if !zoneChanges.isEmpty { didUpdateZones(zoneChanges) }
    }

    /// Merges metadata, as `addEntries(from:)` does.
    public func addMetadata(_ metadata: [String: Any]) async throws {
        try MetadataCoding.validate(metadata)
        try locked {
            try lifecycle.checkCanAdd("metadata")
            if let json = try MetadataCoding.encode(metadata) { try journal?.record(.metadata(json)) }
            storedMetadata.merge(metadata) { $1 }
        }
    }

    public func addWorkoutActivity(_ workoutActivity: HKWorkoutActivity) async throws {
        let record = ActivityRecord(uuid: workoutActivity.uuid, configuration: workoutActivity.workoutConfiguration,
                                    start: workoutActivity.startDate, end: workoutActivity.endDate,
                                    metadata: workoutActivity.metadata)
        try locked { try addActivity(record) }
        didBeginActivity(makeActivity(record, through: healthStore.wallClock()))
    }

    func addActivity(_ record: ActivityRecord) throws {
        try lifecycle.checkCanAdd("workout activities")
        if activities.contains(where: { $0.end == nil }) {
            throw HKError(.errorInvalidArgument, "Cannot add new activity before ending current activity.")
        }
        if let end = record.end, end <= record.start {
            throw HKError(.errorInvalidArgument, "An activity's end must be after its start.")
        }
        if let overlap = activities.first(where: { ($0.end ?? .distantFuture) > record.start && $0.start < (record.end ?? .distantFuture) }) {
            throw HKError(.errorInvalidArgument, "The activity overlaps the activity that starts at \(overlap.start).")
        }
        try MetadataCoding.validate(record.metadata)
        try journal?.record(.activityBegan(uuid: record.uuid, configuration: ConfigurationRecord(record.configuration),
                                           start: record.start.storeValue, metadata: MetadataCoding.encode(record.metadata)))
        if let end = record.end { try journal?.record(.activityEnded(uuid: record.uuid, end: end.storeValue)) }
        activities.append(record)
        statisticsState.beginActivity(record.uuid, start: record.start, end: record.end)
    }

    public func updateActivity(uuid UUID: UUID, end endDate: Date) async throws {
        let ended = try locked { try endActivity(UUID, at: endDate) }
        didEndActivity(ended)
    }

    func endActivity(_ uuid: UUID, at endDate: Date) throws -> HKWorkoutActivity {
        try lifecycle.checkCanAdd("activity changes")
        guard let index = activities.firstIndex(where: { $0.uuid == uuid }) else {
            throw HKError(.errorInvalidArgument, "No workout activity has the UUID \(uuid).")
        }
        guard endDate > activities[index].start else {
            throw HKError(.errorInvalidArgument, "An activity's end must be after its start.")
        }
        try journal?.record(.activityEnded(uuid: uuid, end: endDate.storeValue))
        activities[index].end = endDate
        statisticsState.endActivity(uuid, at: endDate)
        return makeActivity(activities[index], through: endDate)
    }

    /// Adds metadata to an activity. (HealthKit's Objective-C selector spells it `addMedatata`.)
    public func updateActivity(uuid UUID: UUID, adding metadata: [String: Any]) async throws {
        try MetadataCoding.validate(metadata)
        try locked {
            try lifecycle.checkCanAdd("activity metadata")
            guard let index = activities.firstIndex(where: { $0.uuid == UUID }) else {
                throw HKError(.errorInvalidArgument, "No workout activity has the UUID \(UUID).")
            }
            activities[index].metadata = (activities[index].metadata ?? [:]).merging(metadata) { $1 }
        }
    }

    func checkShareAuthorization(_ types: [HKObjectType]) throws {
        let database = try healthStore.database()
        try database.read { db in try healthStore.checkShareAuthorization(for: types, db) }
    }

    // MARK: Hooks for the live builder

    func didBeginCollection() {}
    func didEndCollection() {}
    func didCollect(_ samples: [CollectedSample], zoneChanges: [ZoneChange]) {}
    func didCollectEvents() {}
    func didBeginActivity(_ activity: HKWorkoutActivity) {}
    func didEndActivity(_ activity: HKWorkoutActivity) {}
    /// The zone in effect changed for a type (see `BuilderZones`).
    func didUpdateZones(_ changes: [ZoneChange]) {}
    /// The builder finished or was discarded.
    func didFinish() {}
}
