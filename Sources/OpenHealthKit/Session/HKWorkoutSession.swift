import Foundation
import HealthKitModel
import Logging
import Synchronization
import WorkoutEngine

/// A live workout: the state of the person's exercise, its activities (legs of a triathlon, intervals), and the
/// builder that records it.
///
/// State changes follow HealthKit's table (``HKWorkoutSessionState``); a call the table does not allow — pausing a
/// session that is not running, say — is ignored and logged, not an error. Every change is told to the delegate,
/// in order, on the session's serial queue: state changes, a failure before the `.ended` it causes, the pause and
/// resume events the session generates, activities begun and ended. `state` itself changes at once, before the
/// delegate hears of it. Only one session of a store runs at a time: starting another makes the first fail with
/// `errorAnotherWorkoutSessionStarted`.
///
/// A primary session can be mirrored to a companion (another store object on the same store file, in this process
/// or another): see `startMirroringToCompanionDevice()` and `HKHealthStore.workoutSessionMirroringStartHandler`.
/// A mirrored session (`type == .mirrored`) follows the primary's state and events; its `pause()`, `resume()`,
/// `stopActivity(with:)` and `end()` ask the primary to act.
///
/// HealthKit: HKWorkoutSession.
public final class HKWorkoutSession: NSObject, Sendable {
    static let logger = Logger(label: "OpenHealthKit.HKWorkoutSession")

    let healthStore: HKHealthStore
    let sessionType: HKWorkoutSessionType
    let configuration: HKWorkoutConfiguration
    private let delegateQueue = DispatchQueue(label: "OpenHealthKit.HKWorkoutSession.delegate")
    /// Everything that changes, under one lock. Nothing waits or calls out while it is held.
    private let guarded: Mutex<State>

    struct State: Sendable {
        var machine = SessionStateMachine()
        /// HealthKit's delegate protocol is not `Sendable`: the delegate is only ever called on the session's queue.
        nonisolated(unsafe) weak var delegate: HKWorkoutSessionDelegate?
        var builder: HKLiveWorkoutBuilder?
        var current: CurrentActivity?
        /// The connection to the remote session while mirrored (HKWorkoutSession+Mirroring).
        var mirrorLink: MirrorLink?
        /// The link the session's end stopped, until what it queued is written (``mirroringDrained()``).
        var stoppedLink: MirrorLink?
    }

    /// The activity begun last, until it ends.
    struct CurrentActivity: Sendable {
        var uuid: UUID
        var configuration: HKWorkoutConfiguration
        var start: Date
        /// Metadata values are property-list values and quantities, never changed once made.
        nonisolated(unsafe) var metadata: [String: Any]?
    }

    /// Creates a session. Throws `errorInvalidArgument` for a configuration HealthKit rejects, and
    /// `errorWorkoutActivityNotAllowed` for underwater diving.
    public init(healthStore: HKHealthStore, configuration workoutConfiguration: HKWorkoutConfiguration) throws {
        try workoutConfiguration.validate()
        self.healthStore = healthStore
        self.sessionType = .primary
        self.configuration = workoutConfiguration.copied()
        self.guarded = Mutex(State())
    }

    /// A companion's session mirroring a primary that is in `machine`'s state.
    init(mirroring healthStore: HKHealthStore, configuration: HKWorkoutConfiguration, machine: SessionStateMachine) {
        self.healthStore = healthStore
        self.sessionType = .mirrored
        self.configuration = configuration
        self.guarded = Mutex(State(machine: machine))
    }

    /// Restores a session from its journal (crash recovery).
    init(recovering healthStore: HKHealthStore, configuration: HKWorkoutConfiguration, machine: SessionStateMachine) {
        self.healthStore = healthStore
        self.sessionType = .primary
        self.configuration = configuration
        self.guarded = Mutex(State(machine: machine))
    }

    /// A session let go while mirrored stops mirroring: the other side hears a clean disconnection.
    deinit {
        guarded.withLock { $0.mirrorLink }?.stop()
    }

    /// Runs `body` with the session's state locked. Nothing in `body` may wait or call out.
    func locked<T, E: Error>(_ body: (inout State) throws(E) -> T) throws(E) -> T {
        try guarded.withLock { (state: inout State) throws(E) -> UncheckedBox<T> in UncheckedBox(try body(&state)) }
            .value
    }

    // MARK: Properties

    public weak var delegate: HKWorkoutSessionDelegate? {
        get { locked { $0.delegate } }
        set { locked { $0.delegate = newValue } }
    }

    /// A copy of the session's configuration.
    public var workoutConfiguration: HKWorkoutConfiguration { configuration.copied() }
    public var state: HKWorkoutSessionState { locked { $0.machine.state } }
    /// Primary, or mirrored from a primary session (the session `workoutSessionMirroringStartHandler` receives).
    public var type: HKWorkoutSessionType { sessionType }
    /// When the session first started running.
    public var startDate: Date? { locked { $0.machine.startDate } }
    /// When the session ended.
    public var endDate: Date? { locked { $0.machine.endDate } }

    /// The activity in progress: the one begun last, or the main activity (the session's own configuration).
    public var currentActivity: HKWorkoutActivity {
        let (current, machine) = locked { ($0.current, $0.machine) }
        if let current {
            return HKWorkoutActivity(
                uuid: current.uuid, configuration: current.configuration.copied(), startDate: current.start,
                endDate: nil, metadata: current.metadata, parentEvents: [], statistics: [:])
        }
        return HKWorkoutActivity(
            uuid: mainActivityUUID, configuration: configuration.copied(),
            startDate: machine.startDate ?? healthStore.wallClock(), endDate: machine.endDate,
            metadata: nil, parentEvents: [], statistics: [:])
    }

    private let mainActivityUUID = UUID()

    /// The builder that records this session: created on the first call, the same object after.
    public func associatedWorkoutBuilder() -> HKLiveWorkoutBuilder {
        if let builder = locked({ $0.builder }) { return builder }
        // Made outside the lock (it reads the session's state); the first one stored is the one returned.
        let made = HKLiveWorkoutBuilder(
            session: self, healthStore: healthStore, configuration: configuration, device: .local())
        return locked { state in
            if let builder = state.builder { return builder }
            state.builder = made
            return made
        }
    }

    // MARK: Requests

    /// Prepares the session (ignored on a mirrored session: the primary prepares and starts).
    public func prepare() {
        guard sessionType == .primary else { return ignoredOnMirror("prepare") }
        handle(.prepare, at: healthStore.wallClock())
    }

    /// Starts the session at `date` (now when nil). Ignored on a mirrored session: the primary starts.
    public func startActivity(with date: Date?) {
        guard sessionType == .primary else { return ignoredOnMirror("startActivity") }
        let at = date ?? healthStore.wallClock()
        if state == .notStarted || state == .prepared { healthStore.sessionWillStart(self, at: at) }
        handle(.start, at: at)
    }

    /// Pauses a running session. On a mirrored session, asks the primary to pause.
    public func pause() {
        guard sessionType == .primary else { return requestPrimary(.pause) }
        handle(.pause, at: healthStore.wallClock())
    }

    /// Resumes a paused session. On a mirrored session, asks the primary to resume.
    public func resume() {
        guard sessionType == .primary else { return requestPrimary(.resume) }
        handle(.resume, at: healthStore.wallClock())
    }

    /// Stops the session's sensors; the session can then only end. On a mirrored session, asks the primary to stop
    /// (now: the primary's clock dates it).
    public func stopActivity(with date: Date?) {
        guard sessionType == .primary else { return requestPrimary(.stop) }
        handle(.stop, at: date ?? healthStore.wallClock())
    }

    /// Ends the session (and its current activity). On a mirrored session, asks the primary to end.
    public func end() {
        guard sessionType == .primary else { return requestPrimary(.end) }
        handle(.end, at: healthStore.wallClock())
    }

    /// Ends the session with a failure: the delegate hears the error first, then the change to `.ended`.
    func fail(with error: HKError, at date: Date) {
        let actions = locked { $0.machine.handle(.fail, at: date) }
        guard actions.contains(where: { if case .transition = $0 { true } else { false } }) else { return }
        tell { delegate, session in delegate.workoutSession(session, didFailWithError: error) }
        carryOut(actions, request: .fail)
    }

    func handle(_ request: SessionStateMachine.Request, at date: Date) {
        let actions = locked { $0.machine.handle(request, at: date) }
        carryOut(actions, request: request)
    }

    func carryOut(_ actions: [SessionStateMachine.Action], request: SessionStateMachine.Request) {
        // A mirrored session's builder is the companion's own: the primary's builder records the workout.
        let builder = { self.sessionType == .primary ? self.locked { $0.builder } : nil }
        for action in actions {
            switch action {
            case let .ignored(request, state):
                Self.logger.notice("Ignored \(request.rawValue) while the workout session is \(state.name).")
            case let .transition(from, to, date):
                builder()?.sessionStateChanged(from: from, to: to, date: date)
                if to == .ended {
                    endCurrentActivityIfAny(at: date)
                    healthStore.sessionDidEnd(self)
                    builder()?.sessionDidEnd()
                }
                tell { delegate, session in delegate.workoutSession(session, didChangeTo: to, from: from, date: date) }
                forwardToMirror(.state(from: from, to: to, date: date))
                if to == .ended && sessionType == .primary {
                    let link = locked { state in
                        state.stoppedLink = state.mirrorLink
                        return state.mirrorLink
                    }
                    link?.stop()
                }
            case let .generate(type, date):
                let event = HKWorkoutEvent(
                    type: type, dateInterval: DateInterval(start: date, duration: 0), metadata: nil)
                builder()?.sessionGenerated(event)
                tell { delegate, session in delegate.workoutSession(session, didGenerate: event) }
                forwardToMirror(.event(type, date: date))
            }
        }
    }

    // MARK: Activities

    /// Begins a new activity (a leg, an interval), ending the current one. The builder adds it to the workout and
    /// the data source switches to the types the new activity collects.
    public func beginNewActivity(configuration: HKWorkoutConfiguration, date: Date, metadata: [String: Any]?) {
        guard sessionType == .primary else { return ignoredOnMirror("beginNewActivity") }
        guard locked({ $0.machine.isActive }) else {
            Self.logger.notice("Ignored beginNewActivity while the workout session is \(state.name).")
            return
        }
        endCurrentActivityIfAny(at: date)
        let uuid = UUID()
        let copy = configuration.copied()
        let builder = locked { state in
            state.current = CurrentActivity(uuid: uuid, configuration: copy, start: date, metadata: metadata)
            return state.builder
        }
        builder?.sessionBeganActivity(uuid: uuid, configuration: copy, date: date, metadata: metadata)
        tell { delegate, session in delegate.workoutSession(session, didBeginActivityWith: copy, date: date) }
        forwardToMirror(.activityBegan(MirrorFrame.Configuration(copy), date: date))
    }

    /// A mirrored session's primary began an activity.
    func followActivity(_ configuration: HKWorkoutConfiguration, date: Date) {
        endCurrentActivityIfAny(at: date)
        locked { $0.current = CurrentActivity(uuid: UUID(), configuration: configuration, start: date, metadata: nil) }
        tell { delegate, session in delegate.workoutSession(session, didBeginActivityWith: configuration, date: date) }
    }

    /// Ends the current activity; the session returns to its main activity.
    public func endCurrentActivity(on date: Date) {
        guard sessionType == .primary else { return ignoredOnMirror("endCurrentActivity") }
        endCurrentActivityIfAny(at: date)
    }

    func endCurrentActivityIfAny(at date: Date) {
        guard
            let taken = locked({ state -> (ended: CurrentActivity, builder: HKLiveWorkoutBuilder?)? in
                defer { state.current = nil }
                return state.current.map { ($0, state.builder) }
            })
        else { return }
        let (ended, builder) = taken
        if sessionType == .primary { builder?.sessionEndedActivity(uuid: ended.uuid, date: date) }
        let configuration = ended.configuration
        tell { delegate, session in delegate.workoutSession(session, didEndActivityWith: configuration, date: date) }
        forwardToMirror(.activityEnded(date: date))
    }

    /// Restores the activity in progress (crash recovery).
    func restoreCurrentActivity(
        uuid: UUID, configuration: HKWorkoutConfiguration, start: Date, metadata: [String: Any]?
    ) {
        locked {
            $0.current = CurrentActivity(uuid: uuid, configuration: configuration, start: start, metadata: metadata)
        }
    }

    func attachRecoveredBuilder(_ recovered: HKLiveWorkoutBuilder) {
        locked { $0.builder = recovered }
    }

    /// Calls the delegate on the session's queue, in order.
    func tell(_ call: @escaping (HKWorkoutSessionDelegate, HKWorkoutSession) -> Void) {
        let box = UncheckedBox(call)
        delegateQueue.async { [self] in
            guard let delegate = self.delegate else { return }
            box.value(delegate, self)
        }
    }

    /// Waits until every delegate call scheduled so far has been delivered. OpenHealthKit (tests).
    public func waitForDelegateCalls() async {
        await withCheckedContinuation { continuation in delegateQueue.async { continuation.resume() } }
    }
}
