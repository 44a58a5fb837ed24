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
        var pending: Set<HKSampleType>?
        /// How many collections arrived since the last delivery began.
        var arrivals = 0
    }
    private weak var session: HKWorkoutSession?
    private var flushTask: Task<Void, Never>?
    private weak var storedDelegate: HKLiveWorkoutBuilderDelegate?
    private var storedDataSource: HKLiveWorkoutDataSource?
    private var collectsEvents = true

    public weak var delegate: HKLiveWorkoutBuilderDelegate? {
        get { locked { storedDelegate } }
        set { locked { storedDelegate = newValue } }
    }

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
    }

    /// Created by `HKWorkoutSession.associatedWorkoutBuilder()`; this initializer is HealthKit's on iOS 26.
    public override init(healthStore: HKHealthStore, configuration: HKWorkoutConfiguration, device: HKDevice?) {
        super.init(healthStore: healthStore, configuration: configuration, device: device)
    }

    override var hasSession: Bool { locked { session != nil } }

    /// Whether readings should become samples now: collecting, and the session (if any) running.
    var acceptsLiveData: Bool {
        locked {
            guard lifecycle.phase == .active else { return false }
            guard let session else { return true }
            return session.state == .running
        }
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
                try? journal.flushIfDue()
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
        guard delegate != nil else { return }
        // Coalesce: `pending` is non-nil from the moment a delivery is scheduled until a delivery finds nothing new;
        // readings arriving meanwhile only add their types. A lone reading is delivered at once; under a flood
        // (three readings or more arrive while the delegate runs) deliveries are spaced a millisecond apart, so the
        // delegate is not called once per reading.
        let schedule = deliveries.withLock { state -> Bool in
            state.arrivals += 1
            guard state.pending != nil else {
                state.pending = Set(samples.map { $0.type as HKSampleType })
                return true
            }
            for sample in samples where !state.pending!.contains(sample.type) { state.pending!.insert(sample.type) }
            return false
        }
        if schedule { scheduleDelivery(after: nil) }
    }

    private func scheduleDelivery(after delay: DispatchTimeInterval?) {
        let deliver: @Sendable () -> Void = { [self] in
            let collected = deliveries.withLock { state -> Set<HKSampleType> in
                defer { state.pending = []; state.arrivals = 0 }
                return state.pending ?? []
            }
            if !collected.isEmpty { delegate?.workoutBuilder(self, didCollectDataOf: collected) }
            let next = deliveries.withLock { state -> DispatchTimeInterval?? in
                if state.pending?.isEmpty ?? true {
                    state.pending = nil
                    return .none
                }
                // Many readings arrived while the delegate ran: a flood; wait a millisecond for the next delivery.
                return .some(state.arrivals >= 3 ? .milliseconds(1) : nil)
            }
            if case .some(let delay) = next { scheduleDelivery(after: delay) }
        }
        if let delay {
            delegateQueue.asyncAfter(deadline: .now() + delay, execute: deliver)
        } else {
            delegateQueue.async(execute: deliver)
        }
    }

    override func didCollectEvents() {
        delegateQueue.async { [self] in delegate?.workoutBuilderDidCollectEvent(self) }
    }

    override func didBeginActivity(_ activity: HKWorkoutActivity) {
        delegateQueue.async { [self] in delegate?.workoutBuilder(self, didBegin: activity) }
    }

    override func didEndActivity(_ activity: HKWorkoutActivity) {
        delegateQueue.async { [self] in delegate?.workoutBuilder(self, didEnd: activity) }
    }

    override func didUpdateZones(_ changes: [ZoneChange]) { deliverZoneUpdates(changes) }

    /// Waits until every delegate call scheduled so far has been delivered. OpenHealthKit (tests).
    public func waitForDelegateCalls() async {
        await withCheckedContinuation { continuation in delegateQueue.async { continuation.resume() } }
    }
}
