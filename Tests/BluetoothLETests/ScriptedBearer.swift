import BluetoothLE
import Foundation
import Testing

/// An in-memory ATT bearer that plays a script: each step is a PDU the client must send next, or a
/// PDU the peer sends once every earlier step has happened.
///
/// A send that does not match the script is recorded in `failures` and thrown. Tests end by
/// asserting `isDrained` and `failures.isEmpty`, then `close()` makes `receive()` throw so the
/// client's `run()` returns. State lives in the instance, so tests run in parallel.
actor ScriptedBearer: ATTBearer {
    enum Step: Sendable, CustomStringConvertible {
        /// The client must send exactly these bytes.
        case send([UInt8])
        /// The peer sends these bytes.
        case receive([UInt8])

        var description: String {
            switch self {
            case .send(let b): "→ " + b.map { String($0, radix: 16) }.joined(separator: " ")
            case .receive(let b): "← " + b.map { String($0, radix: 16) }.joined(separator: " ")
            }
        }
    }

    struct Closed: Error {}
    struct ScriptMismatch: Error { var message: String }

    private var steps: [Step]
    private var next = 0
    private var receiver: CheckedContinuation<[UInt8], any Error>?
    private var drainWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private var isClosed = false
    private(set) var failures: [String] = []

    init(_ steps: [Step]) { self.steps = steps }

    var isDrained: Bool { next == steps.count }
    var remaining: [Step] { Array(steps[next...]) }

    func send(_ pdu: [UInt8]) throws {
        if isClosed { throw Closed() }
        guard next < steps.count, case .send(let expected) = steps[next] else {
            let message =
                "unexpected send \(Step.send(pdu)); next step: \(next < steps.count ? steps[next].description : "end of script")"
            failures.append(message)
            throw ScriptMismatch(message: message)
        }
        guard expected == pdu else {
            let message = "sent \(Step.send(pdu)), script expects \(steps[next])"
            failures.append(message)
            throw ScriptMismatch(message: message)
        }
        next += 1
        pump()
    }

    func receive() async throws -> [UInt8] {
        if next < steps.count, case .receive(let bytes) = steps[next] {
            next += 1
            pump()
            return bytes
        }
        if isClosed { throw Closed() }
        precondition(receiver == nil, "one reader at a time")
        return try await withCheckedThrowingContinuation { receiver = $0 }
    }

    /// Suspends until every step has happened.
    func waitUntilDrained() async {
        await waitUntil(stepsDone: steps.count)
    }

    /// Suspends until the first `count` steps have happened.
    func waitUntil(stepsDone count: Int) async {
        if next >= count { return }
        await withCheckedContinuation { drainWaiters.append((count, $0)) }
    }

    /// Ends the conversation: a waiting or later `receive()` throws.
    func close() {
        isClosed = true
        receiver?.resume(throwing: Closed())
        receiver = nil
    }

    private func pump() {
        if let waiting = receiver, next < steps.count, case .receive(let bytes) = steps[next] {
            receiver = nil
            next += 1
            waiting.resume(returning: bytes)
        }
        let ready = drainWaiters.filter { $0.count <= next }
        drainWaiters.removeAll { $0.count <= next }
        for waiter in ready { waiter.continuation.resume() }
    }
}

/// Collects log events from a `@Sendable` handler.
final class LogRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [GATTClientLogEvent] = []

    var events: [GATTClientLogEvent] { lock.withLock { storage } }
    var handler: @Sendable (GATTClientLogEvent) -> Void { { [self] event in lock.withLock { storage.append(event) } } }
}

/// Runs `body` against a client on a scripted bearer, with the client's `run()` in a child task,
/// then asserts the script was followed and drained, and closes the bearer.
func withScriptedClient(
    _ steps: [ScriptedBearer.Step],
    clientRxMTU: UInt16 = 517,
    log: LogRecorder = LogRecorder(),
    notificationBufferLimit: Int = 4096,
    notificationDelivery: GATTClient.NotificationDelivery = .stream,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (GATTClient, ScriptedBearer) async throws -> Void
) async throws {
    let bearer = ScriptedBearer(steps)
    let client = GATTClient(
        bearer: bearer, clientRxMTU: clientRxMTU, notificationBufferLimit: notificationBufferLimit,
        notificationDelivery: notificationDelivery, logHandler: log.handler)
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            do { try await client.run() } catch is ScriptedBearer.Closed {}
        }
        do {
            try await body(client, bearer)
        } catch {
            await bearer.close()
            throw error
        }
        #expect(await bearer.failures == [], sourceLocation: sourceLocation)
        #expect(await bearer.remaining.map(\.description) == [], "script not drained", sourceLocation: sourceLocation)
        await bearer.close()
        try await group.waitForAll()
    }
}
