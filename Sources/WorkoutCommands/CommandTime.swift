import FitnessSensors
import Foundation
import OpenHealthKit

/// The time the commands that run for a while (`record`, `peripheral`, a paced `replay`) run in, and what they tell
/// whoever drives it.
///
/// The shipping tool runs them in ``MachineTime``: the machine's clocks, and nobody to tell. A program that links
/// this library may run the same commands in other time by setting ``Workout/time`` around ``Workout``'s `main()`:
/// the tool's tests do (`Tests/SteppedWorkoutHelper`), on clocks only a test moves. Nothing outside such a program
/// (no argument, no environment variable) changes the time a command runs in.
public protocol CommandTime: Sendable {
    /// What sensors (their reconnection backoff, staleness), the live display and a simulated peripheral's
    /// notifications sleep on.
    var clock: any Clock<Duration> { get }
    /// The wall-clock time, in step with ``clock``.
    var now: @Sendable () -> Date { get }
    /// The store's clocks (journal, delivery spacing, `--duration`, a paced replay's pacing); nil keeps the store's
    /// own.
    var storeClocks: LiveClocks? { get }

    /// The tap a recording gives its sensors, passing everything on to `next` (the `--save-fixture` recorder).
    func recordingTap(next: (any NotificationTap)?) -> (any NotificationTap)?
    /// A recording reads `sensors` sensors (what ``recordingTap(next:)`` returned hears them) and `loops` loops (its
    /// display, a plan's runner) sleep on ``clock``; it controls `trainers` (``trainersChanged()`` hears when one
    /// changed); it ends after `duration` seconds of the store's time, when one is given.
    func recordingStarted(sensors: Int, loops: Int, trainers: TrainerTargets?, duration: Double?)
    /// A trainer the recording controls changed: it answered a request, connected or dropped.
    func trainersChanged()
    /// A simulated peripheral listens; `sent` counts the notifications it has sent, `dropped` the links it has
    /// dropped or refused.
    func peripheralStarted(sent: @escaping @Sendable () async -> Int, dropped: @escaping @Sendable () -> Int)
    /// A paced replay has started. Returns whether this time draws the display's frames, with `draw`; if not, the
    /// replay runs its own display loop.
    func pacedReplayStarted(draw: @escaping @Sendable () async -> Void) -> Bool
    /// The recording or replay has stopped (its end was asked for, or it ran out).
    func ended()
}

/// The machine's clocks: what the shipping `workout` tool runs in.
public struct MachineTime: CommandTime {
    public init() {}

    public var clock: any Clock<Duration> { ContinuousClock() }
    public var now: @Sendable () -> Date { { Date() } }
    public var storeClocks: LiveClocks? { nil }
    public func recordingTap(next: (any NotificationTap)?) -> (any NotificationTap)? { next }
    public func recordingStarted(sensors: Int, loops: Int, trainers: TrainerTargets?, duration: Double?) {}
    public func trainersChanged() {}
    public func peripheralStarted(sent: @escaping @Sendable () async -> Int, dropped: @escaping @Sendable () -> Int) {}
    public func pacedReplayStarted(draw: @escaping @Sendable () async -> Void) -> Bool { false }
    public func ended() {}
}

extension Workout {
    /// The time commands run in: ``MachineTime`` unless a program running ``Workout`` sets another around `main()`
    /// (`await Workout.$time.withValue(time) { await Workout.main() }`).
    @TaskLocal public static var time: any CommandTime = MachineTime()
}
