import Foundation
import Synchronization
import Testing

@testable import OpenHealthKit

/// A stopped link's `stop` reaches the stream before `drained()` returns, however slow the writer is: a recording
/// that exits right after ending (`LiveRecording.end()` waits for it) no longer cuts the `stop` off, which its
/// companion heard as a lost recording (`workout watch` said "went away without ending" under CI's load).
@Suite(.timeLimit(.minutes(1))) struct MirrorLinkDrainTests {
    /// A stream whose writes wait until the test opens the gate; it keeps what was written and whether it closed.
    final class GatedStream: MirrorByteStream {
        private struct State {
            var open = false
            var waiting: [CheckedContinuation<Void, Never>] = []
            var written: [[UInt8]] = []
            var closed = false
        }
        private let state = Mutex(State())

        func write(_ bytes: [UInt8]) async throws {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.open { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
            state.withLock { $0.written.append(bytes) }
        }

        func read(capacity: Int) async throws -> [UInt8] {
            // Nothing comes from the other side; the read ends when the link closes the stream.
            while !state.withLock({ $0.closed }) { await Task.yield() }
            return []
        }

        func close() { state.withLock { $0.closed = true } }

        func openGate() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting.removeAll() }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }

        var written: [[UInt8]] { state.withLock { $0.written } }
        var isClosed: Bool { state.withLock { $0.closed } }
    }

    @Test func drainedReturnsOnlyOnceTheStopIsWritten() async throws {
        let stream = GatedStream()
        let link = MirrorLink(stream: stream, onFrames: { _ in }, onEnd: { _, _ in })
        link.start()
        link.post(.state(from: .running, to: .ended, date: Date(timeIntervalSinceReferenceDate: 0)))
        link.stop()
        #expect(link.isEnded)
        let drained = Task {
            await link.drained()
            return stream.written
        }
        // The writer is held at the gate: nothing is written yet, and the drain waits.
        for _ in 0 ..< 100 { await Task.yield() }
        #expect(stream.written.isEmpty)
        stream.openGate()
        let written = await drained.value
        #expect(written.last == MirrorFrame.stop.encoded)
        #expect(written.count == 2)
        #expect(stream.isClosed)
    }
}
