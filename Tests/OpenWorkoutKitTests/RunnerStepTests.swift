import Foundation
import OpenHealthKit
import OpenWorkoutKit
import Testing

/// A WorkoutKit plan as OpenHealthKit's plan runner walks it: names, goals in seconds, metres and kilocalories, the
/// power alert as the target and the other alerts as what a step watches.
@Suite struct RunnerStepTests {
    @Test func aCustomWorkoutBecomesRunnerSteps() {
        let plan = WorkoutPlan(
            .custom(
                CustomWorkout(
                    activity: .cycling, location: .indoor,
                    warmup: WorkoutStep(goal: .time(10, .minutes), alert: .power(150, unit: .watts)),
                    blocks: [
                        IntervalBlock(
                            steps: [
                                IntervalStep(.work, goal: .distance(2, .kilometers), alert: .power(zone: 4)),
                                IntervalStep(
                                    .recovery, goal: .energy(50, .kilocalories),
                                    alert: .power(0.1 ... 0.15, unit: .kilowatts)),
                            ], iterations: 2)
                    ],
                    cooldown: WorkoutStep(goal: .open, alert: .heartRate(100 ... 130), displayName: "Spin out"))))
        typealias Alert = PlanRunner.Step.Alert
        #expect(
            plan.runnerSteps == [
                .init(name: "Warm-up", goal: .time(600), power: .threshold(150)),
                .init(name: "Work 1/2", goal: .distance(2000), power: .zone(4)),
                .init(name: "Recovery 1/2", goal: .energy(50), power: .range(100 ... 150)),
                .init(name: "Work 2/2", goal: .distance(2000), power: .zone(4)),
                .init(name: "Recovery 2/2", goal: .energy(50), power: .range(100 ... 150)),
                .init(
                    name: "Spin out", goal: .open,
                    alerts: [Alert(quantity: .heartRate, bound: .range(100 ... 130))]),
            ])
        // A cadence threshold and an average speed range are watched with their metric; 36 km/h is 10 m/s.
        let watched = WorkoutPlan(
            .custom(
                CustomWorkout(
                    activity: .cycling,
                    blocks: [
                        IntervalBlock(steps: [
                            IntervalStep(.work, goal: .time(1, .hours), alert: .cadence(85)),
                            IntervalStep(
                                .work, goal: .time(30, .seconds),
                                alert: .speed(36 ... 45, unit: .kilometersPerHour, metric: .average)),
                        ])
                    ]))
        ).runnerSteps
        #expect(watched.map(\.goal) == [.time(3600), .time(30)])
        #expect(watched[0].alerts == [Alert(quantity: .cadence, bound: .threshold(85))])
        #expect(watched[1].alerts.first?.metric == .average)
        if case .range(let range) = watched[1].alerts.first?.bound {
            // (Foundation converts km/h with a coefficient of 0.277778, not exactly 1/3.6.)
            #expect(abs(range.lowerBound - 10) < 1e-4 && abs(range.upperBound - 12.5) < 1e-4)
        } else {
            Issue.record("not a range: \(watched[1].alerts)")
        }
    }

    /// The options take the plan: its steps, and its bytes to save with the workout.
    @Test func recordingOptionsTakeThePlan() throws {
        var options = LiveRecording.Options()
        let plan = WorkoutPlan(.goal(SingleGoalWorkout(activity: .cycling, goal: .time(20, .minutes))))
        try options.setWorkoutPlan(plan)
        #expect(options.plan?.steps == [.init(name: "Work", goal: .time(1200))])
    }
}
