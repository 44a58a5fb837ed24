import Foundation
import HealthKitModel
import Synchronization
import WorkoutEngine

/// Mirroring a workout session to a companion, and the data the two sessions send each other.
///
/// The companion is another `HKHealthStore` on the same store file — in this process or another process of the
/// same user — that has set ``HKHealthStore/workoutSessionMirroringStartHandler``. The two talk over a Unix stream
/// socket beside the store file (`<store>.mirror`, mode 0600) with the frames ``MirrorFrame`` documents.
///
/// - The companion's handler receives an `HKWorkoutSession` of type `.mirrored` with the primary's configuration
///   and state; from then on its state follows the primary's (`didChangeTo:from:date:` with the primary's dates)
///   and the primary's pause and resume events reach its `didGenerate`.
/// - `pause()`, `resume()`, `stopActivity(with:)` and `end()` on the mirrored session ask the primary to act; the
///   change then comes back as a state change. `prepare()`, `startActivity(with:)` and activities are ignored there.
/// - `sendToRemoteWorkoutSession(data:)` works both ways; the other side's delegate receives the data in order in
///   `didReceiveDataFromRemoteWorkoutSession` (the items that arrived together in one array, in the order sent).
/// - Mirroring ends when the primary calls `stopMirroringToCompanionDevice()` or ends (both delegates hear
///   `didDisconnectFromRemoteDeviceWithError` with `nil`), or when the other side goes away — its process killed,
///   its socket closed — (the error says so). After that the mirrored session no longer follows the primary.
/// - Activities the primary begins and ends (`beginNewActivity`, `endCurrentActivity(on:)`) reach the mirrored
///   session's `didBeginActivityWith` / `didEndActivityWith` and its `currentActivity` (their metadata does not).
/// - Where HealthKit is silent: the mirrored session's `associatedWorkoutBuilder()` is the companion's own builder.
///   It receives neither the primary's samples nor its state, and its `beginCollection(at:)` and `finishWorkout()`
///   throw `errorInvalidArgument` (the primary's builder records and saves the workout). Send the figures to show, as
///   Apple's multidevice sample does, with `sendToRemoteWorkoutSession(data:)` (``LiveWorkoutFigures`` is one
///   encoding).
///
/// HealthKit: HKWorkoutSession.startMirroringToCompanionDevice, sendToRemoteWorkoutSession(data:completion:).
extension HKWorkoutSession {
    /// Starts mirroring this session to the companion store (see the extension's discussion).
    ///
    /// - Throws: `errorNoData` when no companion is listening on the store file (or the store is in memory, or the
    ///   companion does not answer within 5 seconds of the store's monotonic clock);
    ///   `errorInvalidArgument` on a mirrored or ended session. Mirroring a session already mirrored succeeds.
    public func startMirroringToCompanionDevice() async throws {
        guard sessionType == .primary else {
            throw HKError(.errorInvalidArgument, "A mirrored workout session cannot itself be mirrored.")
        }
        if let link = locked({ $0.mirrorLink }), !link.isEnded { return }
        guard let path = healthStore.databasePath else {
            throw HKError(.errorNoData, "A store in memory has no companion: mirroring needs a store file.")
        }
        let stream = try MirrorRendezvous.connect(store: path)
        let accepted = MirrorAcceptance()
        let link = MirrorLink(
            stream: stream,
            onFrames: { [weak self] frames in
                var rest = frames[...]
                if !accepted.isSettled, let first = rest.first {
                    rest = rest.dropFirst()
                    guard first == .accepted else {
                        return accepted.settle(
                            HKError(.errorInvalidArgument, "The companion answered mirroring with an unexpected frame.")
                        )
                    }
                    accepted.settle(nil)
                }
                if !rest.isEmpty { self?.receiveFromRemote(Array(rest)) }
            },
            onEnd: { [weak self] link, error in
                let wasAccepted = accepted.isSettled && accepted.error == nil
                accepted.settle(
                    error
                        ?? HKError(
                            .errorNoData, "The companion closed the connection before accepting the mirrored session."))
                if wasAccepted { self?.remoteEnded(error, link: link) }
            })
        // The start frame carries the state as of now; later changes are posted after it, under the same lock.
        enum Outcome { case posted, ended, alreadyMirrored }
        let configuration = configuration
        let outcome = locked { state -> Outcome in
            guard state.machine.state != .ended else { return .ended }
            // Two calls at once: the first to get here mirrors, the other succeeds without a second connection.
            if let existing = state.mirrorLink, !existing.isEnded { return .alreadyMirrored }
            link.post(
                .start(
                    configuration: MirrorFrame.Configuration(configuration), state: state.machine.state,
                    startDate: state.machine.startDate))
            state.mirrorLink = link
            return .posted
        }
        switch outcome {
        case .posted: break
        case .alreadyMirrored:
            stream.close()
            return
        case .ended:
            stream.close()
            throw HKError(.errorInvalidArgument, "An ended workout session cannot be mirrored.")
        }
        link.start()
        // A companion that accepted the connection but never answers (a stopped process) does not hang the caller.
        let clock = healthStore.clocks.monotonic
        let timer = Task {
            guard (try? await clock.sleep(for: MirrorFrame.answerTimeout)) != nil else { return }
            accepted.settle(
                HKError(
                    .errorNoData,
                    "The companion did not answer the mirroring request within \(MirrorFrame.answerTimeout)."))
        }
        defer { timer.cancel() }
        if let error = await accepted.wait() {
            locked { if $0.mirrorLink === link { $0.mirrorLink = nil } }
            link.stop()
            throw error
        }
    }

    /// Starts mirroring; `completion` hears whether it began. HealthKit: startMirroringToCompanionDevice(completion:).
    public func startMirroringToCompanionDevice(completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        healthStore.report({ try await self.startMirroringToCompanionDevice() }) {
            completion($0.healthKitPair.0, $0.healthKitPair.1)
        }
    }

    /// Stops mirroring: the companion's session hears `didDisconnectFromRemoteDeviceWithError(nil)`, and so does this
    /// session's delegate. Stopping a session that is not mirrored succeeds and does nothing.
    ///
    /// - Throws: `errorInvalidArgument` on a mirrored session (the primary decides).
    public func stopMirroringToCompanionDevice() async throws {
        guard sessionType == .primary else {
            throw HKError(.errorInvalidArgument, "Only the primary workout session can stop mirroring.")
        }
        let link = locked { $0.mirrorLink }
        link?.stop()
        // Returns once the stop is written: an app that exits next still ends its companion's session cleanly.
        await link?.drained()
    }

    /// Returns once the mirroring the session's end stopped has written what it queued (the end itself, the `stop`)
    /// to the companion. OpenHealthKit: a program about to exit waits for it, so its companion hears a clean end.
    func mirroringDrained() async {
        await locked { $0.stoppedLink }?.drained()
    }

    /// Stops mirroring; `completion` hears the outcome. HealthKit: stopMirroringToCompanionDevice(completion:).
    public func stopMirroringToCompanionDevice(completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        healthStore.report({ try await self.stopMirroringToCompanionDevice() }) {
            completion($0.healthKitPair.0, $0.healthKitPair.1)
        }
    }

    /// Sends `data` to the remote session (the companion's from a primary, the primary's from a mirrored session);
    /// returns once it is written to the connection. Data sent one call after another arrives in that order.
    ///
    /// - Throws: `errorDataSizeExceeded` above 1 MiB; `errorNoData` when the session is not mirrored (never was,
    ///   stopped, or the other side went away).
    public func sendToRemoteWorkoutSession(data: Data) async throws {
        guard data.count <= MirrorFrame.maximumPayload else {
            throw HKError(
                .errorDataSizeExceeded,
                "\(data.count) bytes exceed the \(MirrorFrame.maximumPayload) a remote workout session accepts at once."
            )
        }
        guard let link = locked({ $0.mirrorLink }) else {
            throw HKError(
                .errorNoData, "The workout session is not mirrored, so there is no remote session to send to.")
        }
        try await link.send(.data(data))
    }

    /// Sends `data` to the remote session; `completion` hears whether it was sent.
    /// HealthKit: sendToRemoteWorkoutSession(data:completion:).
    public func sendToRemoteWorkoutSession(data: Data, completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        // The frame joins the outbox now, so calls made one after another keep their order.
        guard data.count <= MirrorFrame.maximumPayload else {
            let error = HKError(
                .errorDataSizeExceeded,
                "\(data.count) bytes exceed the \(MirrorFrame.maximumPayload) a remote workout session accepts at once."
            )
            return healthStore.callbackQueue.async { completion(false, error) }
        }
        guard let link = locked({ $0.mirrorLink }) else {
            let error = HKError(
                .errorNoData, "The workout session is not mirrored, so there is no remote session to send to.")
            return healthStore.callbackQueue.async { completion(false, error) }
        }
        let queue = healthStore.callbackQueue
        link.post(.data(data)) { error in queue.async { completion(error == nil, error) } }
    }

    // MARK: Internals

    /// Posts a frame describing this primary session's change to its companion, if mirrored.
    func forwardToMirror(_ frame: MirrorFrame) {
        guard sessionType == .primary else { return }
        locked { $0.mirrorLink }?.post(frame)
    }

    func requestPrimary(_ request: MirrorFrame.Request) {
        guard let link = locked({ $0.mirrorLink }) else {
            return Self.logger.notice(
                "Ignored \(request) on a mirrored workout session that no longer follows its primary.")
        }
        link.post(.request(request))
    }

    func ignoredOnMirror(_ call: String) {
        Self.logger.notice("Ignored \(call) on a mirrored workout session: the primary session does that.")
    }

    /// A companion's session takes its link (before the link starts).
    func attachMirror(_ link: MirrorLink) {
        locked { $0.mirrorLink = link }
    }

    /// Frames from the remote session, in order.
    func receiveFromRemote(_ frames: [MirrorFrame]) {
        var data: [Data] = []
        func flush() {
            guard !data.isEmpty else { return }
            let batch = data
            data = []
            tell { delegate, session in delegate.workoutSession(session, didReceiveDataFromRemoteWorkoutSession: batch)
            }
        }
        for frame in frames {
            if case .data(let bytes) = frame {
                data.append(bytes)
                continue
            }
            flush()
            switch (sessionType, frame) {
            case let (.mirrored, .state(_, to, date)):
                carryOut(locked { $0.machine.follow(to: to, at: date) }, request: .start)
            case let (.mirrored, .event(type, date)):
                carryOut([.generate(type, date: date)], request: .start)
            case let (.mirrored, .activityBegan(configuration, date)):
                followActivity(configuration.workoutConfiguration, date: date)
            case let (.mirrored, .activityEnded(date)):
                endCurrentActivityIfAny(at: date)
            case let (.primary, .request(request)):
                let now = healthStore.wallClock()
                switch request {
                case .pause: handle(.pause, at: now)
                case .resume: handle(.resume, at: now)
                case .stop: handle(.stop, at: now)
                case .end: handle(.end, at: now)
                }
            default:
                Self.logger.notice(
                    "Ignored a mirroring frame a \(sessionType == .primary ? "primary" : "mirrored") session does not take: \(frame.kind)."
                )
            }
        }
        flush()
    }

    /// The link ended: `nil` for a clean stop. A newer link (mirroring started again) stays.
    func remoteEnded(_ error: (any Error)?, link: MirrorLink) {
        locked { if $0.mirrorLink === link { $0.mirrorLink = nil } }
        tell { delegate, session in delegate.workoutSession(session, didDisconnectFromRemoteDeviceWithError: error) }
    }
}

/// The primary's wait for the companion's `accepted` frame: settled once, by the frame or by the link's end.
final class MirrorAcceptance: Sendable {
    private struct State {
        var settled = false
        var error: HKError?
        var waiter: CheckedContinuation<(any Error)?, Never>?
    }
    private let state = Mutex(State())

    var isSettled: Bool { state.withLock { $0.settled } }
    var error: (any Error)? { state.withLock { $0.error } }

    func settle(_ error: (any Error)?) {
        let waiter = state.withLock { state -> CheckedContinuation<(any Error)?, Never>? in
            guard !state.settled else { return nil }
            state.settled = true
            state.error = error.map { ($0 as? HKError) ?? HKError(.unknownError, "\($0)") }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: error)
    }

    func wait() async -> (any Error)? {
        await withCheckedContinuation { continuation in
            let settled = state.withLock { state -> HKError?? in
                if state.settled { return .some(state.error) }
                state.waiter = continuation
                return .none
            }
            if let settled { continuation.resume(returning: settled) }
        }
    }
}
