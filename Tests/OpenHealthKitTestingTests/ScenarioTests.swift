import FitnessSensors
import FixtureSynthesis
import Foundation
import OpenHealthKit
import OpenHealthKitTesting
import Testing

/// A scenario written as a downstream test would write it, made into a fixture and replayed.
@Suite(.timeLimit(.minutes(1))) struct ScenarioTests {
    /// "10 minutes of warm-up at 110–130 bpm, 5 × (3 min at 300 W, 2 min easy), a 40 s strap dropout in the third
    /// interval, a 1-minute pause."
    static let intervals = WorkoutScenario(name: "vo2-intervals", activity: "cycling", location: "indoor", seed: 7) {
        Step.warmUp(minutes: 10, heartRate: 110 ... 130, watts: 140)
        Step.repeat(5) {
            Step.ride(minutes: 3, watts: 300).lap()
            Step.easy(minutes: 2)
        }
        Step.pause(minutes: 1)
        Step.easy(minutes: 5)
    }
    // The third interval starts at 600 + 2 × 300 = 1200 s; the dropout is 60 s into it.
    .dropout(.strap, at: .seconds(1260), for: .seconds(40))

    func temporaryPath() -> String { NSTemporaryDirectory() + "ohk-scenario-" + UUID().uuidString + ".jsonl" }

    @Test func theSameSeedGivesTheSameBytes() throws {
        let a = temporaryPath(), b = temporaryPath()
        defer {
            try? FileManager.default.removeItem(atPath: a)
            try? FileManager.default.removeItem(atPath: b)
        }
        try Self.intervals.writeFixture(to: a)
        try Self.intervals.writeFixture(to: b)
        #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == Data(contentsOf: URL(fileURLWithPath: b)))
        var other = Self.intervals
        other.seed = 8
        try other.writeFixture(to: b)
        #expect(try Data(contentsOf: URL(fileURLWithPath: a)) != Data(contentsOf: URL(fileURLWithPath: b)))
    }

    @Test func theFixtureHoldsTheStepsTheDropoutAndThePause() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.intervals.writeFixture(to: path)
        let reader = try FixtureReader(path: path)
        var strapSeconds = Set<Int>()
        var strapLinks: [(Double, String)] = []
        var actions: [(Double, FixtureAction)] = []
        while let event = try reader.next() {
            switch event.kind {
            case .notification(0, HeartRateMeasurement.characteristicUUID, _): strapSeconds.insert(Int(event.seconds))
            case let .connection(0, state): strapLinks.append((event.seconds, "\(state)"))
            case .action(let action): actions.append((event.seconds, action))
            default: break
            }
        }
        // 10 + 25 + 1 + 5 minutes = 2460 s; the strap is silent from 1260 to 1299 s.
        #expect(strapSeconds.count == 2460 - 40)
        #expect(!strapSeconds.contains(1260) && !strapSeconds.contains(1299) && strapSeconds.contains(1300))
        #expect(strapLinks.map(\.0) == [1260.001, 1300, 1300.001])
        #expect(actions.filter { $0.1 == .lap }.map(\.0) == [600, 900, 1200, 1500, 1800])
        #expect(actions.filter { $0.1 == .pause }.map(\.0) == [2100])
        #expect(actions.filter { $0.1 == .resume }.map(\.0) == [2160])
        #expect(actions.last?.1 == .end && actions.last?.0 == 2460)
    }

    /// The scenario through the live pipeline, stepped on a test clock: the warm-up's heart rate ends in its range,
    /// the pause is not counted, and each interval is a lap.
    @Test func theScenarioReplaysThroughTheLivePipeline() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.intervals.writeFixture(to: path)
        let clock = TestClock(start: FixtureSynthesizer.recordedStart)
        let store = HKHealthStore.testing(clock: clock)
        try await store.authorizeWorkoutTypes()
        let replay = try SteppedReplay(fixtureAt: path, healthStore: store, clock: clock)
        try await replay.begin()
        try await replay.advance(by: .seconds(599))
        let heartRate = try #require(
            replay.builder.statistics(for: HKQuantityType(.heartRate))?.mostRecentQuantity()?
                .doubleValue(for: HKUnit(from: "count/min")))
        #expect((105 ... 135).contains(heartRate), "the model's heart lags the ramp a little: \(heartRate)")
        let workout = try await replay.finish()
        #expect(workout.duration == 2460 - 60)
        #expect(workout.workoutEvents?.filter { $0.type == .lap }.count == 5)
    }
}
