import ByteCoding
import Foundation
import HealthKitModel
import Logging
import Synchronization
import WorkoutEngine

/// One mirroring connection between a primary session and its companion: frames written in the order they are
/// posted, frames read and handed on in the order they arrived, and the end reported once.
///
/// Posting is synchronous (the frame joins the outbox at once), so frames posted one after another — a session's
/// state changes, an app's `sendToRemoteWorkoutSession` calls — go out in that order; one writer task drains the
/// outbox. The end is clean (`nil`) when either side sent ``MirrorFrame/stop`` or this side stopped; otherwise it
/// carries the error that broke the stream (a peer killed, a socket closed, a damaged frame).
final class MirrorLink: Sendable {
    private struct Outgoing {
        var bytes: [UInt8]
        var done: (@Sendable ((any Error)?) -> Void)?
    }

    private static let logger = Logger(label: "OpenHealthKit.Mirroring")
    private let stream: any MirrorByteStream
    private let outbox: AsyncStream<Outgoing>.Continuation
    private let outgoing: AsyncStream<Outgoing>
    private struct State {
        var ended = false
        var stopping = false
        var decoder: MirrorFrameDecoder
        /// The task that writes the outbox and then closes the stream.
        var writer: Task<Void, Never>?
    }
    private let state: Mutex<State>
    private let onFrames: @Sendable ([MirrorFrame]) -> Void
    private let onEnd: @Sendable (MirrorLink, (any Error)?) -> Void

    /// - Parameters:
    ///   - decoder: the decoder the handshake read with (it may hold the start of the next frame).
    ///   - onFrames: called with each batch of frames read, in order, on the link's reading task.
    ///   - onEnd: called once when the link ends, with the link: `nil` for a clean stop, else why it broke.
    init(
        stream: any MirrorByteStream, decoder: MirrorFrameDecoder = MirrorFrameDecoder(),
        onFrames: @escaping @Sendable ([MirrorFrame]) -> Void,
        onEnd: @escaping @Sendable (MirrorLink, (any Error)?) -> Void
    ) {
        self.stream = stream
        state = Mutex(State(decoder: decoder))
        self.onFrames = onFrames
        self.onEnd = onEnd
        (outgoing, outbox) = AsyncStream.makeStream(of: Outgoing.self)
    }

    /// Starts reading and writing; `pending` are frames the handshake already read past its own.
    func start(pending: [MirrorFrame] = []) {
        let writer = Task.detached { [self] in
            for await item in outgoing {
                do {
                    try await stream.write(item.bytes)
                    item.done?(nil)
                } catch {
                    item.done?(error)
                    finish(lostWith: error)
                }
            }
            stream.close()
        }
        state.withLock { $0.writer = writer }
        Task.detached { [self] in
            if !pending.isEmpty, deliver(pending) { return }
            while true {
                let bytes: [UInt8]
                do { bytes = try await stream.read(capacity: 65_536) } catch {
                    finish(lostWith: error)
                    return
                }
                if bytes.isEmpty {
                    finish(
                        lostWith: HKError(
                            .errorNoData, "The other side of the mirrored workout went away without stopping mirroring."
                        ))
                    return
                }
                let decoded = state.withLock { state -> Result<[MirrorFrame], DecodeError> in
                    do throws(DecodeError) { return .success(try state.decoder.append(bytes)) } catch {
                        return .failure(error)
                    }
                }
                let frames: [MirrorFrame]
                switch decoded {
                case .success(let decodedFrames): frames = decodedFrames
                case .failure(let error):
                    finish(
                        lostWith: HKError(
                            .errorInvalidArgument, "The other side sent a damaged mirroring frame: \(error)."))
                    return
                }
                if deliver(frames) { return }
            }
        }
    }

    /// Hands frames on up to a `stop`; returns true when the link ended.
    private func deliver(_ frames: [MirrorFrame]) -> Bool {
        if let stop = frames.firstIndex(of: .stop) {
            if stop > 0 { onFrames(Array(frames[..<stop])) }
            finishCleanly()
            return true
        }
        onFrames(frames)
        return false
    }

    /// Queues a frame; `done` hears whether it was written (an error once the link has ended).
    func post(_ frame: MirrorFrame, done: (@Sendable ((any Error)?) -> Void)? = nil) {
        let accepted = state.withLock { state -> Bool in
            guard !state.ended && !state.stopping else { return false }
            outbox.yield(Outgoing(bytes: frame.encoded, done: done))
            return true
        }
        if !accepted {
            done?(HKError(.errorNoData, "The workout session is not mirrored (mirroring stopped or was lost)."))
        }
    }

    /// Sends a frame and waits until it is written.
    func send(_ frame: MirrorFrame) async throws {
        let result: (any Error)? = await withCheckedContinuation { continuation in
            post(frame) { continuation.resume(returning: $0) }
        }
        if let result { throw result }
    }

    /// Stops cleanly: sends `stop` after whatever is queued, closes the stream, and ends the link with no error.
    func stop() {
        state.withLock { state in
            guard !state.ended && !state.stopping else { return }
            outbox.yield(Outgoing(bytes: MirrorFrame.stop.encoded, done: nil))
            state.stopping = true
            outbox.finish()
        }
        finishCleanly()
    }

    /// Whether the link has ended.
    var isEnded: Bool { state.withLock { $0.ended } }

    /// Returns once everything posted before the link ended (a `stop` included) is written and the stream closed: a
    /// process that exits right after stopping would otherwise cut the `stop` off, and its companion would hear a
    /// lost peer instead of a clean end.
    func drained() async {
        await state.withLock { $0.writer }?.value
    }

    private func finishCleanly() {
        end(with: nil)
    }

    private func finish(lostWith error: any Error) {
        // After this side stopped, a read ending (the closed stream) is the stop itself.
        if state.withLock({ $0.stopping }) { return end(with: nil) }
        let reported =
            (error as? HKError) ?? HKError(.errorNoData, "The mirrored workout's connection was lost: \(error)")
        Self.logger.notice("Mirroring ended: \(reported.message)")
        end(with: reported)
    }

    private func end(with error: (any Error)?) {
        let first = state.withLock { state -> Bool in
            defer { state.ended = true }
            if !state.ended { outbox.finish() }
            return !state.ended
        }
        guard first else { return }
        // Stopping closes the stream after the writer drains the outbox (so `stop` goes out); otherwise close now.
        if !state.withLock({ $0.stopping }) { stream.close() }
        onEnd(self, error)
    }
}
