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
/// HealthKit: HKLiveWorkoutBuilder.
public final class HKLiveWorkoutBuilder: HKWorkoutBuilder, @unchecked Sendable {
    let delegateQueue = DispatchQueue(label: "OpenHealthKit.HKLiveWorkoutBuilder.delegate")
    private let deliveries = Mutex<Deliveries>(Deliveries())

    private struct Deliveries {
        /// The types collected since the last delivery began (a handful: a list beats hashing per reading).
        var pending: [HKSampleType] = []
        /// Whether a delivery is queued.
        var scheduled = false
        /// When the last delivery was due (nanoseconds of uptime).
        var lastDue: UInt64 = 0
    }
    /// Zone updates on their way to the delegate (see `deliverZoneUpdates`).
    let zoneDeliveries = Mutex(ZoneDeliveries())
    /// Whether a delegate is set: read on every reading, without the builder's lock.
    private let hasDelegate = SharedFlag()
    private weak var session: HKWorkoutSession?
    private var flushTask: Task<Void, Never>?
    private weak var storedDelegate: HKLiveWorkoutBuilderDelegate?
    private var storedDataSource: HKLiveWorkoutDataSource?
    private var collectsEvents = true

    /// The delegate, kept under a lock of its own: the delegate queue reads it without waiting for the builder's
    /// lock, which the thread collecting readings holds most of the time.
    public weak var delegate: HKLiveWorkoutBuilderDelegate? {
        get { delegateLock.withLock { storedDelegate } }
        set {
            delegateLock.withLock { storedDelegate = newValue }
            hasDelegate.store(newValue != nil)
        }
    }
    private let delegateLock = NSLock()

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

    /// The session's running flag (nil without a session).
    private let sessionRunning: SharedFlag?

    init(session: HKWorkoutSession, healthStore: HKHealthStore, configuration: HKWorkoutConfiguration, device: HKDevice?) {
        self.session = session
        self.sessionRunning = session.running
        super.init(healthStore: healthStore, configuration: configuration, device: device)
    }

    /// Created by `HKWorkoutSession.associatedWorkoutBuilder()`; this initializer is HealthKit's on iOS 26.
    public override init(healthStore: HKHealthStore, configuration: HKWorkoutConfiguration, device: HKDevice?) {
        sessionRunning = nil
        super.init(healthStore: healthStore, configuration: configuration, device: device)
    }

    override var hasSession: Bool { locked { session != nil } }

    /// Whether readings should become samples now: collecting, and the session (if any) running. Read on every
    /// reading, so it takes no lock: both flags are atomics that the builder and the session keep current.
    var acceptsLiveData: Bool {
        guard collecting.load() else { return false }
        return sessionRunning?.load() ?? true
    }

    // MARK: Session events

    func sessionGenerated(_ event: HKWorkoutEvent) {
        guard shouldCollectWorkoutEvents, locked({ lifecycle.phase == .active }) else { return }
        let zoneChanges = try? locked {
            try journal?.record(.event(type: event.type.rawValue, start: event.dateInterval.start.storeValue,
                                       end: event.dateInterval.end.storeValue, metadata: nil))
            events.append(event)
            events.sort { $0.dateInterval.start < $1.dateInterval.start }
            return zoneState.eventsChanged(events, now: event.dateInterval.start)
        }
        didCollectEvents()
        if let zoneChanges, !zoneChanges.isEmpty { didUpdateZones(zoneChanges) }
    }

    func sessionBeganActivity(uuid: UUID, configuration: HKWorkoutConfiguration, date: Date, metadata: [String: Any]?) {
        let record = ActivityRecord(uuid: uuid, configuration: configuration.copied(), start: date, end: nil, metadata: metadata)
        do {
            try locked { try addActivity(record) }
            didBeginActivity(makeActivity(record, through: date))
        } catch {
            // The session keeps its own account of activities; the builder refuses only when it has finished.
        }
        dataSource?.activityDidChange(to: configuration)
    }

    func sessionEndedActivity(uuid: UUID, date: Date) {
        if let ended = try? locked({ try endActivity(uuid, at: date) }) { didEndActivity(ended) }
        dataSource?.activityDidChange(to: configuration)
    }

    func sessionDidEnd() {
        dataSource?.stopSensors()
    }

    // MARK: Hooks

    override func didBeginCollection() {
        // The session may have started before the journal existed: record where it stands.
        if let session, let journal = currentJournal, session.state != .notStarted {
            try? journal.record(.sessionState(from: HKWorkoutSessionState.notStarted.rawValue, to: session.state.rawValue,
                                              date: (session.startDate ?? healthStore.wallClock()).storeValue))
        }
        startFlushing()
        dataSource?.startSensors()
    }

    /// Checks the journal four times a second, so no sample waits in memory for a second. This timer runs on the
    /// machine's clock, not the store's pacing clock: it is about real durability, and a virtual clock that returns
    /// from every sleep at once (an instant replay, a test) would turn it into a busy loop.
    func startFlushing() {
        let clock = ContinuousClock()
        let store = healthStore
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await clock.sleep(for: .milliseconds(250))
                guard let journal = self?.currentJournal else { return }
                journal.flushIfDue()
                self?.checkZones(at: store.wallClock())
            }
        }
        locked { flushTask = task }
    }

    override func didEndCollection() {
        try? locked { try journal?.flush() }
    }

    override func didFinish() {
        locked { flushTask }?.cancel()
        dataSource?.stopSensors()
        finishZoneUpdates()
    }

    override func didCollect(_ samples: [CollectedSample]) {
        guard hasDelegate.load() else { return }
        // Coalesce: the types collected since the last delivery wait in `pending`; the first reading after a
        // delivery schedules the next one. A reading arriving a millisecond or more after the last delivery was due
        // is delivered at once; under a flood, deliveries are a millisecond apart, so the delegate is not called
        // (nor its queue woken) once per reading.
        let delay = deliveries.withLock { state -> UInt64? in
            for sample in samples where !state.pending.contains(where: { $0 === sample.type || $0 == sample.type }) {
                state.pending.append(sample.type)
            }
            guard !state.scheduled else { return nil }
            state.scheduled = true
            // Spaced from when the previous delivery was due, not from when it ran: a delegate queue that woke late
            // once does not delay the readings after it.
            let now = DispatchTime.now().uptimeNanoseconds
            let due = max(now, state.lastDue &+ Self.deliverySpacing)
            state.lastDue = due
            return due - now
        }
        guard let delay else { return }
        if delay == 0 {
            delegateQueue.async { [self] in deliverCollected() }
        } else {
            delegateQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(delay))) { [self] in deliverCollected() }
        }
    }

    /// The shortest time between two `didCollectDataOf` calls, in nanoseconds.
    static let deliverySpacing: UInt64 = 1_000_000

    /// Calls the delegate with the types collected since the last call. Runs on the delegate queue.
    private func deliverCollected() {
        let collected = deliveries.withLock { state -> [HKSampleType] in
            state.scheduled = false
            defer { state.pending.removeAll(keepingCapacity: true) }
            return state.pending
        }
        if !collected.isEmpty { delegate?.workoutBuilder(self, didCollectDataOf: Set(collected)) }
    }

    override func didCollectEvents() {
        closeZoneBatch()
        delegateQueue.async { [self] in delegate?.workoutBuilderDidCollectEvent(self) }
    }

    override func didBeginActivity(_ activity: HKWorkoutActivity) {
        closeZoneBatch()
        delegateQueue.async { [self] in delegate?.workoutBuilder(self, didBegin: activity) }
    }

    override func didEndActivity(_ activity: HKWorkoutActivity) {
        closeZoneBatch()
        delegateQueue.async { [self] in delegate?.workoutBuilder(self, didEnd: activity) }
    }

    override func didUpdateZones(_ changes: [ZoneChange]) { deliverZoneUpdates(changes) }

    /// Waits until every delegate call scheduled so far has been delivered. OpenHealthKit (tests).
    /// Collected types waiting for their spaced delivery are delivered first.
    public func waitForDelegateCalls() async {
        await withCheckedContinuation { continuation in
            delegateQueue.async { [self] in
                if deliveries.withLock({ !$0.pending.isEmpty }) { deliverCollected() }
                continuation.resume()
            }
        }
    }
}
