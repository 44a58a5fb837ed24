import Synchronization

/// Lets one LE connection attempt at a time through per adapter.
///
/// Linux creates one LE connection at a time per controller: while one is pending,
/// `hci_connect_le` refuses another with EBUSY (`hci_lookup_le_connect`, `net/bluetooth/hci_conn.c`),
/// which two sensors starting together would otherwise see. Attempts queue here in arrival order
/// and each passes when the one before it has connected or failed; a connected link does not
/// hold the gate.
public final class ConnectionGate: Sendable {
    private struct State {
        var busy: Set<String> = []
        var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
    }

    private let state = Mutex(State())

    /// The gate every ``L2CAPConnector`` connection goes through.
    public static let shared = ConnectionGate()

    public init() {}

    /// Runs `attempt` once no other attempt on `adapter` is running.
    nonisolated(nonsending) public func withPermit<T: Sendable>(
        for adapter: String, _ attempt: () async throws -> T
    ) async throws -> T {
        await acquire(adapter)
        defer { release(adapter) }
        return try await attempt()
    }

    private func acquire(_ adapter: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let passNow = state.withLock { state -> Bool in
                if state.busy.insert(adapter).inserted { return true }
                state.waiting[adapter, default: []].append(continuation)
                return false
            }
            if passNow { continuation.resume() }
        }
    }

    private func release(_ adapter: String) {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if var queue = state.waiting[adapter], !queue.isEmpty {
                let next = queue.removeFirst()
                state.waiting[adapter] = queue.isEmpty ? nil : queue
                return next  // the adapter stays busy: the permit passes on
            }
            state.busy.remove(adapter)
            return nil
        }
        next?.resume()
    }
}
