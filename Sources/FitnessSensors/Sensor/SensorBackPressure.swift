import Synchronization

/// A consumer's word to the producers of sensor events that it has fallen behind: raised while the consumer holds
/// more than it means to (a workout builder whose journal's writer cannot keep up with the disk), released once it
/// has caught up. OpenHealthKit.
///
/// A producer that can wait awaits ``wait()`` after sending, outside any lock of the sensor's (a sensor's
/// ``SensorOutlet/waitForDemand()``): the task is suspended, no thread blocks. A producer that cannot wait (a
/// callback on a thread that must not stall) goes on sending; its consumer keeps what it sends and counts it.
///
/// Checking costs one atomic load while the pressure is off, as it is unless the disk is slower than the sensors:
/// ``wait()`` runs on its caller's executor (`nonisolated(nonsending)`), so a producer on the main actor pays no hop
/// to the global executor and back for a check that finds nothing to wait for.
public final class SensorBackPressure: Sendable {
    private let raised = Atomic<Bool>(false)
    private let waiters = Mutex<Waiters>(Waiters())

    private struct Waiters {
        var next: UInt64 = 0
        var continuations: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    public init() {}

    /// Whether producers are asked to wait.
    public var isRaised: Bool { raised.load(ordering: .acquiring) }

    /// Asks producers to wait from now on.
    public func raise() {
        waiters.withLock { _ in raised.store(true, ordering: .releasing) }
    }

    /// Lets every waiting producer go on; the tasks are resumed after the lock is released.
    public func release() {
        let ready = waiters.withLock { waiters -> [CheckedContinuation<Void, Never>] in
            raised.store(false, ordering: .releasing)
            defer { waiters.continuations.removeAll() }
            return Array(waiters.continuations.values)
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns at once while the pressure is off; otherwise suspends the calling task until ``release()``. A
    /// cancelled task returns at once (its producer is being torn down).
    nonisolated(nonsending) public func wait() async {
        guard isRaised else { return }
        let id = waiters.withLock { waiters in
            defer { waiters.next += 1 }
            return waiters.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waiting = waiters.withLock { waiters in
                    guard raised.load(ordering: .acquiring), !Task.isCancelled else { return false }
                    waiters.continuations[id] = continuation
                    return true
                }
                if !waiting { continuation.resume() }
            }
        } onCancel: {
            waiters.withLock { $0.continuations.removeValue(forKey: id) }?.resume()
        }
    }
}
