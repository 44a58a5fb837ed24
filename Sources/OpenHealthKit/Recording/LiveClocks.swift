import Dispatch
import Foundation
import HealthKitModel
import WorkoutEngine

/// The clocks a store's live recordings run on, injected when the store is made. OpenHealthKit.
///
/// - `wall` stamps everything recorded: samples, events, activities, session changes.
/// - `monotonic` paces what is about real time rather than workout time: the journal's flush timer and the age of
///   buffered samples (what a crash may lose), and the spacing of coalesced delegate deliveries. Tests pass a manual
///   clock and move it themselves: no real timer runs and nothing depends on elapsed milliseconds.
/// - `pacing` paces replays (`WorkoutReplay`): a virtual clock there replays a fixture instantly.
/// - `deliverySpacing` is the shortest time between two coalesced `didCollectDataOf` deliveries.
///
/// The recording core never reads a clock: its shell reads these and passes the instants in.
public struct LiveClocks: Sendable {
    public var wall: @Sendable () -> Date
    public var monotonic: any Clock<Duration>
    public var pacing: any Clock<Duration>
    public var deliverySpacing: Duration

    public init(
        wall: @escaping @Sendable () -> Date = { Date() },
        monotonic: any Clock<Duration> = ContinuousClock(),
        pacing: any Clock<Duration> = ContinuousClock(),
        deliverySpacing: Duration = .milliseconds(1)
    ) {
        self.wall = wall
        self.monotonic = monotonic
        self.pacing = pacing
        self.deliverySpacing = deliverySpacing
    }

    /// The machine's clocks.
    public static var system: LiveClocks { LiveClocks() }
}

/// A monotonic clock reduced to what the shell needs: the time since the recording began, and sleeping until a
/// later such time. Made from any `Clock<Duration>` once, so the hot path reads `now` without opening an
/// existential per reading.
struct MonotonicTime: Sendable {
    /// The time elapsed since this value was made.
    let now: @Sendable () -> Duration
    /// Sleeps until `now()` reaches the given time.
    let sleep: @Sendable (_ until: Duration) async throws -> Void
    /// Whether this is the machine's continuous clock, whose deadlines dispatch can keep without a task.
    let isSystem: Bool

    init(_ clock: any Clock<Duration>) {
        self = Self.make(clock)
    }

    private init(
        now: @escaping @Sendable () -> Duration, sleep: @escaping @Sendable (Duration) async throws -> Void,
        isSystem: Bool
    ) {
        self.now = now
        self.sleep = sleep
        self.isSystem = isSystem
    }

    private static func make<C: Clock>(_ clock: C) -> MonotonicTime where C.Duration == Duration {
        let origin = clock.now
        return MonotonicTime(
            now: { origin.duration(to: clock.now) },
            sleep: { until in try await clock.sleep(until: origin.advanced(by: until), tolerance: nil) },
            isSystem: clock is ContinuousClock)
    }

    /// Runs `work` on `queue` once `now()` has reached `deadline`: through dispatch's own timer on the machine's
    /// clock, through a task sleeping on the injected clock otherwise.
    func run(at deadline: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        let delay = deadline - now()
        if delay <= .zero {
            queue.async(execute: work)
        } else if isSystem {
            let (seconds, attoseconds) = delay.components
            queue.asyncAfter(
                deadline: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)),
                execute: work)
        } else {
            let sleep = self.sleep
            Task {
                try? await sleep(deadline)
                queue.async(execute: work)
            }
        }
    }
}
