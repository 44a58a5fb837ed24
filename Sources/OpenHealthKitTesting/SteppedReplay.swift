import FitnessSensors
import Foundation
import OpenHealthKit

/// A fixture replayed through the live pipeline one step at a time, on a ``TestClock``: the same sensors, decoders,
/// session, builder, data source and zone engine as `workout replay`, with the test deciding when time moves.
///
/// ```swift
/// let clock = TestClock()
/// let store = HKHealthStore.testing(clock: clock)
/// try await store.authorizeWorkoutTypes()
/// let replay = try SteppedReplay(fixtureAt: "fixtures/intervals-pauses-laps.jsonl", healthStore: store, clock: clock)
/// try await replay.begin()
/// try await replay.advance(by: .seconds(600))               // the warm-up
/// let activity = try await replay.runUntil { replay.builder.workoutEvents.contains { $0.type == .lap } }
/// let workout = try await replay.finish()
/// ```
///
/// Before each event the clock is moved to the event's time, so the store's wall clock reads fixture time, the
/// journal's flush timer runs as it would, and `elapsedTime`, statistics and zones are what a watch would show at
/// that moment. OpenHealthKitTesting.
public final class SteppedReplay: Sendable {
    public let replay: WorkoutReplay
    public let clock: TestClock

    /// Checks the fixture and sets up the session, builder and data source; the session starts at the clock's
    /// current wall time.
    public init(fixtureAt path: String, healthStore: HKHealthStore, clock: TestClock) throws {
        self.clock = clock
        replay = try WorkoutReplay(fixtureAt: path, healthStore: healthStore, start: clock.date)
    }

    public var session: HKWorkoutSession { replay.session }
    public var builder: HKLiveWorkoutBuilder { replay.builder }
    public var dataSource: HKLiveWorkoutDataSource { replay.dataSource }
    public var sensors: [FixtureSensor] { replay.sensors }
    /// Fixture seconds replayed so far.
    public var position: TimeInterval { clock.date.timeIntervalSince(replay.sessionStart) }

    /// Starts the session and the builder at the clock's time.
    public func begin() async throws {
        try await replay.begin()
    }

    /// Moves the clock to an event's time and carries the event out. Returns false at the end of the fixture.
    @discardableResult
    public func step() async throws -> Bool {
        guard let date = replay.nextEventDate else { return false }
        move(to: date)
        return try await replay.step()
    }

    /// Replays every event up to `duration` from where the replay is, and moves the clock there.
    public func advance(by duration: Duration) async throws {
        let target = clock.date + Self.seconds(duration)
        while let date = replay.nextEventDate, date <= target {
            try await step()
        }
        move(to: target)
    }

    /// Replays events until `condition` holds after one (checked after each event); returns whether it did before
    /// the end of the fixture.
    @discardableResult
    public func runUntil(_ condition: () -> Bool) async throws -> Bool {
        while try await step() {
            if condition() { return true }
        }
        return false
    }

    /// Replays until the session begins a new activity (a triathlon's next leg); returns it, or nil at the end.
    public func runUntilActivityBegins() async throws -> HKWorkoutActivity? {
        let before = builder.workoutActivities.count
        guard try await runUntil({ builder.workoutActivities.count > before }) else { return nil }
        return builder.workoutActivities.last
    }

    /// Replays the rest, ends the session at the last event and saves the workout.
    public func finish() async throws -> HKWorkout {
        while try await step() {}
        return try await replay.finish()
    }

    private func move(to date: Date) {
        let ahead = date.timeIntervalSince(clock.date)
        if ahead > 0 { clock.advance(by: .nanoseconds(Int64((ahead * 1e9).rounded()))) }
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
