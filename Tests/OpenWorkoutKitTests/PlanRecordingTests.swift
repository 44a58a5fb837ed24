import FitnessSensors
import Foundation
import OpenHealthKit
import OpenHealthKitTesting
import OpenWorkoutKit
import Synchronization
import Testing

/// An app runs a WorkoutKit plan as `workout record --plan` does, through the library alone: a `WorkoutPlan` built
/// with Apple's initializers, `LiveRecording` with the plan, OpenHealthKitTesting's simulated smart trainer (it
/// follows ERG with a 2 s lag) and its test clock, half a second a step.
@Suite(.timeLimit(.minutes(1))) struct PlanRecordingTests {
    /// A warm-up of 60 s at 150 W, 2 × (60 s at 250–270 W, 30 s at 150 W), a cool-down of 60 s at 120 W: 5 minutes.
    static let plan = WorkoutPlan(
        .custom(
            CustomWorkout(
                activity: .cycling, location: .indoor, displayName: "Two over-unders",
                warmup: WorkoutStep(goal: .time(60, .seconds), alert: .power(150, unit: .watts)),
                blocks: [
                    IntervalBlock(
                        steps: [
                            IntervalStep(.work, goal: .time(60, .seconds), alert: .power(250 ... 270, unit: .watts)),
                            IntervalStep(.recovery, goal: .time(30, .seconds), alert: .power(150, unit: .watts)),
                        ], iterations: 2)
                ],
                cooldown: WorkoutStep(goal: .time(60, .seconds), alert: .power(120, unit: .watts)))))
    /// Each step's start in seconds and the power it holds.
    static let steps: [(start: Double, watts: Double)] = [
        (0, 150), (60, 260), (120, 150), (150, 260), (210, 150), (240, 120),
    ]

    /// The live recording's tasks asleep on the test clock when nothing is under way: the plan's update loop and the
    /// journal's flush timer.
    static let idleSleepers = 2

    /// The plan's recording on a fresh test store with a simulated trainer paired, not started yet.
    static func planRecording() async throws -> (LiveRecording, HKHealthStore, TestClock, SimulatedSmartTrainer) {
        let clock = TestClock()
        let store = HKHealthStore.testing(clock: clock)
        try await store.authorizeWorkoutTypes()
        let trainer = SimulatedSmartTrainer(clock: clock)
        store.sensorConnector = SensorConnector(schemes: ["simulated"]) { _ in trainer }
        try await store.pairSensor(trainer.pairedSensor)
        var options = LiveRecording.Options()
        options.clock = clock
        try options.setWorkoutPlan(Self.plan)
        return (try await LiveRecording(healthStore: store, options: options), store, clock, trainer)
    }

    @Test func aPlanDrivesTheTrainerAndIsSavedWithTheWorkout() async throws {
        let (recording, store, clock, trainer) = try await Self.planRecording()
        let events = Mutex<[LiveRecording.PlanEvent]>([])
        try await recording.start(planEvents: { event in events.withLock { $0.append(event) } })
        let t0 = recording.startDate

        // Five minutes, half a second a step: the clock moves, the recording's tasks run and go back to sleep, the
        // trainer answers what it was asked, then it sends its record.
        var heldAtMiddle: [Double] = []
        for tick in 1 ... 600 {
            clock.advance(by: .milliseconds(500))
            try await recording.waitUntilIdle(on: clock, sleepers: Self.idleSleepers)
            trainer.ride()
            await trainer.waitForDemand()
            let second = Double(tick) / 2
            if Self.steps.contains(where: { second == $0.start + 15 }) { heldAtMiddle.append(trainer.targetPower) }
        }
        #expect(try await recording.end() == t0 + 300)
        let workout = try await recording.save()

        // Each step begins within a second of the plan's time, and the trainer holds its power from the middle on.
        let started = events.withLock { events in
            events.compactMap { event -> (Int, Date)? in
                guard case .runner(.stepStarted(let index, let at), _) = event else { return nil }
                return (index, at)
            }
        }
        #expect(started.map(\.0) == Array(0 ..< 6))
        for ((_, at), step) in zip(started, Self.steps) {
            #expect(abs(at.timeIntervalSince(t0) - step.start) <= 1, "a step began at \(at.timeIntervalSince(t0)) s")
        }
        #expect(events.withLock { $0.contains(.control(true)) })
        #expect(heldAtMiddle == Self.steps.map(\.watts))
        #expect(trainer.controlRequests.first?.request == .requestControl)
        #expect(trainer.controlRequests.allSatisfy { $0.result == .success })

        // What the store holds: each step's second half within 5 % of its power, a segment per step naming it, and
        // the plan itself.
        let power = try await HKSampleQueryDescriptor(
            predicates: [
                .quantitySample(
                    type: HKQuantityType(.cyclingPower), predicate: HKQuery.predicateForObjects(from: workout))
            ],
            sortDescriptors: [SortDescriptor(\.startDate)]
        ).result(for: store).map { ($0.startDate.timeIntervalSince(t0), $0.quantity.doubleValue(for: .watt())) }
        for (index, step) in Self.steps.enumerated() {
            let end = index + 1 < Self.steps.count ? Self.steps[index + 1].start : 300
            let half = power.filter { $0.0 >= (step.start + end) / 2 && $0.0 < end }.map(\.1)
            let average = half.reduce(0, +) / Double(max(half.count, 1))
            #expect(!half.isEmpty && abs(average - step.watts) / step.watts <= 0.05, "step \(index + 1): \(average) W")
        }
        let segments = (workout.workoutEvents ?? []).filter { $0.type == .segment }
        #expect(segments.count == 6)
        #expect(
            segments.map { $0.dateInterval.start.timeIntervalSince(t0).rounded() } == Self.steps.map(\.start),
            "\(segments.map(\.dateInterval))")
        #expect(try await store.workoutPlan(for: workout) == Self.plan)
    }

    /// The trainer drops 30 s into the warm-up and is back 15 s later: the plan goes on as guidance and says so,
    /// control is taken back when it returns, and the next step's power reaches the trainer on time.
    @Test func aTrainerThatDropsMidPlanIsTakenBackOnItsReturn() async throws {
        let (recording, _, clock, trainer) = try await Self.planRecording()
        let events = Mutex<[(Double, LiveRecording.PlanEvent)]>([])
        try await recording.start(planEvents: { event in
            events.withLock { $0.append((clock.date.timeIntervalSince(recording.startDate), event)) }
        })
        for tick in 1 ... 150 {
            clock.advance(by: .milliseconds(500))
            try await recording.waitUntilIdle(on: clock, sleepers: Self.idleSleepers)
            switch tick {
            case 60: trainer.drop()
            case 90: trainer.reconnect()
            default: break
            }
            try await recording.waitUntilIdle(on: clock, sleepers: Self.idleSleepers)
            trainer.ride()
            await trainer.waitForDemand()
        }
        let control = events.withLock {
            $0.compactMap { if case .control(let held) = $0.1 { ($0.0, held) } else { nil } }
        }
        #expect(control.map(\.1) == [true, false, true], "\(control)")
        #expect(control.dropFirst().first.map { abs($0.0 - 30) <= 1 } == true, "\(control)")
        #expect(control.last.map { abs($0.0 - 45) <= 1 } == true, "\(control)")
        // Control asked for twice: at the start and on the return.
        #expect(trainer.controlRequests.filter { $0.request == .requestControl }.count == 2)
        #expect(trainer.targetPower == 260)
        #expect(try await recording.end() == recording.startDate + 75)
        _ = try await recording.save()
    }
}
