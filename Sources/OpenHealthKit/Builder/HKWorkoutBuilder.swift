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

    // Guarded by `lock`: the one lock of the recording's shell.
    var lifecycle = BuilderLifecycle() {
        didSet { core.collecting = lifecycle.phase == .active }
    }
    /// A `beginCollection` is making the journal's row (outside the lock): a second one fails at once instead of
    /// making a second row.
    private var isBeginning = false
    var storedMetadata: [String: Any] = [:]
    var events: [HKWorkoutEvent] = []
    var activities: [ActivityRecord] = []
    /// Statistics, zones, the journal's buffer, pending deliveries and, for a live builder, the mapping of readings.
    var core: RecordingCore
    /// The journal's writer, once collection has begun.
    var journal: LiveJournal?
    var associatedUUIDs: [UUID] = []
    /// The store's monotonic clock, as the shell reads it for the core.
    let monotonic: MonotonicTime

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
        let clocks = healthStore.clocks
        self.monotonic = MonotonicTime(clocks.monotonic)
        self.core = RecordingCore(activity: configuration.activityType, deliverySpacing: clocks.deliverySpacing)
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
        locked { core.statistics.allStatistics(start: lifecycle.startDate, through: statisticsHorizon, source: source) }
    }

    /// The statistics of one type collected so far, or nil when no sample of it was collected.
    public func statistics(for quantityType: HKQuantityType) -> HKStatistics? {
        locked { core.statistics.statistics(for: quantityType, start: lifecycle.startDate, through: statisticsHorizon, source: source) }
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
                          statistics: core.statistics.activityStatistics(record.uuid, through: record.end ?? now, source: source),
                          zoneGroups: activityZoneGroups(record, through: now))
    }

    // MARK: Lifecycle

    public func beginCollection(at startDate: Date) async throws {
        try refuseOnMirroredSession()
        let zoneConfigurations = try resolvedZoneConfigurations()
        // The journal's row is made before taking the lock: no I/O while the builder's state is locked. Only one
        // caller gets that far; the row is deleted again if the builder changed meanwhile (discarded).
        try locked {
            var next = lifecycle
            try next.begin(at: startDate)
            guard !isBeginning else { throw HKError(.errorInvalidArgument, "Collection has already begun for this workout builder.") }
            isBeginning = true
        }
        defer { locked { isBeginning = false } }
        let database = try healthStore.database()
        let created = try await LiveJournal.create(database: database, builderUUID: builderUUID,
                                             client: healthStore.clientIdentifier, hasSession: hasSession,
                                             configuration: configuration, device: device, now: healthStore.wallClock())
        do {
            try locked {
                var next = lifecycle
                try next.begin(at: startDate)
                journal = created
                try queueEntry(.builderPhase(phase: BuilderLifecycle.Phase.active.rawValue, start: startDate.storeValue, end: nil))
                for zones in zoneConfigurations { try queueEntry(zones.journalEntry) }
                lifecycle = next
                core.zones.begin(zoneConfigurations, events: events)
            }
        } catch {
            locked { if journal === created { journal = nil } }
            _ = try? await database.write { db in try created.close(db) }
            throw error
        }
        try await awaitJournal()
        didBeginCollection()
    }

    public func endCollection(at endDate: Date) async throws {
        try locked {
            var next = lifecycle
            try next.end(at: endDate)
            try queueEntry(.builderPhase(phase: BuilderLifecycle.Phase.ended.rawValue, start: next.startDate?.storeValue,
                                         end: endDate.storeValue))
            lifecycle = next
            for index in activities.indices where activities[index].end == nil {
                activities[index].end = endDate
                core.statistics.endActivity(activities[index].uuid, at: endDate)
            }
        }
        try await awaitJournal()
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
                    try queueEntry(.associated(uuid: sample.uuid))
                }
            }
            try await awaitJournal()
        }
        guard !collected.isEmpty else { return }
        let now = monotonic.now()
        let actions = try locked {
            try lifecycle.checkCanAdd("samples")
            guard journal != nil else {
                throw HKError(.errorInvalidArgument, "Samples can be added once collection has begun.")
            }
            return carryOut(core.appended(collected.map { var s = $0; s.appAdded = true; return s }, now: now))
        }
        try finish(actions)
    }

    // MARK: The shell

    /// Under the lock: does what the core asked that must keep the lock's order (hands a batch to the writer);
    /// returns what is left for after unlocking.
    func carryOut(_ actions: RecordingCore.Actions) -> RecordingCore.Actions {
        if let batch = actions.write, let journal { send(batch, to: journal) }
        return actions
    }

    /// After unlocking: queues the delivery the core scheduled and reports a failed write. It never waits for the
    /// journal's writer (it runs on the path of a reading, under the sensor outlet's lock): the buffer holds back
    /// what the writer cannot take yet (``JournalBuffer``).
    ///
    /// The delivery is queued after unlocking because waking the delegate queue's thread takes a system call of
    /// several microseconds: under the lock, the woken thread would find the lock still held and sleep again on
    /// it, so every reading that a delegate hears of alone paid two wake-ups instead of one. Order is kept: a
    /// scheduled delivery takes whatever is waiting when it runs (its ticket is void once a call of another kind
    /// took it), and calls of another kind are queued under the lock (``HKLiveWorkoutBuilder/queueDelegateCall``).
    func finish(_ actions: RecordingCore.Actions) throws {
        if let delivery = actions.delivery { queueDelivery(delivery) }
        if let failure = actions.failure { throw failure }
    }

    /// Under the lock: queues a journal entry after everything buffered before it. It is in the store once
    /// ``awaitJournal()`` returns.
    func queueEntry(_ entry: JournalEntry) throws {
        guard let journal else { return }
        let payload = try JSONEncoder().encode(entry)
        if let batch = core.journal.handOver(entry: (.entry, [UInt8](payload))) { send(batch, to: journal) }
    }

    /// Under the lock: hands a batch to the journal's writer, without waiting. The writer reports back under the
    /// lock, so nothing may wait for the writer while holding it.
    func send(_ batch: JournalBatch, to journal: LiveJournal) {
        let monotonic = monotonic
        journal.write(batch) { [weak self] result in
            guard let self else { return }
            let now = monotonic.now()
            locked {
                switch result {
                case .success(let buffer):
                    if let next = core.journal.written(buffer: buffer) { send(next, to: journal) }
                case .failure(let error): core.journal.failed(batch, error: error, now: now)
                }
            }
        }
    }

    /// Outside the lock: returns once everything handed to the writer is written; throws a write's failure. The
    /// calling task is suspended meanwhile.
    func awaitJournal() async throws {
        guard let journal = currentJournal else { return }
        await journal.waitForWrites()
        if let failure = locked({ core.journal.takeFailure() }) { throw failure }
    }

    /// Returns once everything the builder has handed to its journal's writer is in the store; samples still
    /// buffered (younger than the flush interval) stay buffered. OpenHealthKit (tests: a crash test uses it to know
    /// what a kill may lose).
    public func waitForJournal() async throws {
        try await awaitJournal()
    }

    /// Hands every buffered sample to the writer and waits until it is written.
    func flushJournal() async throws {
        handOverJournal()
        try await awaitJournal()
    }

    /// Hands every buffered sample to the writer, without waiting.
    func handOverJournal() {
        locked {
            if let journal, let batch = core.journal.handOver(entry: nil) { send(batch, to: journal) }
        }
    }

    public func addWorkoutEvents(_ workoutEvents: [HKWorkoutEvent]) async throws {
        let zoneChanges = try locked {
            try lifecycle.checkCanAdd("workout events")
            for event in workoutEvents {
                try MetadataCoding.validate(event.metadata)
                try queueEntry(.event(type: event.type.rawValue, start: event.dateInterval.start.storeValue,
                                      end: event.dateInterval.end.storeValue, metadata: MetadataCoding.encode(event.metadata)))
                events.append(event)
            }
            events.sort { $0.dateInterval.start < $1.dateInterval.start }
            return core.zones.eventsChanged(events, now: healthStore.wallClock())
        }
        try await awaitJournal()
        didCollectEvents()
        if !zoneChanges.isEmpty { didUpdateZones(zoneChanges) }
    }

    /// Merges metadata, as `addEntries(from:)` does.
    public func addMetadata(_ metadata: [String: Any]) async throws {
        try MetadataCoding.validate(metadata)
        try locked {
            try lifecycle.checkCanAdd("metadata")
            if let json = try MetadataCoding.encode(metadata) { try queueEntry(.metadata(json)) }
            storedMetadata.merge(metadata) { $1 }
        }
        try await awaitJournal()
    }

    public func addWorkoutActivity(_ workoutActivity: HKWorkoutActivity) async throws {
        let record = ActivityRecord(uuid: workoutActivity.uuid, configuration: workoutActivity.workoutConfiguration,
                                    start: workoutActivity.startDate, end: workoutActivity.endDate,
                                    metadata: workoutActivity.metadata)
        try locked { try addActivity(record) }
        try await awaitJournal()
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
        try queueEntry(.activityBegan(uuid: record.uuid, configuration: ConfigurationRecord(record.configuration),
                                      start: record.start.storeValue, metadata: MetadataCoding.encode(record.metadata)))
        if let end = record.end { try queueEntry(.activityEnded(uuid: record.uuid, end: end.storeValue)) }
        activities.append(record)
        core.statistics.beginActivity(record.uuid, start: record.start, end: record.end)
    }

    public func updateActivity(uuid UUID: UUID, end endDate: Date) async throws {
        let ended = try locked { try endActivity(UUID, at: endDate) }
        try await awaitJournal()
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
        try queueEntry(.activityEnded(uuid: uuid, end: endDate.storeValue))
        activities[index].end = endDate
        core.statistics.endActivity(uuid, at: endDate)
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
    /// Under the lock: queues a delivery to the delegate (the live builder's).
    func queueDelivery(_ scheduled: Deliveries.Scheduled) {}
    func didCollectEvents() {}
    func didBeginActivity(_ activity: HKWorkoutActivity) {}
    func didEndActivity(_ activity: HKWorkoutActivity) {}
    /// The zone in effect changed for a type (see `BuilderZones`).
    func didUpdateZones(_ changes: [ZoneChange]) {
        guard !changes.isEmpty else { return }
        let now = monotonic.now()
        // Queued after unlocking, as a reading's delivery is (see ``finish(_:)``).
        if let delivery = locked({ core.zonesChanged(changes, now: now) }) { queueDelivery(delivery) }
    }
    /// The builder finished or was discarded.
    func didFinish() {}
    /// The sensors to save with the finished workout (a live builder's data source's).
    func workoutSensorsToSave() -> [HKWorkoutSensor] { [] }
}
