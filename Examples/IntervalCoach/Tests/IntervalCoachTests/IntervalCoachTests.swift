import FixtureSynthesis
import Foundation
import IntervalCoach
import OpenHealthKit
import OpenHealthKitTesting
import Testing

/// The coach's logic, driven by recorded sensor data through Apple's API on a test clock.
@Suite(.timeLimit(.minutes(2))) struct IntervalCoachTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A store on a test clock, and a coach listening to a stepped replay of `fixture`.
    func replaying(_ fixture: String) async throws -> (SteppedReplay, IntervalCoach) {
        let clock = TestClock(start: FixtureSynthesizer.recordedStart)
        let store = HKHealthStore.testing(clock: clock)
        try await store.authorizeWorkoutTypes()
        let replay = try SteppedReplay(fixtureAt: fixture, healthStore: store, clock: clock)
        let coach = IntervalCoach()
        replay.builder.delegate = coach
        try await replay.begin()
        return (replay, coach)
    }

    /// Five hard efforts after an easy warm-up (the zones are OpenHealthKit's defaults: 137, 148, 158 and 169
    /// count/min). The coach starts in zone 1, goes up in every interval and down in every recovery.
    @Test func theCoachFollowsTheIntervals() async throws {
        let scenario = WorkoutScenario(name: "coach", activity: "cycling", location: "indoor", seed: 21) {
            Step.warmUp(minutes: 10, heartRate: 100 ... 120, watts: 130)
            Step.repeat(5) {
                Step.ride(minutes: 3, watts: 320).lap()
                Step.easy(minutes: 3)
            }
        }
        let path = NSTemporaryDirectory() + "coach-" + UUID().uuidString + ".jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try scenario.writeFixture(to: path)
        let (replay, coach) = try await replaying(path)

        // Ten minutes in: warming up, in zone 1, and the coach has said so once.
        try await replay.advance(by: .seconds(600))
        await replay.builder.waitForDelegateCalls()
        #expect(coach.announcements.map(\.zone) == [1])

        let workout = try await replay.finish()
        let said = coach.announcements
        // Each 3-minute effort (from 600 s, every 360 s) reaches zone 4 or 5; each recovery comes back to zone 1.
        for interval in 0 ..< 5 {
            let start = replay.replay.sessionStart + 600 + Double(interval * 360)
            let during = said.filter { $0.date >= start && $0.date < start + 180 }
            #expect((during.map(\.zone).max() ?? 0) >= 4, "interval \(interval + 1): \(during.map(\.text))")
            let recovery = said.filter { $0.date >= start + 180 && $0.date < start + 360 }
            #expect(recovery.last?.zone == 1, "recovery \(interval + 1): \(recovery.map(\.text))")
        }
        // Every announcement is a change, and the saved workout's zones cover the whole workout.
        #expect(zip(said, said.dropFirst()).allSatisfy { $0.zone != $1.zone })
        let zones = try #require(workout.zoneGroup(for: HKQuantityType(.heartRate)))
        #expect(abs(zones.zoneDurations.map(\.duration).reduce(0, +) - workout.duration) < 2)
    }

    /// The repository's 90-minute ride, replayed in full with the coach listening: the shape of the ride (three
    /// 5-minute efforts at 285 W) shows in what it said. How long this takes is the kit's benchmark.
    @Test func theNinetyMinuteRide() async throws {
        let started = ContinuousClock.now
        let (replay, coach) = try await replaying(
            Self.repository.appendingPathComponent("fixtures/ride-90min.jsonl").path)
        let workout = try await replay.finish()
        let elapsed = started.duration(to: .now)
        #expect(workout.duration == 90 * 60)
        let power = try #require(
            workout.statistics(for: HKQuantityType(.cyclingPower))?.averageQuantity()?.doubleValue(for: .watt()))
        #expect((190 ... 200).contains(power), "the ride averages about 195 W")
        #expect(coach.announcements.map(\.zone).max() ?? 0 >= 4)
        print("replayed the 90-minute ride with the coach in \(elapsed)")
    }
}
