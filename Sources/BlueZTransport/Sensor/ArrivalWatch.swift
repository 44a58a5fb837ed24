import Foundation
import Synchronization

/// When a connected sensor last delivered, shared between the notification loop and the stale
/// watchdog. Instants come from the sensor's injected clock.
///
/// Lock-free: a notification only stores its arrival (nanoseconds after the connection) and
/// clears the stale flag, so the watch costs the reading path no lock. The watchdog compares the
/// latest arrival with its deadline; an arrival racing the check at the very deadline may be
/// reported stale once and live again at the next notification.
package final class ArrivalWatch<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    private let connectedAt: Instant
    /// The latest arrival, in nanoseconds after `connectedAt`.
    private let last = Atomic<Int64>(0)
    private let isStale = Atomic<Bool>(false)
    package let staleAfter: Duration

    package init(connectedAt instant: Instant, staleAfter: Duration) {
        connectedAt = instant
        self.staleAfter = staleAfter
    }

    private var lastArrival: Instant {
        connectedAt.advanced(by: .nanoseconds(last.load(ordering: .acquiring)))
    }

    /// The instant at which the sensor becomes stale if nothing arrives before it.
    package var deadline: Instant { lastArrival.advanced(by: staleAfter) }

    /// Records an arrival; returns whether the sensor had been reported stale (so it is live again).
    package func arrived(at instant: Instant) -> Bool {
        let (seconds, attoseconds) = connectedAt.duration(to: instant).components
        last.store(seconds * 1_000_000_000 + attoseconds / 1_000_000_000, ordering: .releasing)
        return isStale.exchange(false, ordering: .acquiringAndReleasing)
    }

    /// Marks the sensor stale if nothing arrived for `staleAfter` before `now`; returns whether
    /// this call did so (each silence is reported once).
    package func markStaleIfSilent(now: Instant) -> Bool {
        guard !isStale.load(ordering: .acquiring), lastArrival.advanced(by: staleAfter) <= now else { return false }
        return isStale.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }

    /// Reports the sensor stale (`report`, with the sentence both transports print) each time nothing arrives for
    /// `staleAfter`, until cancelled: the watchdog of the raw and the D-Bus sensor alike.
    package func reportSilences<C: Clock>(on clock: C, _ report: (String) -> Void) async throws
    where C.Instant == Instant {
        while true {
            try await clock.sleep(until: deadline, tolerance: nil)
            if markStaleIfSilent(now: clock.now) {
                report("No data from the sensor for \(staleAfter.components.seconds) seconds.")
                try await clock.sleep(for: staleAfter)
            }
        }
    }
}

extension InstantProtocol where Duration == Swift.Duration {
    /// Seconds from `origin` to this instant: the arrival time a sensor stamps its readings with.
    package func seconds(since origin: Self) -> TimeInterval {
        let elapsed = origin.duration(to: self).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }
}
