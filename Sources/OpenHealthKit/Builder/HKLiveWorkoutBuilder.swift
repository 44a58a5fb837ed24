import FitnessSensors
import Foundation
import HealthKitModel
import Synchronization
import WorkoutEngine

/// Hears what a live builder collects. Calls arrive in order on the builder's serial queue; `didCollectDataOf`
/// is coalesced, so a burst of readings makes one call naming every type collected.
///
/// HealthKit: HKLiveWorkoutBuilderDelegate (the activity methods are optional there; here they have defaults).
public protocol HKLiveWorkoutBuilderDelegate: AnyObject {
    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>)
    func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder)
    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didBegin workoutActivity: HKWorkoutActivity)
    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didEnd workoutActivity: HKWorkoutActivity)
    func workoutBuilder(
        _ workoutBuilder: HKLiveWorkoutBuilder, didUpdateWorkoutZone zoneUpdate: HKLiveWorkoutZoneUpdate)
}

extension HKLiveWorkoutBuilderDelegate {
    public func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didBegin workoutActivity: HKWorkoutActivity) {}
    public func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didEnd workoutActivity: HKWorkoutActivity) {}
}

/// A workout builder driven by a workout session and fed by a live data source.
///
/// Its session's pause and resume become workout events (while `shouldCollectWorkoutEvents`), the session's
/// activities become the workout's, and its data source's readings become samples — none while the session is
/// paused. Everything is journaled within a second (see ``HKWorkoutBuilder``).
///
/// It is the shell of its `RecordingCore`: a reading takes the builder's one lock, the core answers with actions,
/// and the builder carries them out — a journal batch handed to the writer, a delivery queued for the delegate —
/// without waiting while it holds the lock. A reading never waits for the journal's writer at all: it arrives under
/// its sensor outlet's lock, on whatever thread the sensor runs (one of Swift's cooperative threads for a replay).
/// When the writer falls behind, the builder raises its back-pressure and the sensors that can wait await it after
/// sending (`SensorOutlet.waitForDemand()` in `FitnessSensors`).
///
/// HealthKit: HKLiveWorkoutBuilder.
public final class HKLiveWorkoutBuilder: HKWorkoutBuilder, @unchecked Sendable {
    let delegateQueue = DispatchQueue(label: "OpenHealthKit.HKLiveWorkoutBuilder.delegate")
    /// What links the builder to its session, data source and flush timer, under a lock of its own (never taken
    /// while the core's is held, nor the other way round).
    private let links: Mutex<Links>
    /// The delegate, under a lock of its own: the delegate queue reads it without waiting for the core's lock.
    private let delegateLink = Mutex<DelegateLink>(DelegateLink())
    /// The last set of types `didCollectDataOf` named, by their codes: a live recording delivers the same few types
    /// time after time, so the set is built once rather than allocated per delivery. Touched only on the delegate
    /// queue (its lock is never contended).
    private let lastCollected = Mutex<(codes: [UInt16], types: Set<HKSampleType>)>(([], []))

    private struct Links {
        weak var session: HKWorkoutSession?
        var dataSource: HKLiveWorkoutDataSource?
        var flushTask: Task<Void, Never>?
        var collectsEvents = true
    }

    private struct DelegateLink: Sendable {
        /// The delegate is not `Sendable` (HealthKit's protocol is not): it is only ever called on the delegate queue.
        nonisolated(unsafe) weak var delegate: HKLiveWorkoutBuilderDelegate?
    }

    /// The delegate.
    public weak var delegate: HKLiveWorkoutBuilderDelegate? {
        get { delegateLink.withLock { $0 }.delegate }
        set {
            let link = DelegateLink(delegate: newValue)
            delegateLink.withLock { $0 = link }
            withCore { $0.hasDelegate = newValue != nil }
        }
    }

    /// The session driving this builder.
    public var workoutSession: HKWorkoutSession? { links.withLock { $0.session } }

    /// Where live samples come from. Setting it connects the data source to this builder.
    public var dataSource: HKLiveWorkoutDataSource? {
        get { links.withLock { $0.dataSource } }
        set {
            let old = links.withLock { links in
                defer { links.dataSource = newValue }
                return links.dataSource
            }
            if old !== newValue { old?.detach() }
            newValue?.attach(to: self)
        }
    }

    /// Whether the session's pause and resume events are added to the workout automatically (default true).
    public var shouldCollectWorkoutEvents: Bool {
        get { links.withLock { $0.collectsEvents } }
        set { links.withLock { $0.collectsEvents = newValue } }
    }

    /// The running time now: excludes pauses.
    public var elapsedTime: TimeInterval { elapsedTime(at: healthStore.wallClock()) }

    /// The activity in progress, if any.
    public var currentWorkoutActivity: HKWorkoutActivity? {
        let now = healthStore.wallClock()
        return withCore { $0.currentActivity(through: now) }
    }

    init(
        session: HKWorkoutSession, healthStore: HKHealthStore, configuration: HKWorkoutConfiguration, device: HKDevice?
    ) {
        links = Mutex(Links(session: session))
        let clocks = healthStore.clocks
        super.init(
            healthStore: healthStore, configuration: configuration, device: device,
            core: RecordingCore(
                activity: configuration.activityType, deliverySpacing: clocks.deliverySpacing,
                source: healthStore.sourceRevision.source, sessionRunning: session.state == .running))
    }

    /// A recovered session's builder, over the core its journal was folded into.
    init(
        recovering session: HKWorkoutSession, healthStore: HKHealthStore, configuration: HKWorkoutConfiguration,
        device: HKDevice?, core: RecordingCore
    ) {
        links = Mutex(Links(session: session))
        super.init(healthStore: healthStore, configuration: configuration, device: device, core: core)
    }

    /// Created by `HKWorkoutSession.associatedWorkoutBuilder()`; this initializer is HealthKit's on iOS 26.
    public override init(healthStore: HKHealthStore, configuration: HKWorkoutConfiguration, device: HKDevice?) {
        links = Mutex(Links())
        super.init(healthStore: healthStore, configuration: configuration, device: device)
    }

    override var hasSession: Bool { links.withLock { $0.session != nil } }

    // MARK: The data source's inputs

    /// Takes over a data source's settings when it is attached.
    func adoptCollection(_ settings: CollectionSettings) {
        withCore { $0.adopt(settings) }
    }

    /// Changes what is collected, under the lock.
    func updateCollection<T>(_ change: (inout CollectionSettings) -> T) -> T {
        withCore { $0.updateSettings(change) }
    }

    /// What is collected now.
    var collectionSettings: CollectionSettings { withCore { $0.settings } }

    /// A channel for a sensor, ranked after those before it.
    func addChannel(identifier: String, device: HKDevice) -> Int {
        let code = DeviceCodes.code(for: device)
        return withCore { $0.addChannel(identifier: identifier, deviceCode: code) }
    }

    /// A channel's device changed (its Device Information became known when it connected).
    func updateChannelDevice(_ channel: Int, to device: HKDevice) {
        let code = DeviceCodes.code(for: device)
        withCore { $0.updateDevice(of: channel, deviceCode: code) }
    }

    /// One event from a sensor: the hot path of a live workout. One acquisition of the core's lock.
    func received(_ event: SensorEvent, channel: Int) {
        let input: RecordingInput
        switch event.kind {
        case .reading(let value): input = .reading(value, channel: channel, time: event.timestamp.storeValue)
        case .connection(let state): input = .connection(state, channel: channel)
        }
        do { try finish(apply(input)) } catch {
            HKLiveWorkoutDataSource.logger.error("Could not record samples: \(error)")
        }
    }

    // MARK: Session events

    /// The session changed state: journaled, and readings are taken only while it runs. The session's calls are
    /// synchronous (HealthKit's), so its entries are handed to the journal's writer in order, not waited for; an
    /// `async` call of the builder's (or ``HKWorkoutBuilder/waitForJournal()``) after it finds them written.
    func sessionStateChanged(from: HKWorkoutSessionState, to: HKWorkoutSessionState, date: Date) {
        _ = try? apply(.sessionState(from: from, to: to, date: date))
    }

    func sessionGenerated(_ event: HKWorkoutEvent) {
        guard shouldCollectWorkoutEvents, phase == .active else { return }
        guard let actions = try? apply(.events([event], checkedAt: event.dateInterval.start)) else { return }
        carryOutWithoutWaiting(actions)
    }

    /// The session's synchronous calls carry out their actions without waiting for the journal's writer.
    private func carryOutWithoutWaiting(_ actions: RecordingCore.Actions, through: Date? = nil) {
        try? finish(actions)
        tell(actions, through: through)
    }

    func sessionBeganActivity(uuid: UUID, configuration: HKWorkoutConfiguration, date: Date, metadata: [String: Any]?) {
        let activity = RecordingCore.Activity(
            uuid: uuid, configuration: configuration.copied(), start: date, end: nil,
            metadata: metadata)
        let actions = try? withCore { core in
            // The session keeps its own account of activities; the builder refuses only when it has finished. The
            // plan follows the new activity either way (in `apply`).
            let actions = try core.apply(.activityBegan(activity), now: monotonic.now())
            handOver(actions, of: core)
            return actions
        }
        if let actions { carryOutWithoutWaiting(actions, through: date) }
    }

    func sessionEndedActivity(uuid: UUID, date: Date) {
        let actions = try? withCore { core in
            let actions = try core.apply(.activityEnded(uuid: uuid, at: date), now: monotonic.now())
            handOver(actions, of: core)
            return actions
        }
        if let actions { carryOutWithoutWaiting(actions, through: date) }
    }

    func sessionDidEnd() {
        dataSource?.stopSensors()
    }

    // MARK: Hooks

    override func didBeginCollection() async {
        // The session may have started before the journal existed: record where it stands.
        if let session = workoutSession, session.state != .notStarted {
            sessionStateChanged(
                from: .notStarted, to: session.state, date: session.startDate ?? healthStore.wallClock())
        }
        startFlushing()
        await dataSource?.startSensors()
    }

    /// Checks the journal four times a second on the store's monotonic clock (``LiveClocks``), so no sample waits
    /// in memory for a second, and checks whether the zone in effect has gone stale. A test moves that clock itself.
    func startFlushing() {
        let monotonic = monotonic
        let task = Task { [weak self] in
            var next = monotonic.now()
            while !Task.isCancelled {
                next += Self.flushPeriod
                do { try await monotonic.sleep(next) } catch { return }
                guard let self else { return }
                let now = monotonic.now()
                let time = self.healthStore.wallClock().storeValue
                guard let actions = try? apply(.tick(time: time), now: now) else { return }
                if let delivery = actions.delivery { queueDelivery(delivery) }
                guard withCore({ $0.isJournalOpen }) else { return }
            }
        }
        links.withLock { $0.flushTask = task }
    }

    /// How often the flush timer ticks.
    static let flushPeriod: Duration = .milliseconds(250)

    /// Hands everything buffered to the writer; `endCollection` awaits it.
    override func didEndCollection() {
        handOverJournal()
    }

    override func workoutSensorsToSave() -> [HKWorkoutSensor] {
        dataSource?.workoutSensors ?? []
    }

    override func didFinish() {
        super.didFinish()
        links.withLock { $0.flushTask }?.cancel()
        dataSource?.stopSensors()
        finishZoneUpdates()
    }

    /// After unlocking (see ``HKWorkoutBuilder/finish(_:)``): runs a scheduled delivery on the delegate queue when it
    /// is due.
    override func queueDelivery(_ scheduled: Deliveries.Scheduled) {
        monotonic.run(at: scheduled.deadline, on: delegateQueue) { [self] in
            deliver(withCore { $0.takeDelivery(scheduled.ticket) })
        }
    }

    /// Calls the delegate (and the `zoneUpdates` streams) with what was taken from the deliveries. Runs on the
    /// delegate queue.
    private func deliver(_ due: Deliveries.Due) {
        guard !due.isEmpty else { return }
        let delegate = delegate
        if !due.types.isEmpty, let delegate {
            let types = lastCollected.withLock { last in
                if due.types != last.codes { last = (due.types, Set(due.types.map(HKQuantityType.forCode))) }
                return last.types
            }
            delegate.workoutBuilder(self, didCollectDataOf: types)
        }
        for change in due.zoneChanges {
            let update = HKLiveWorkoutZoneUpdate(change)
            delegate?.workoutBuilder(self, didUpdateWorkoutZone: update)
            for listener in due.listeners { listener.yield(update) }
        }
    }

    /// Queues a delegate call of another kind, after everything collected before it.
    /// Queued under the lock, so that a delivery scheduled after it (by a reading that takes the lock later) runs
    /// after it.
    func queueDelegateCall(_ call: @escaping @Sendable (HKLiveWorkoutBuilder, HKLiveWorkoutBuilderDelegate?) -> Void) {
        withCore { core in
            let due = core.takeAllDeliveries()
            delegateQueue.async { [self] in
                deliver(due)
                call(self, delegate)
            }
        }
    }

    override func didCollectEvents() {
        queueDelegateCall { builder, delegate in delegate?.workoutBuilderDidCollectEvent(builder) }
    }

    override func didBeginActivity(_ activity: HKWorkoutActivity) {
        queueDelegateCall { builder, delegate in delegate?.workoutBuilder(builder, didBegin: activity) }
    }

    override func didEndActivity(_ activity: HKWorkoutActivity) {
        queueDelegateCall { builder, delegate in delegate?.workoutBuilder(builder, didEnd: activity) }
    }

    /// Waits until every delegate call scheduled so far has been delivered. OpenHealthKit (tests).
    /// Collected types waiting for their spaced delivery are delivered first.
    public func waitForDelegateCalls() async {
        await withCheckedContinuation { continuation in
            queueDelegateCall { _, _ in continuation.resume() }
        }
    }
}
