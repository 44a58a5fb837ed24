import Foundation
import OpenHealthKit
import OpenWorkoutKit
import Testing

/// Apple's default arguments (the "defaults to" notes of WorkoutKit's list): each call below leaves them out, so
/// this file compiles only if they exist, and checks the value each default gives.
@Suite struct AppleDefaultsTests {
    @Test func defaultArgumentsAreApples() throws {
        let step = WorkoutStep()
        #expect(step.goal == .open && step.alert == nil && step.displayName == nil)
        #expect(WorkoutStep(goal: .time(1, .minutes), displayName: "x").displayName == "x")
        let interval = IntervalStep(.work)
        #expect(interval.step == WorkoutStep())
        let block = IntervalBlock()
        #expect(block.steps.isEmpty && block.iterations == 1)
        let custom = CustomWorkout(activity: .running)
        #expect(custom.location == .unknown && custom.displayName == nil && custom.warmup == nil)
        #expect(custom.blocks.isEmpty && custom.cooldown == nil)
        let single = SingleGoalWorkout(activity: .running)
        #expect(single.location == .unknown && single.swimmingLocation == .unknown && single.goal == .open)
        let pacer = PacerWorkout(
            activity: .running, distance: Measurement(value: 5, unit: .kilometers),
            time: Measurement(value: 25, unit: .minutes))
        #expect(pacer.location == .unknown)
        #expect(SwimBikeRunWorkout(activities: [.running(.outdoor)]).displayName == nil)
        #expect(WorkoutPlan(.custom(custom)).id != WorkoutPlan(.custom(custom)).id)
        #expect(CustomWorkout.supportsGoal(.open, activity: .running))
        #expect(SingleGoalWorkout.supportsGoal(.open, activity: .running))
        #expect(CustomWorkout.supportsAlert(.heartRate(zone: 2), activity: .running))
        let heartRate: HeartRateRangeAlert = .heartRate(120 ... 140)
        #expect(heartRate.target.lowerBound.unit == WorkoutAlertMetric.countPerMinute)
        #expect(heartRate.targetQuantityUpperBound.doubleValue(for: .count().unitDivided(by: .minute())) == 140)
        let cadence: CadenceThresholdAlert = .cadence(90)
        #expect(cadence.targetQuantity.doubleValue(for: .count().unitDivided(by: .minute())) == 90)
        let cadenceRange: CadenceRangeAlert = .cadence(80 ... 100)
        #expect(cadenceRange.metric == .current)
        let speed: SpeedThresholdAlert = .speed(3, unit: .metersPerSecond)
        #expect(speed.metric == .current)
        let speedRange: SpeedRangeAlert = .speed(10 ... 20, unit: .kilometersPerHour)
        #expect(speedRange.metric == .current)
        #expect(
            abs(speedRange.targetQuantityUpperBound.doubleValue(for: .meter().unitDivided(by: .second())) - 20 / 3.6)
                < 1e-4)  // Foundation's km/h is 0.277778 m/s
        let power: PowerThresholdAlert = .power(1, unit: .kilowatts)
        #expect(power.metric == .current && power.targetQuantity.doubleValue(for: .watt()) == 1000)
        #expect(
            PowerRangeAlert(target: Measurement(value: 1, unit: .watts) ... Measurement(value: 2, unit: .watts)).metric
                == .current)
        #expect(WorkoutScheduler.maxAllowedScheduledWorkoutCount == 50)
        #expect(WorkoutScheduler.AuthorizationState(rawValue: 3) == .authorized)
    }
}
