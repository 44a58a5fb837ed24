import Synchronization

/// When a connected sensor last delivered, shared between the notification loop and the stale
/// watchdog. Instants come from the sensor's injected clock.
final class ArrivalWatch<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    private struct State {
        var last: Instant
        var isStale = false
    }

    private let state: Mutex<State>
    let staleAfter: Duration

    init(connectedAt instant: Instant, staleAfter: Duration) {
        state = Mutex(State(last: instant))
        self.staleAfter = staleAfter
    }

    /// The instant at which the sensor becomes stale if nothing arrives before it.
    var deadline: Instant { state.withLock { $0.last.advanced(by: staleAfter) } }

    /// Records an arrival; returns whether the sensor had been reported stale (so it is live again).
    func arrived(at instant: Instant) -> Bool {
        state.withLock {
            let wasStale = $0.isStale
            $0.last = instant
            $0.isStale = false
            return wasStale
        }
    }

    /// Marks the sensor stale if nothing arrived for `staleAfter` before `now`; returns whether
    /// this call did so (each silence is reported once).
    func markStaleIfSilent(now: Instant) -> Bool {
        state.withLock {
            guard !$0.isStale, $0.last.advanced(by: staleAfter) <= now else { return false }
            $0.isStale = true
            return true
        }
    }
}
