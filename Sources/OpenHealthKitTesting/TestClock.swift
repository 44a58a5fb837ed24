import Foundation
import OpenHealthKit
import Synchronization

/// A clock that moves only when a test calls `advance(by:)`, and the wall clock that moves with it: timeouts, the
/// journal's flush timer and delivery spacing are tested without sleeping, and every timestamp is known in advance
/// (after swift-async-algorithms' ManualClock and swift-clocks' TestClock).
///
/// ```swift
/// let clock = TestClock(start: Date(timeIntervalSinceReferenceDate: 780_000_000))
/// let store = HKHealthStore.testing(clock: clock)       // its clocks are this one
/// clock.advance(by: .seconds(1))                         // wall time and the flush timer move together
/// ```
///
/// Tasks sleeping on it wake when ``advance(by:)`` reaches their deadline; ``waitForSleepers(_:within:)`` lets a test wait
/// until a task has gone back to sleep (a timer that has run its tick), so nothing depends on scheduling luck.
public final class TestClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        public var offset: Duration
        public init(offset: Duration) { self.offset = offset }
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var id: UInt64
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var current = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var sleeperWaiters: [(id: UInt64, count: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0
    }
    private let state = Mutex(State())
    /// The wall time at the clock's zero.
    public let start: Date

    /// A clock at zero, whose wall time is `start` then.
    public init(start: Date = Date(timeIntervalSinceReferenceDate: 780_000_000)) {
        self.start = start
    }

    /// The wall time now: `start` plus how far the clock has moved.
    public var date: Date {
        let offset = now.offset.components
        return start + Double(offset.seconds) + Double(offset.attoseconds) / 1e18
    }

    /// A store's clocks on this one: timestamps from ``date``, the flush timer and replays on the clock itself, and
    /// delegate deliveries unspaced (each is delivered at once, so a test need not move time to hear of a reading).
    public var liveClocks: LiveClocks {
        LiveClocks(wall: { [self] in date }, monotonic: self, pacing: self, deliverySpacing: .zero)
    }

    public var now: Instant { state.withLock { $0.current } }
    public var minimumResolution: Duration { .zero }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, waiters) = state.withLock { state -> (Bool, [CheckedContinuation<Void, any Error>]) in
                    if deadline <= state.current || Task.isCancelled { return (true, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    let sleeping = state.sleepers.count
                    let ready = state.sleeperWaiters.filter { $0.count <= sleeping }.map(\.continuation)
                    state.sleeperWaiters.removeAll { $0.count <= sleeping }
                    return (false, ready)
                }
                if resumeNow {
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume()
                    }
                }
                for waiter in waiters { waiter.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.current = state.current.advanced(by: duration)
            let now = state.current
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until at least `count` tasks sleep on this clock, or throws ``WaitTimedOut`` once `limit` of real
    /// time has passed without them (a task that never goes back to sleep fails its test instead of hanging it).
    public func waitForSleepers(_ count: Int, within limit: Duration = .seconds(30)) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        var timer: Task<Void, Never>?
        defer { timer?.cancel() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.sleeperWaiters.append((id, count, continuation))
                return false
            }
            if ready { return continuation.resume() }
            timer = Task { [self] in
                guard (try? await Task.sleep(for: limit)) != nil else { return }
                let expired = state.withLock { state -> (CheckedContinuation<Void, any Error>, Int)? in
                    guard let index = state.sleeperWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return (state.sleeperWaiters.remove(at: index).continuation, state.sleepers.count)
                }
                if let (continuation, sleeping) = expired {
                    continuation.resume(
                        throwing: WaitTimedOut(
                            "\(count) task(s) sleeping on the test clock (\(sleeping) did)", after: limit))
                }
            }
        }
    }
}

/// A test helper's wait that reached its limit: what it waited for, and how long. OpenHealthKitTesting.
public struct WaitTimedOut: Error, CustomStringConvertible {
    /// What did not happen in time.
    public let awaited: String
    /// The limit, in real time.
    public let limit: Duration

    public init(_ awaited: String, after limit: Duration) {
        self.awaited = awaited
        self.limit = limit
    }

    public var description: String { "Waited \(limit) for \(awaited); it did not happen." }
}
