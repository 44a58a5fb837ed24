import FitnessSensors
import Foundation
import OpenHealthKit
import OpenHealthKitTesting
import Testing

/// The testing kit, used as a downstream package uses it: only public API.
@Suite(.timeLimit(.minutes(1))) struct TestingKitTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures")

    /// A live session on a test clock and a test store, reading `sensor`, collecting from the clock's start.
    static func session(
        _ activity: HKWorkoutActivityType, sensor: ScriptedSensor
    ) async throws
        -> (TestClock, HKWorkoutSession, HKLiveWorkoutBuilder)
    {
        let clock = TestClock()
        let store = HKHealthStore.testing(clock: clock)
        try await store.authorizeWorkoutTypes()
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = activity
        let session = try HKWorkoutSession(healthStore: store, configuration: configuration)
        let builder = session.associatedWorkoutBuilder()
        let source = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration)
        source.attach(sensor)
        builder.dataSource = source
        session.startActivity(with: nil)
        try await builder.beginCollection(at: clock.date)
        return (clock, session, builder)
    }

    /// The test clock is the store's wall clock and its flush timer: a live session's time is the test's.
    @Test func aSessionRunsOnTheTestClock() async throws {
        let strap = ScriptedSensor(identifier: "test:strap", name: "Strap", capabilities: .heartRateStrap)
        let (clock, session, builder) = try await Self.session(.running, sensor: strap)
        let events = LiveBuilderEvents(builder)
        strap.send(heartRate: 120, at: clock.date)
        let collected = try await events.first { if case .collected = $0 { true } else { false } }
        guard case .collected(let types) = collected else { return }
        #expect(types == [HKQuantityType(.heartRate)])
        clock.advance(by: .seconds(90))
        #expect(builder.elapsedTime == 90)
        session.pause()
        clock.advance(by: .seconds(30))
        #expect(builder.elapsedTime == 90, "a pause stops the elapsed time")
        session.end()
        try await builder.endCollection(at: clock.date)
        let workout = try #require(try await builder.finishWorkout())
        #expect(workout.duration == 90)
    }

    /// A wait for sleepers that never come fails at its limit, naming what it waited for, instead of hanging the
    /// suite; one that is met returns at once, and a sleeper arriving later releases it.
    @Test func aWaitForSleepersEndsAtItsLimit() async throws {
        let clock = TestClock()
        let error = await #expect(throws: WaitTimedOut.self) {
            try await clock.waitForSleepers(1, within: .milliseconds(100))
        }
        #expect(
            error?.description
                == "Waited 0.1 seconds for 1 task(s) sleeping on the test clock (0 did); it did not happen.")
        let sleeper = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(5))) }
        try await clock.waitForSleepers(1, within: .seconds(30))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(5))
        try await sleeper.value
        try await clock.waitForSleepers(0, within: .milliseconds(1))
    }

    /// A stepped replay reaches the same workout as an instant one, and can be stopped anywhere on the way.
    @Test func aSteppedReplayIsTheInstantReplay() async throws {
        let path = Self.fixtures.appendingPathComponent("intervals-pauses-laps.jsonl").path
        let clock = TestClock(start: Date(timeIntervalSince1970: 1_795_158_000))
        let store = HKHealthStore.testing(clock: clock)
        try await store.authorizeWorkoutTypes()
        let stepped = try SteppedReplay(fixtureAt: path, healthStore: store, clock: clock)
        try await stepped.begin()
        try await stepped.advance(by: .seconds(599))
        // The fixture's warm-up is 600 s with a marker at 0, and the first lap at 600 s.
        #expect(stepped.builder.elapsedTime == 599)
        #expect(stepped.builder.workoutEvents.map(\.type) == [.marker])
        #expect(try await stepped.runUntil { stepped.builder.workoutEvents.contains { $0.type == .lap } })
        #expect(stepped.position == 600)
        let workout = try await stepped.finish()

        let reference = HKHealthStore.inMemory(clientIdentifier: "reference", sensorConnector: .none)
        try await reference.authorizeWorkoutTypes()
        let instant = try await WorkoutReplay(fixtureAt: path, healthStore: reference).run(pace: .instant)
        #expect(workout.duration == instant.duration)
        for type in [HKQuantityType(.heartRate), HKQuantityType(.cyclingPower)] {
            #expect(
                workout.statistics(for: type)?.averageQuantity() == instant.statistics(for: type)?.averageQuantity())
        }
        #expect(
            workout.zoneGroup(for: HKQuantityType(.heartRate))?.zoneDurations.map(\.duration)
                == instant.zoneGroup(for: HKQuantityType(.heartRate))?.zoneDurations.map(\.duration))
    }

    /// A scripted strap that drops out: the data source hears it, nothing is bridged, and the workout shows the gap.
    @Test func scriptedDropoutsAndReconnects() async throws {
        let meter = ScriptedSensor(identifier: "test:meter", name: "Meter", capabilities: .powerMeter)
        let (clock, session, builder) = try await Self.session(.cycling, sensor: meter)
        for second in 0 ..< 60 {
            // 200 W for a minute, with the meter out of range from 20 s to 40 s.
            if second == 20 { meter.drop(at: clock.date) }
            if second == 40 { meter.reconnect(at: clock.date) }
            if second < 20 || second >= 40 { meter.send(power: 200, at: clock.date) }
            clock.advance(by: .seconds(1))
        }
        session.end()
        try await builder.endCollection(at: clock.date)
        let workout = try #require(try await builder.finishWorkout())
        // Energy: 19 s before the drop and 19 s after it at 200 W: 2 × 19 × 200 / 1000 = 7.6 kJ, counted as kcal.
        let energy = try #require(workout.statistics(for: HKQuantityType(.activeEnergyBurned))?.sumQuantity())
        #expect(abs(energy.doubleValue(for: .kilocalorie()) - 7.6) < 1e-9)
    }
}
