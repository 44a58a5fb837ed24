import Foundation
import HealthKitModel
import Logging
import Synchronization
import UnixSockets
import WorkoutEngine

/// The companion side of workout mirroring.
extension HKHealthStore {
    /// Called with a session of type `.mirrored` each time a primary session on this store file starts mirroring
    /// (`startMirroringToCompanionDevice()`), from this process or another process of the same user.
    ///
    /// Setting a handler makes this store wait for primaries on a Unix socket beside its file (`<store>.mirror`,
    /// mode 0600); setting `nil` stops waiting. One store object per store file waits: if another one (in any
    /// process) already does, this one does not, and ``workoutSessionMirroringError`` says why. A store in memory
    /// never receives mirrored sessions (the error says so too). The handler runs on a background task; keep the session it receives (and
    /// set its delegate) to follow the primary. See `HKWorkoutSession.startMirroringToCompanionDevice()`.
    ///
    /// HealthKit: HKHealthStore.workoutSessionMirroringStartHandler.
    public var workoutSessionMirroringStartHandler: (@Sendable (HKWorkoutSession) -> Void)? {
        get { state.withLock { $0.mirroringStartHandler } }
        set {
            let (stale, needsCompanion) = state.withLock { state -> (MirrorCompanion?, Bool) in
                state.mirroringStartHandler = newValue
                if newValue == nil {
                    defer { state.mirrorCompanion = nil }
                    return (state.mirrorCompanion, false)
                }
                return (nil, state.mirrorCompanion == nil || state.mirrorCompanion?.error != nil)
            }
            stale?.close()
            guard needsCompanion else { return }
            let companion =
                databasePath.map { MirrorCompanion(store: self, path: $0) }
                ?? MirrorCompanion(
                    failed: HKError(
                        .errorInvalidArgument,
                        "A store in memory receives no mirrored workouts: mirroring needs a store file."))
            state.withLock { $0.mirrorCompanion = companion }
        }
    }

    /// Why this store does not receive mirrored sessions although a handler is set (another companion already waits
    /// on the store file, the socket cannot be made), or nil. OpenHealthKit.
    public var workoutSessionMirroringError: HKError? {
        state.withLock { $0.mirrorCompanion?.error }
    }

    /// A primary connected: read its start frame, make the mirrored session, hand it to the handler, accept.
    func acceptMirror(_ stream: any MirrorByteStream) async {
        let frames: [MirrorFrame]
        let decoder: MirrorFrameDecoder
        // A peer that connects and says nothing is dropped after the answer timeout (the store's monotonic clock).
        let clock = clocks.monotonic
        let timer = Task {
            guard (try? await clock.sleep(for: MirrorFrame.answerTimeout)) != nil else { return }
            stream.close()
        }
        defer { timer.cancel() }
        do { (frames, decoder) = try await MirrorRendezvous.firstFrames(from: stream) } catch {
            MirrorCompanion.logger.notice("A primary session's mirroring request failed: \(error)")
            return stream.close()
        }
        guard case let .start(configuration, current, startDate) = frames[0],
            let handler = workoutSessionMirroringStartHandler
        else {
            return stream.close()
        }
        let machine = SessionStateMachine(
            state: current, startDate: startDate, endDate: current == .ended ? startDate : nil)
        let session = HKWorkoutSession(
            mirroring: self, configuration: configuration.workoutConfiguration, machine: machine)
        let link = MirrorLink(
            stream: stream, decoder: decoder,
            onFrames: { [weak session] frames in
                session?.receiveFromRemote(frames)
            },
            onEnd: { [weak session] link, error in
                session?.remoteEnded(error, link: link)
            })
        session.attachMirror(link)
        handler(session)
        link.post(.accepted)
        link.start(pending: Array(frames.dropFirst()))
    }
}

/// A store's wait for primaries: the listening socket and the task that accepts on it.
final class MirrorCompanion: Sendable {
    static let logger = Logger(label: "OpenHealthKit.Mirroring")
    private let listener: UnixStreamListener?
    private let accepting: Task<Void, Never>?
    /// Why the store cannot wait (nil while it waits).
    let error: HKError?

    init(store: HKHealthStore, path: String) {
        do {
            let listener = try MirrorRendezvous.listen(store: path)
            self.listener = listener
            self.error = nil
            accepting = Task.detached { [weak store] in
                while !Task.isCancelled {
                    let stream: UnixStreamConnection
                    do {
                        stream = try await listener.accept()
                    } catch let error as SocketError where Self.isTransient(error) {
                        // A primary that gave up before we took its connection: wait for the next one.
                        Self.logger.info("A mirroring connection was dropped before it was accepted: \(error.message)")
                        continue
                    } catch {
                        if !Task.isCancelled {
                            Self.logger.error(
                                "This store stopped waiting for mirrored workouts: \((error as? SocketError)?.message ?? "\(error)")"
                            )
                        }
                        return
                    }
                    guard let store else { return stream.close() }
                    Task.detached { await store.acceptMirror(stream) }
                }
            }
        } catch {
            listener = nil
            accepting = nil
            self.error = (error as? HKError) ?? HKError(.unknownError, "\(error)")
            Self.logger.notice("This store does not receive mirrored workouts: \(self.error?.message ?? "")")
        }
    }

    /// accept(2)'s errors that concern one connection, not the socket (Linux passes on a pending connection's own
    /// network error, and ECONNABORTED when the peer went away first).
    static func isTransient(_ error: SocketError) -> Bool {
        error.errno.map { [ECONNABORTED, EINTR, EPROTO].contains($0.rawValue) } ?? false
    }

    private let closed = Atomic<Bool>(false)

    /// Stops waiting and removes the socket file (once).
    /// A store that cannot wait, and why.
    init(failed error: HKError) {
        listener = nil
        accepting = nil
        self.error = error
    }

    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        accepting?.cancel()
        listener?.close()
    }

    deinit { close() }
}
