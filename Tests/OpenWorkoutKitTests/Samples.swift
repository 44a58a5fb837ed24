import Foundation
import OpenHealthKit
import OpenWorkoutKit

/// The eight `.workout` files Apple's WorkoutKit wrote (`Fixtures/samples`, from github.com/bibixx/workoutkit, MIT),
/// and each plan built with the initializers from the description beside it (`<name>.md`).
enum Samples {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/samples")

    static func bytes(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent("\(name).workout"))
    }

    static let names = plans.keys.sorted()

    static let plans: [String: WorkoutPlan] = [
        "custom-hiit-mixed": WorkoutPlan(
            .custom(
                CustomWorkout(
                    activity: .highIntensityIntervalTraining, location: .indoor, displayName: "Pyramid HIIT",
                    warmup: WorkoutStep(goal: .time(5, .minutes)),
                    blocks: [
                        IntervalBlock(
                            steps: [
                                IntervalStep(.work, step: WorkoutStep(goal: .time(30, .seconds), displayName: "Hard")),
                                IntervalStep(.recovery, goal: .time(15, .seconds)),
                            ], iterations: 2),
                        IntervalBlock(
                            steps: [
                                IntervalStep(
                                    .work, step: WorkoutStep(goal: .time(45, .seconds), displayName: "Harder")),
                                IntervalStep(.recovery, goal: .time(30, .seconds)),
                            ], iterations: 2),
                    ],
                    cooldown: WorkoutStep(goal: .time(3, .minutes)))),
            id: UUID(uuidString: "00000000-0000-4000-8000-000000000004")!),
        "custom-pool-swim": WorkoutPlan(
            .custom(
                CustomWorkout(
                    activity: .swimming, location: .outdoor, displayName: "Budapest Swim #2 - Endurance",
                    warmup: WorkoutStep(goal: .distance(200, .meters)),
                    blocks: [
                        IntervalBlock(
                            steps: [
                                IntervalStep(
                                    .work, step: WorkoutStep(goal: .distance(200, .meters), displayName: "Freestyle")),
                                IntervalStep(.recovery, goal: .time(40, .seconds)),
                            ], iterations: 4),
                        IntervalBlock(
                            steps: [
                                IntervalStep(
                                    .work, step: WorkoutStep(goal: .distance(200, .meters), displayName: "Backstroke"))
                            ], iterations: 1),
                    ],
                    cooldown: WorkoutStep(goal: .distance(100, .meters)))),
            id: UUID(uuidString: "00000000-0000-4000-8000-000000000001")!),
        "custom-swim-pool-dist-time": WorkoutPlan(
            .custom(
                CustomWorkout(
                    activity: .swimming, location: .outdoor, displayName: "4\u{00D7}100 on 2:00",
                    blocks: [
                        IntervalBlock(
                            steps: [
                                IntervalStep(
                                    .work,
                                    goal: .poolSwimDistanceWithTime(
                                        Measurement(value: 100, unit: .meters), Measurement(value: 2, unit: .minutes)))
                            ], iterations: 4)
                    ])),
            id: UUID(uuidString: "00000000-0000-4000-8000-000000000401")!),
        "custom-unknown-location": WorkoutPlan(
            .custom(CustomWorkout(activity: .yoga, blocks: [IntervalBlock(steps: [IntervalStep(.work)])])),
            id: UUID(uuidString: "00000000-0000-4000-8000-00000000000A")!),
        "goal-running-distance": WorkoutPlan(
            .goal(SingleGoalWorkout(activity: .running, location: .outdoor, goal: .distance(5, .kilometers))),
            id: UUID(uuidString: "00000000-0000-4000-8000-000000000064")!),
        "goal-swim-openwater": WorkoutPlan(
            .goal(
                SingleGoalWorkout(
                    activity: .swimming, location: .outdoor, swimmingLocation: .openWater,
                    goal: .distance(2, .kilometers))),
            id: UUID(uuidString: "00000000-0000-4000-8000-00000000006A")!),
        "pacer-run-5km-25min": WorkoutPlan(
            .pacer(
                PacerWorkout(
                    activity: .running, location: .outdoor, distance: Measurement(value: 5, unit: .kilometers),
                    time: Measurement(value: 25, unit: .minutes))),
            id: UUID(uuidString: "00000000-0000-4000-8000-0000000000C8")!),
        "sbr-triathlon-open": WorkoutPlan(
            .swimBikeRun(
                SwimBikeRunWorkout(
                    activities: [.swimming(.openWater), .cycling(.outdoor), .running(.outdoor)],
                    displayName: "Triathlon")),
            id: UUID(uuidString: "00000000-0000-4000-8000-00000000012D")!),
    ]
}
