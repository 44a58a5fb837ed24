import Foundation
import OpenHealthKit
import Synchronization

/// The live view's snapshots on their way to browsers: the latest one, the last minutes of heart rate and power, and
/// one bounded stream per browser. OpenHealthKit.
///
/// ``publish(_:)`` never waits: each browser's stream holds only the newest message, so a slow browser skips what it
/// could not take and catches up on the next, and one that went away costs nothing. At most ``limit`` browsers are
/// streamed to; one more drops the browser that has been connected longest (it is told why, and its page says so).
public final class LiveFeed: Sendable {
    /// One point of the graph: elapsed seconds, heart rate (count/min), power (W).
    public struct Point: Sendable, Equatable {
        public var elapsed: Double
        public var heartRate: Double?
        public var power: Double?
    }

    /// How many browsers may stream at once.
    public let limit: Int
    /// How long the graph's history reaches back, in seconds of elapsed time.
    public static let historySeconds: Double = 600

    private struct State {
        var latest: LiveWorkoutSnapshot?
        var latestJSON: Data?
        var history: [Point] = []
        var clients: [(id: Int, continuation: AsyncStream<Data>.Continuation)] = []
        var nextID = 0
        var closed = false
        /// Streams whose browser has not yet been sent their end (a dropped or closed stream counts until then).
        var open = 0
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    public init(limit: Int = 16) {
        self.limit = limit
    }

    /// Hands `snapshot` to every browser (and to ``latest``); adds a graph point once a second of elapsed time.
    public func publish(_ snapshot: LiveWorkoutSnapshot) {
        let json = snapshot.jsonData()
        let message = Self.event(nil, json)
        state.withLock { state in
            guard !state.closed else { return }
            state.latest = snapshot
            state.latestJSON = json
            if let last = state.history.last, snapshot.elapsed < last.elapsed { state.history.removeAll() }
            if state.history.last.map({ snapshot.elapsed >= $0.elapsed + 1 }) ?? true {
                state.history.append(
                    Point(elapsed: snapshot.elapsed, heartRate: snapshot.heartRate, power: snapshot.power))
                let oldest = snapshot.elapsed - Self.historySeconds
                if let first = state.history.first, first.elapsed < oldest {
                    state.history.removeAll { $0.elapsed < oldest }
                }
            }
            for client in state.clients { client.continuation.yield(message) }
        }
    }

    /// The last snapshot published, and its JSON.
    public var latest: (snapshot: LiveWorkoutSnapshot, json: Data)? {
        state.withLock { state in state.latest.flatMap { snapshot in state.latestJSON.map { (snapshot, $0) } } }
    }

    /// The graph's points, oldest first.
    public var history: [Point] { state.withLock { $0.history } }

    /// How many browsers are streamed to now.
    public var clientCount: Int { state.withLock { $0.clients.count } }

    /// A new browser's stream of Server-Sent Events: the latest snapshot at once, then each one published. Returns
    /// its id for ``unsubscribe(_:)``.
    public func subscribe() -> (id: Int, messages: AsyncStream<Data>) {
        let (stream, continuation) = AsyncStream.makeStream(of: Data.self, bufferingPolicy: .bufferingNewest(1))
        let (id, dropped) = state.withLock { state -> (Int, AsyncStream<Data>.Continuation?) in
            guard !state.closed else { return (-1, nil) }
            state.nextID += 1
            state.open += 1
            if let json = state.latestJSON { continuation.yield(Self.event(nil, json)) }
            var dropped: AsyncStream<Data>.Continuation?
            if state.clients.count >= limit { dropped = state.clients.removeFirst().continuation }
            state.clients.append((state.nextID, continuation))
            return (state.nextID, dropped)
        }
        if id < 0 { continuation.finish() }
        if let dropped {
            dropped.yield(Self.event("dropped", Data("\"More than \(limit) browsers are watching.\"".utf8)))
            dropped.finish()
        }
        return (id, stream)
    }

    /// Forgets a browser that went away, or whose stream has ended and been sent.
    public func unsubscribe(_ id: Int) {
        let (gone, waiters) = state.withLock { state in
            let gone = state.clients.firstIndex { $0.id == id }.map { state.clients.remove(at: $0).continuation }
            if id >= 0 { state.open -= 1 }
            guard state.open == 0 else { return (gone, [CheckedContinuation<Void, Never>]()) }
            defer { state.drainWaiters.removeAll() }
            return (gone, state.drainWaiters)
        }
        gone?.finish()
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once every stream has been sent its last message (after ``close()``, each browser its `end`).
    public func drained() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if state.open == 0 { return true }
                state.drainWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Ends every stream with an `end` event (the workout is over) and takes no more browsers.
    public func close() {
        let clients = state.withLock { state in
            state.closed = true
            defer { state.clients.removeAll() }
            return state.clients
        }
        for client in clients {
            client.continuation.yield(Self.event("end", Data("\"The workout has ended.\"".utf8)))
            client.continuation.finish()
        }
    }

    /// One Server-Sent Event: `event: NAME` (none for a snapshot), `retry` so a dropped page waits before it tries
    /// again, and the data on one line (JSON has no raw line breaks).
    static func event(_ name: String?, _ data: Data) -> Data {
        var text = name.map { "event: \($0)\nretry: 30000\n" } ?? ""
        text += "data: "
        var bytes = Data(text.utf8)
        bytes.append(data)
        bytes.append(contentsOf: Array("\n\n".utf8))
        return bytes
    }
}
