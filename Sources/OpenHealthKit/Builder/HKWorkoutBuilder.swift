import FitnessSensors
import Foundation
import HealthKitModel
import Synchronization
import WorkoutEngine

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
/// The builder is the shell of its `RecordingCore`, which it keeps in a `Mutex`: each call becomes an input to the
/// core, and the builder carries out the actions the core returns. Under the lock it only hands journal batches to
/// the writer (which queues them), raises or releases its producers' back-pressure and queues delegate calls; it
/// touches the store and calls anyone only after unlocking. Its `async` calls await the journal's writer; nothing
/// on the path of a reading waits for it (see `JournalBuffer` for what the journal's back-pressure is).
///
/// HealthKit: HKWorkoutBuilder. (Its `Sendable` conformance is unchecked only because the class is open, as
/// HealthKit's is, and the compiler checks no class that can be subclassed: every stored property is a constant of
/// a `Sendable` type, the recording's state behind a `Mutex`.)
open class HKWorkoutBuilder: NSObject, @unchecked Sendable {
    let healthStore: HKHealthStore
    let configuration: HKWorkoutConfiguration
    /// The device the workout is recorded with.
    public let device: HKDevice?
    let builderUUID: UUID
    /// The recording: lifecycle, events, activities, metadata, statistics, zones, the journal's buffer, pending
    /// deliveries and, for a live builder, the mapping of readings.
    private let core: Mutex<RecordingCore>
    /// The series builders `seriesBuilder(for:)` made, by series type identifier (HKWorkoutBuilder+Series.swift).
    let seriesBuilders = Mutex<[String: HKSeriesBuilder]>([:])
    /// The workout plan attached to the workout being built (OpenWorkoutKit), saved with it.
    let attachedWorkoutPlan = Mutex<Data?>(nil)
    /// The store's monotonic clock, as the shell reads it for the core.
    let monotonic: MonotonicTime
    /// Raised while the journal's writer is behind (``JournalBuffer``): the producers that can wait (the data
    /// source's sensors, `addSamples`) wait for it, outside every lock.
    let backPressure = SensorBackPressure()

    public init(healthStore: HKHealthStore, configuration: HKWorkoutConfiguration, device: HKDevice?) {
        self.healthStore = healthStore
        self.configuration = configuration.copied()
        self.device = device
        self.builderUUID = UUID()
        let clocks = healthStore.clocks
        self.monotonic = MonotonicTime(clocks.monotonic)
        self.core = Mutex(
            RecordingCore(
                activity: configuration.activityType, deliverySpacing: clocks.deliverySpacing,
                source: healthStore.sourceRevision.source))
    }

    /// A builder over a core made elsewhere: a live session's, or one folded from a journal.
    init(healthStore: HKHealthStore, configuration: HKWorkoutConfiguration, device: HKDevice?, core: RecordingCore) {
        self.healthStore = healthStore
        self.configuration = configuration.copied()
        self.device = device
        self.builderUUID = UUID()
        self.monotonic = MonotonicTime(healthStore.clocks.monotonic)
        self.core = Mutex(core)
    }

    /// Whether a live session drives this builder (journals are offered back for recovery only then).
    var hasSession: Bool { false }

    /// Runs `body` with the core locked. Nothing in `body` may wait, touch the store or call out.
    func withCore<T, E: Error>(_ body: (inout RecordingCore) throws(E) -> T) throws(E) -> T {
        try core.withLock { (core: inout RecordingCore) throws(E) -> UncheckedBox<T> in UncheckedBox(try body(&core)) }
            .value
    }

    /// Applies an input and, still under the lock, hands the batches it made to the writer and changes the
    /// back-pressure as the core asked (``handOver(_:of:)``); returns the actions left for after unlocking
    /// (``finish(_:)``).
    @discardableResult
    func apply(_ input: RecordingInput, now: Duration? = nil) throws -> RecordingCore.Actions {
        let now = now ?? monotonic.now()
        return try withCore { core in
            let actions = try core.apply(input, now: now)
            handOver(actions, of: core)
            return actions
        }
    }

    /// Under the lock: the batches an input made go to the writer, and the back-pressure follows the journal's
    /// backlog. Both under the lock, so that they happen in the order the core decided them (a release from the
    /// writer's thread cannot overtake the raise it follows).
    func handOver(_ actions: RecordingCore.Actions, of core: RecordingCore) {
        send(actions.writes, to: core.journalWriter as? LiveJournal)
        if let pressure = actions.pressure { changePressure(to: pressure) }
    }

    /// Raises or releases the producers' back-pressure. Under the lock: it neither waits nor calls anyone (a
    /// release only schedules the waiting tasks).
    private func changePressure(to raised: Bool) {
        if raised { backPressure.raise() } else { backPressure.release() }
    }

    // MARK: Properties

    public var workoutConfiguration: HKWorkoutConfiguration { configuration.copied() }
    public var startDate: Date? { withCore { $0.lifecycle.startDate } }
    public var endDate: Date? { withCore { $0.lifecycle.endDate } }
    public var metadata: [String: Any] { withCore { $0.metadata } }
    public var workoutEvents: [HKWorkoutEvent] { withCore { $0.events } }

    /// The activities added so far, ordered by start date, each with its statistics so far.
    public var workoutActivities: [HKWorkoutActivity] {
        let now = healthStore.wallClock()
        return withCore { $0.workoutActivities(through: now) }
    }

    /// The statistics of every type collected so far.
    public var allStatistics: [HKQuantityType: HKStatistics] {
        let now = healthStore.wallClock()
        return withCore { $0.allStatistics(now: now) }
    }

    /// The statistics of one type collected so far, or nil when no sample of it was collected.
    public func statistics(for quantityType: HKQuantityType) -> HKStatistics? {
        let now = healthStore.wallClock()
        return withCore { $0.statistics(for: quantityType, now: now) }
    }

    /// The running time at `date`: the span from the start, clamped to the end, less the pauses.
    public func elapsedTime(at date: Date) -> TimeInterval {
        withCore { $0.elapsedTime(at: date) }
    }

    var source: HKSource { healthStore.sourceRevision.source }
    var currentJournal: LiveJournal? { withCore { $0.journalWriter as? LiveJournal } }
    var phase: BuilderLifecycle.Phase { withCore { $0.lifecycle.phase } }

    // MARK: Lifecycle

    public func beginCollection(at startDate: Date) async throws {
        try refuseOnMirroredSession()
        let zoneConfigurations = try await resolvedZoneConfigurations()
        // The journal's row is made before taking the lock: no I/O while the builder's state is locked. Only one
        // caller gets that far; the row is deleted again if the builder changed meanwhile (discarded).
        try withCore { try $0.reserveBegin(at: startDate) }
        defer { withCore { $0.releaseBegin() } }
        let backend = try healthStore.backend()
        let created = try await LiveJournal.create(
            database: backend, builderUUID: builderUUID,
            client: healthStore.clientIdentifier, hasSession: hasSession,
            configuration: configuration, device: device, now: healthStore.wallClock())
        let now = monotonic.now()
        do {
            try withCore { core in
                var trial = core
                trial.openJournal(created)
                var writes = try trial.apply(.began(at: startDate), now: now).writes
                for zones in zoneConfigurations {
                    writes += try trial.apply(.zoneConfiguration(zones), now: now).writes
                }
                core = trial
                send(writes, to: created)
            }
        } catch {
            try? await backend.deleteJournal(builderID: created.builderID)
            throw error
        }
        try await awaitJournal()
        await didBeginCollection()
    }

    public func endCollection(at endDate: Date) async throws {
        try apply(.ended(at: endDate))
        didEndCollection()
        try await awaitJournal()
    }

    /// Adds samples: quantity samples count towards the statistics and are saved with the workout; other samples
    /// (heartbeat series) are saved now and associated when the workout is finished. A quantity sample the store
    /// holds already (one the app saved, or the samples of a finished `HKQuantitySeriesSampleBuilder`) is associated
    /// as it is, never saved a second time, and each of its quantities counts towards the statistics.
    public func addSamples(_ samples: [HKSample]) async throws {
        for sample in samples { try sample.validate() }
        try await checkShareAuthorization(samples.map(\.sampleType))
        let quantities = samples.compactMap { $0 as? HKQuantitySample }
        let stored = try await storedQuantities(of: quantities)
        var collected: [CollectedSample] = []
        var others: [HKSample] = []
        var associated: [UUID] = []
        for sample in samples {
            if let quantity = sample as? HKQuantitySample {
                if let points = stored[quantity.uuid] {
                    associated.append(quantity.uuid)
                    for point in points {
                        var made = CollectedSample(
                            type: quantity.quantityType, start: point.start, end: max(point.start, point.end),
                            value: point.value, device: quantity.device)
                        made.appAdded = true
                        made.alreadyStored = true
                        collected.append(made)
                    }
                } else {
                    var made = try CollectedSample(quantity)
                    made.appAdded = true
                    collected.append(made)
                }
            } else {
                others.append(sample)
            }
        }
        let start = try withCore { core in
            try core.lifecycle.checkCanAdd("samples")
            return core.lifecycle.startDate
        }
        if let start, let early = samples.first(where: { $0.startDate < start }) {
            throw HKError(
                .errorInvalidArgument, "A sample starting at \(early.startDate) is before the workout's start \(start)."
            )
        }
        if !others.isEmpty {
            try await healthStore.save(others)
            for sample in others { try apply(.associated(sample.uuid)) }
        }
        for uuid in associated { try apply(.associated(uuid)) }
        if !others.isEmpty || !associated.isEmpty { try await awaitJournal() }
        guard !collected.isEmpty else { return }
        try finish(apply(.samples(collected)))
        // An app adding samples faster than the store takes them waits for it here, suspended.
        await backPressure.wait()
    }

    public func addWorkoutEvents(_ workoutEvents: [HKWorkoutEvent]) async throws {
        try await carryOut(apply(.events(workoutEvents, checkedAt: healthStore.wallClock())))
    }

    /// Merges metadata, as `addEntries(from:)` does.
    public func addMetadata(_ metadata: [String: Any]) async throws {
        try apply(.metadata(metadata))
        try await awaitJournal()
    }

    /// The quantities the store holds of those of `samples` it holds already, by sample: a series' points, or the
    /// sample's own quantity (storage unit, seconds since the reference date). A series' last instant of a held type
    /// (heart rate) covers what it covers in the store's own statistics of the series, until the series' end at most
    /// (``StatisticsAccumulator/covered(_:style:nextStart:maximumHold:)``), not until the next sample the builder
    /// happens to get.
    private func storedQuantities(of samples: [HKQuantitySample]) async throws -> [UUID: [SeriesQuantity]] {
        guard !samples.isEmpty else { return [:] }
        let backend = try healthStore.backend()
        var found: [UUID: [SeriesQuantity]] = [:]
        for ofType in Dictionary(grouping: samples, by: \.quantityType.identifier).values {
            let type = ofType[0].quantityType
            for first in stride(from: 0, to: ofType.count, by: 500) {
                let slice = ofType[first ..< min(first + 500, ofType.count)]
                // The samples' start dates bound the search: SQLite finds samples by type and start, not by UUID.
                let starts = slice.map(\.startDate.timeIntervalSinceReferenceDate)
                let earliest = Date(timeIntervalSinceReferenceDate: starts.min() ?? 0)
                let afterLatest = Date(timeIntervalSinceReferenceDate: (starts.max() ?? 0).nextUp)
                let predicate = NSCompoundPredicate(andPredicateWithSubpredicates: [
                    HKQuery.predicateForObjects(with: Set(slice.map(\.uuid))),
                    HKQuery.predicateForSamples(withStart: earliest, end: afterLatest, options: .strictStartDate),
                ])
                let descriptor = HKQueryDescriptor(sampleType: type, predicate: predicate)
                for (sample, points) in try await backend.seriesSamples(
                    descriptor, client: healthStore.clientIdentifier)
                {
                    found[sample.uuid] =
                        points.map {
                            StatisticsAccumulator.covered(
                                $0, style: type.aggregationStyle, nextStart: sample.endDate.storeValue)
                        } ?? [
                            SeriesQuantity(
                                start: sample.startDate.storeValue, end: sample.endDate.storeValue,
                                value: sample.quantity.doubleValue(for: type.storageUnit))
                        ]
                }
            }
        }
        return found
    }

    public func addWorkoutActivity(_ workoutActivity: HKWorkoutActivity) async throws {
        let activity = RecordingCore.Activity(
            uuid: workoutActivity.uuid, configuration: workoutActivity.workoutConfiguration,
            start: workoutActivity.startDate, end: workoutActivity.endDate,
            metadata: workoutActivity.metadata)
        try await carryOut(apply(.activityBegan(activity)), through: healthStore.wallClock())
    }

    public func updateActivity(uuid UUID: UUID, end endDate: Date) async throws {
        try await carryOut(apply(.activityEnded(uuid: UUID, at: endDate)), through: endDate)
    }

    /// Adds metadata to an activity. (HealthKit's Objective-C selector spells it `addMedatata`.)
    public func updateActivity(uuid UUID: UUID, adding metadata: [String: Any]) async throws {
        try MetadataCoding.validate(metadata)
        try apply(.activityMetadata(uuid: UUID, metadata))
    }

    func checkShareAuthorization(_ types: [HKObjectType]) async throws {
        try await healthStore.checkShareAuthorization(for: types)
    }

    // MARK: The shell

    /// After unlocking: awaits the journal's entries, then tells the delegate (``tell(_:through:)``).
    func carryOut(_ actions: RecordingCore.Actions, through: Date? = nil) async throws {
        try finish(actions)
        try await awaitJournal()
        tell(actions, through: through)
    }

    /// After unlocking: tells the delegate, in order, each call an input made (an event, an activity begun or
    /// ended, made up to `through`), then its zone changes.
    func tell(_ actions: RecordingCore.Actions, through: Date? = nil) {
        for call in actions.calls {
            switch call {
            case .collectedEvents: didCollectEvents()
            case .began(let uuid):
                let date = through ?? healthStore.wallClock()
                if let activity = withCore({ $0.workoutActivity(withUUID: uuid, through: date) }) {
                    didBeginActivity(activity)
                }
            case .ended(let uuid):
                let date = through ?? healthStore.wallClock()
                if let activity = withCore({ $0.workoutActivity(withUUID: uuid, through: date) }) {
                    didEndActivity(activity)
                }
            }
        }
        if !actions.zoneChanges.isEmpty { didUpdateZones(actions.zoneChanges) }
    }

    /// After unlocking: queues the delivery the core scheduled and reports a failed write. It never waits: it runs
    /// on the path of a reading, under the sensor outlet's lock, and the journal's back-pressure is the producers'
    /// to await (``backPressure``), after they have left that lock.
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

    /// Under the lock: hands batches to the journal's writer, without waiting. The writer reports back under the
    /// lock (and hands over what was held back for it, and changes the back-pressure), so nothing may wait for the
    /// writer while holding it.
    func send(_ batches: [JournalBatch], to journal: LiveJournal?) {
        guard let journal else { return }
        for batch in batches {
            let monotonic = monotonic
            let count = batch.samples.count + batch.beats.count
            journal.write(batch) { [weak self] result in
                guard let self else { return }
                let now = monotonic.now()
                withCore { core in
                    switch result {
                    case .success(let buffer):
                        let (next, pressure) = core.written(buffer: buffer, count: count)
                        if let next { send([next], to: journal) }
                        if let pressure { changePressure(to: pressure) }
                    case .failure(let error):
                        if let pressure = core.writeFailed(batch, error: error, now: now) {
                            changePressure(to: pressure)
                        }
                    }
                }
            }
        }
    }

    /// Outside the lock: returns once everything handed to the writer is written, the calling task suspended
    /// meanwhile; throws a write's failure.
    func awaitJournal() async throws {
        guard let journal = currentJournal else { return }
        await journal.waitForWrites()
        // A PostgreSQL server that does not answer is not the call's failure: the readings wait in memory and are
        // written with the next batch that reaches it (``StoreOutage``).
        if let failure = withCore({ $0.takeWriteFailure() }), !isStoreOutage(failure) { throw failure }
    }

    /// Returns once everything the builder has handed to its journal's writer is in the store; samples still
    /// buffered (younger than the flush interval) stay buffered. OpenHealthKit (tests: a crash test uses it to know
    /// what a kill may lose).
    public func waitForJournal() async throws {
        try await awaitJournal()
    }

    /// Hands every buffered sample to the writer and awaits its writing.
    func flushJournal() async throws {
        handOverJournal()
        try await awaitJournal()
    }

    /// Hands every buffered sample to the writer, without waiting.
    func handOverJournal() {
        withCore { core in
            if let batch = core.flush() { send([batch], to: core.journalWriter as? LiveJournal) }
        }
    }

    // MARK: Hooks for the live builder

    func didBeginCollection() async {}
    func didEndCollection() {}
    /// After unlocking: queues a delivery to the delegate (the live builder's).
    func queueDelivery(_ scheduled: Deliveries.Scheduled) {}
    func didCollectEvents() {}
    func didBeginActivity(_ activity: HKWorkoutActivity) {}
    func didEndActivity(_ activity: HKWorkoutActivity) {}
    /// The zone in effect changed for a type (see `BuilderZones`).
    func didUpdateZones(_ changes: [ZoneChange]) {
        guard !changes.isEmpty else { return }
        let now = monotonic.now()
        // Queued after unlocking, as a reading's delivery is (see ``finish(_:)``).
        if let delivery = withCore({ $0.zonesChanged(changes, now: now) }) { queueDelivery(delivery) }
    }
    /// The builder finished or was discarded: no producer waits for its journal any more.
    func didFinish() {
        backPressure.release()
    }
    /// The sensors to save with the finished workout (a live builder's data source's).
    func workoutSensorsToSave() -> [HKWorkoutSensor] { [] }
}
