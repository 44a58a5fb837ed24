import FitnessSensors
import Foundation
import Synchronization

/// Hears what a live builder collects. Calls arrive in order on the builder's serial queue; `didCollectDataOf`
/// is coalesced, so a burst of readings makes one call naming every type collected.
///
/// HealthKit: HKLiveWorkoutBuilderDelegate (the activity methods are optional there; here they have defaults).
public protocol HKLiveWorkoutBuilderDelegate: AnyObject {
    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>)
    func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder)
    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didBegin workoutActivity: HKWorkoutActivity)
    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didEnd workoutActivity: HKWorkoutActivity)
    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didUpdateWorkoutZone zoneUpdate: HKLiveWorkoutZoneUpdate)
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
/// It is the shell of its ``RecordingCore``: a reading takes the builder's one lock, the core answers with actions,
/// and the builder carries them out — a journal batch handed to the writer, a delivery queued for the delegate —
/// without waiting while it holds the lock.
///
/// HealthKit: HKLiveWorkoutBuilder.
public final class HKLiveWorkoutBuilder: HKWorkoutBuilder, @unchecked Sendable {
    let delegateQueue = DispatchQueue(label: "OpenHealthKit.HKLiveWorkoutBuilder.delegate")
    private weak var session: HKWorkoutSession?
    private var flushTask: Task<Void, Never>?
    private weak var storedDelegate: HKLiveWorkoutBuilderDelegate?
    private var storedDataSource: HKLiveWorkoutDataSource?
    private var collectsEvents = true

    /// The delegate, kept under a lock of its own: the delegate queue reads it without waiting for the builder's
    /// lock.
    public weak var delegate: HKLiveWorkoutBuilderDelegate? {
        get { delegateLock.withLock { storedDelegate } }
        set {
            delegateLock.withLock { storedDelegate = newValue }
            locked { core.hasDelegate = newValue != nil }
        }
    }
    private let delegateLock = NSLock()
    /// The last set of types `didCollectDataOf` named, by their codes: a live recording delivers the same few types
    /// time after time, so the set is built once rather than allocated per delivery. Touched only on the delegate
    /// queue.
    private var lastCollected: (codes: [UInt16], types: Set<HKSampleType>) = ([], [])

    /// The session driving this builder.
    public var workoutSession: HKWorkoutSession? { locked { session } }

    /// Where live samples come from. Setting it connects the data source to this builder.
    public var dataSource: HKLiveWorkoutDataSource? {
        get { locked { storedDataSource } }
        set {
            let old = locked { () -> HKLiveWorkoutDataSource? in
                let old = storedDataSource
                storedDataSource = newValue
                return old
            }
            if old !== newValue { old?.detach() }
            newValue?.attach(to: self)
        }
    }

    /// Whether the session's pause and resume events are added to the workout automatically (default true).
    public var shouldCollectWorkoutEvents: Bool {
        get { locked { collectsEvents } }
        set { locked { collectsEvents = newValue } }
    }

    /// The running time now: excludes pauses.
    public var elapsedTime: TimeInterval { elapsedTime(at: healthStore.wallClock()) }

    /// The activity in progress, if any.
    public var currentWorkoutActivity: HKWorkoutActivity? {
        locked {
            activities.last(where: { $0.end == nil }).map { makeActivity($0, through: healthStore.wallClock()) }
        }
    }

    init(session: HKWorkoutSession, healthStore: HKHealthStore, configuration: HKWorkoutConfiguration, device: HKDevice?) {
        self.session = session
        super.init(healthStore: healthStore, configuration: configuration, device: device)
        core.sessionRunning = session.state == .running
    }

    /// Created by `HKWorkoutSession.associatedWorkoutBuilder()`; this initializer is HealthKit's on iOS 26.
    public override init(healthStore: HKHealthStore, configuration: HKWorkoutConfiguration, device: HKDevice?) {
        super.init(healthStore: healthStore, configuration: configuration, device: device)
    }

    override var hasSession: Bool { locked { session != nil } }

    // MARK: The data source's inputs

    /// Takes over a data source's settings when it is attached.
    func adoptCollection(_ settings: CollectionSettings) {
        locked { core.adopt(settings) }
    }

    /// Changes what is collected, under the lock.
    func updateCollection<T>(_ change: (inout CollectionSettings) -> T) -> T {
        locked { core.updateSettings(change) }
    }

    /// What is collected now.
    var collectionSettings: CollectionSettings { locked { core.settings } }

    /// A channel for a sensor, ranked after those before it.
    func addChannel(identifier: String, device: HKDevice) -> Int {
        let code = DeviceCodes.code(for: device)
        return locked { core.addChannel(identifier: identifier, deviceCode: code) }
    }

    /// A channel's device changed (its Device Information became known when it connected).
    func updateChannelDevice(_ channel: Int, to device: HKDevice) {
        let code = DeviceCodes.code(for: device)
        locked { core.updateDevice(of: channel, deviceCode: code) }
    }

    /// One event from a sensor: the hot path of a live workout. One acquisition of the builder's lock.
    func received(_ event: SensorEvent, channel: Int) {
        switch event.kind {
        case .reading(let value):
            let now = monotonic.now()
            let time = event.timestamp.storeValue
            let actions = locked { carryOut(core.received(value, from: channel, at: time, now: now)) }
            do { try finish(actions) } catch {
                HKLiveWorkoutDataSource.logger.error("Could not record samples: \(error)")
            }
        case .connection(let state):
            locked { core.connectionChanged(state, channel: channel) }
        }
    }

    // MARK: Session events

    /// The session changed state: journaled, and readings are taken only while it runs. The session's calls are
    /// synchronous (HealthKit's): its entries are handed to the journal's writer in order, not waited for.
    func sessionStateChanged(from: HKWorkoutSessionState, to: HKWorkoutSessionState, date: Date) {
        try? locked {
            core.sessionRunning = to == .running
            try queueEntry(.sessionState(from: from.rawValue, to: to.rawValue, date: date.storeValue))
        }
    }

    func sessionGenerated(_ event: HKWorkoutEvent) {
        guard shouldCollectWorkoutEvents, locked({ lifecycle.phase == .active }) else { return }
        let zoneChanges = try? locked {
            try queueEntry(.event(type: event.type.rawValue, start: event.dateInterval.start.storeValue,
                                  end: event.dateInterval.end.storeValue, metadata: nil))
            events.append(event)
            events.sort { $0.dateInterval.start < $1.dateInterval.start }
            return core.zones.eventsChanged(events, now: event.dateInterval.start)
        }
        didCollectEvents()
        if let zoneChanges, !zoneChanges.isEmpty { didUpdateZones(zoneChanges) }
    }

    func sessionBeganActivity(uuid: UUID, configuration: HKWorkoutConfiguration, date: Date, metadata: [String: Any]?) {
        let record = ActivityRecord(uuid: uuid, configuration: configuration.copied(), start: date, end: nil, metadata: metadata)
        do {
            try locked {
                try addActivity(record)
                core.activityChanged(to: configuration.activityType)
            }
            didBeginActivity(makeActivity(record, through: date))
        } catch {
            // The session keeps its own account of activities; the builder refuses only when it has finished.
            locked { core.activityChanged(to: configuration.activityType) }
        }
    }

    func sessionEndedActivity(uuid: UUID, date: Date) {
        let ended = try? locked { () -> HKWorkoutActivity in
            defer { core.activityChanged(to: configuration.activityType) }
            return try endActivity(uuid, at: date)
        }
        if let ended { didEndActivity(ended) }
    }

    func sessionDidEnd() {
        dataSource?.stopSensors()
    }

    // MARK: Hooks

    override func didBeginCollection() {
        // The session may have started before the journal existed: record where it stands.
        if let session, session.state != .notStarted {
            try? locked {
                core.sessionRunning = session.state == .running
                try queueEntry(.sessionState(from: HKWorkoutSessionState.notStarted.rawValue, to: session.state.rawValue,
                                             date: (session.startDate ?? healthStore.wallClock()).storeValue))
            }
        }
        startFlushing()
        dataSource?.startSensors()
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
                let (actions, stillCollecting) = locked { () -> (RecordingCore.Actions, Bool) in
                    (carryOut(core.tick(now: now, time: time)), journal != nil && !core.journal.closed)
                }
                if let delivery = actions.delivery { queueDelivery(delivery) }
                guard stillCollecting else { return }
            }
        }
        locked { flushTask = task }
    }

    /// How often the flush timer ticks.
    static let flushPeriod: Duration = .milliseconds(250)

    override func didEndCollection() {
        handOverJournal()
    }

    override func workoutSensorsToSave() -> [HKWorkoutSensor] {
        dataSource?.workoutSensors ?? []
    }

    override func didFinish() {
        locked { flushTask }?.cancel()
        dataSource?.stopSensors()
        finishZoneUpdates()
    }

    /// After unlocking (see ``HKWorkoutBuilder/finish(_:)``): runs a scheduled delivery on the delegate queue when it
    /// is due.
    override func queueDelivery(_ scheduled: Deliveries.Scheduled) {
        monotonic.run(at: scheduled.deadline, on: delegateQueue) { [self] in
            deliver(locked { core.deliveries.take(scheduled: scheduled.ticket) })
        }
    }

    /// Calls the delegate (and the `zoneUpdates` streams) with what was taken from the deliveries. Runs on the
    /// delegate queue.
    private func deliver(_ due: Deliveries.Due) {
        guard !due.isEmpty else { return }
        let delegate = delegate
        if !due.types.isEmpty, let delegate {
            if due.types != lastCollected.codes { lastCollected = (due.types, Set(due.types.map(HKQuantityType.forCode))) }
            delegate.workoutBuilder(self, didCollectDataOf: lastCollected.types)
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
        locked {
            let due = core.deliveries.takeAll()
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
