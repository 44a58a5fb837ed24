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
    /// What waits for the delegate queue: collected types and zone changes (see ``Deliveries``).
    let deliveries = Mutex(Deliveries())
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

    override func didCollect(_ samples: [CollectedSample], zoneChanges: [ZoneChange]) {
        let notesTypes = hasDelegate.load()
        guard notesTypes || !zoneChanges.isEmpty else { return }
        let scheduled = deliveries.withLock { state -> Deliveries.Scheduled? in
            if notesTypes {
                for sample in samples { state.notePending(sample.typeCode) }
            }
            state.zoneChanges.append(contentsOf: zoneChanges)
            return state.schedule()
        }
        if let scheduled { queueDelivery(scheduled) }
    }

    override func didUpdateZones(_ changes: [ZoneChange]) { didCollect([], zoneChanges: changes) }

    private func queueDelivery(_ scheduled: Deliveries.Scheduled) {
        let delivery: @Sendable () -> Void = { [self] in deliver(deliveries.withLock { $0.take(scheduled: scheduled.ticket) }) }
        if scheduled.delay == 0 {
            delegateQueue.async(execute: delivery)
        } else {
            delegateQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(scheduled.delay)), execute: delivery)
        }
    }

    /// Calls the delegate (and the `zoneUpdates` streams) with what was taken from `deliveries`. Runs on the
    /// delegate queue.
    private func deliver(_ due: Deliveries.Due) {
        guard !due.types.isEmpty || !due.zoneChanges.isEmpty else { return }
        let delegate = delegate
        if !due.types.isEmpty { delegate?.workoutBuilder(self, didCollectDataOf: Set(due.types.map(HKQuantityType.forCode))) }
        for change in due.zoneChanges {
            let update = HKLiveWorkoutZoneUpdate(change)
            delegate?.workoutBuilder(self, didUpdateWorkoutZone: update)
            for listener in due.listeners { listener.yield(update) }
        }
    }

    /// Queues a delegate call of another kind, after everything collected before it.
    func queueDelegateCall(_ call: @escaping @Sendable (HKLiveWorkoutBuilder, HKLiveWorkoutBuilderDelegate?) -> Void) {
        let due = deliveries.withLock { $0.takeAll() }
        delegateQueue.async { [self] in
            deliver(due)
            call(self, delegate)
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

/// What the thread collecting readings hands to the delegate queue. Readings come far faster than a delegate
/// needs to hear of them, so the types collected and the zone changes wait here and go in one delivery: one wake
/// of the delegate queue, and one `didCollectDataOf` naming every type, for a burst.
///
/// The first item after a delivery schedules the next one: at once if the last delivery was due a millisecond or
/// more ago, else a millisecond after it (spaced from when it was due, not from when it ran, so a delegate queue
/// that woke late once does not delay the readings after it). A delegate call of another kind (an event, an
/// activity) takes what waits when it is queued and delivers it first, and the scheduled delivery's ticket is
/// void from then on: items collected after that call are delivered after it, never before.
struct Deliveries {
    /// The codes of the types collected since the last delivery (a handful: a list beats hashing per reading).
    var types: [UInt16] = []
    var zoneChanges: [ZoneChange] = []
    /// The ticket of the delivery queued, if any.
    var scheduledTicket: UInt64?
    var lastTicket: UInt64 = 0
    /// When the last delivery was due (nanoseconds of uptime).
    var lastDue: UInt64 = 0
    /// The shortest time between two deliveries, in nanoseconds (tests lengthen it).
    var spacing: UInt64 = 1_000_000
    /// The subscribers to `zoneUpdates` (added under the builder's lock too, so none joins after it finished).
    var listeners: [UUID: AsyncStream<HKLiveWorkoutZoneUpdate>.Continuation] = [:]

    struct Scheduled {
        var ticket: UInt64
        /// Nanoseconds from now.
        var delay: UInt64
    }

    struct Due {
        var types: [UInt16] = []
        var zoneChanges: [ZoneChange] = []
        var listeners: [AsyncStream<HKLiveWorkoutZoneUpdate>.Continuation] = []
    }

    /// Adds a type's code unless it is there.
    mutating func notePending(_ code: UInt16) {
        if !types.contains(code) { types.append(code) }
    }

    /// Schedules a delivery unless one is: its ticket and delay. Reads the clock only then.
    mutating func schedule() -> Scheduled? {
        guard scheduledTicket == nil, !types.isEmpty || !zoneChanges.isEmpty else { return nil }
        let now = DispatchTime.now().uptimeNanoseconds
        lastTicket &+= 1
        scheduledTicket = lastTicket
        let due = max(now, lastDue &+ spacing)
        lastDue = due
        return Scheduled(ticket: lastTicket, delay: due - now)
    }

    /// What a scheduled delivery delivers: everything waiting, or nothing if a call of another kind took it.
    mutating func take(scheduled ticket: UInt64) -> Due {
        guard scheduledTicket == ticket else { return Due() }
        return takeAll()
    }

    /// Everything waiting; the scheduled delivery, if any, is void.
    mutating func takeAll() -> Due {
        scheduledTicket = nil
        guard !types.isEmpty || !zoneChanges.isEmpty else { return Due() }
        defer {
            types.removeAll(keepingCapacity: true)
            zoneChanges.removeAll(keepingCapacity: true)
        }
        return Due(types: types, zoneChanges: zoneChanges, listeners: zoneChanges.isEmpty ? [] : Array(listeners.values))
    }
}
