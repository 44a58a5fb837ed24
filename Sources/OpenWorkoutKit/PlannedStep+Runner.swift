import Foundation
import OpenHealthKit

extension PlannedStep {
    /// The step as OpenHealthKit's plan runner walks it: its name (the step's display name, else its part of the plan:
    /// `Warm-up`, `Work 2/5`, `Recovery 2/5`, `Cool-down`), its goal in seconds, metres or kilocalories (a pool-swim
    /// goal by its time), its power alert as the trainer's target and its other alerts as what it watches.
    /// `iterations` is how many times the step's block runs (a block done once numbers no round). OpenHealthKit
    /// addition.
    public func runnerStep(iterations: Int? = nil) -> PlanRunner.Step {
        PlanRunner.Step(
            name: name(iterations: iterations), goal: Self.goal(step.goal), power: step.alert.flatMap(Self.power),
            alerts: step.alert.flatMap(Self.watched).map { [$0] } ?? [])
    }

    private func name(iterations: Int?) -> String {
        if let name = step.displayName, !name.isEmpty { return name }
        // A block done once needs no round number.
        let round =
            iteration.flatMap { iteration in
                iterations.map { $0 > 1 ? " \(iteration)/\($0)" : "" }
            } ?? ""
        switch kind {
        case .warmup: return "Warm-up"
        case .work: return "Work" + round
        case .recovery: return "Recovery" + round
        case .cooldown: return "Cool-down"
        }
    }

    private static func goal(_ goal: WorkoutGoal) -> PlanRunner.Step.Goal {
        switch goal {
        case .open: .open
        case .time(let value, let unit): .time(Measurement(value: value, unit: unit).converted(to: .seconds).value)
        case .distance(let value, let unit):
            .distance(Measurement(value: value, unit: unit).converted(to: .meters).value)
        case .energy(let value, let unit):
            .energy(Measurement(value: value, unit: unit).converted(to: .kilocalories).value)
        case .poolSwimDistanceWithTime(_, let time): .time(time.converted(to: .seconds).value)
        }
    }

    private static func power(_ alert: any WorkoutAlert) -> PlanRunner.Step.Power? {
        switch alert {
        case let alert as PowerRangeAlert:
            .range(
                alert.target.lowerBound.converted(to: .watts).value
                    ... alert.target.upperBound.converted(to: .watts).value)
        case let alert as PowerThresholdAlert: .threshold(alert.target.converted(to: .watts).value)
        case let alert as PowerZoneAlert: .zone(alert.zone)
        default: nil
        }
    }

    private static func watched(_ alert: any WorkoutAlert) -> PlanRunner.Step.Alert? {
        typealias Alert = PlanRunner.Step.Alert
        let perMinute = { (value: Measurement<UnitFrequency>) in
            value.converted(to: WorkoutAlertMetric.countPerMinute).value
        }
        let metresPerSecond = { (value: Measurement<UnitSpeed>) in value.converted(to: .metersPerSecond).value }
        let metric: Alert.Metric = alert.metric == .average ? .average : .current
        switch alert {
        case let alert as HeartRateRangeAlert:
            return Alert(
                quantity: .heartRate,
                bound: .range(perMinute(alert.target.lowerBound) ... perMinute(alert.target.upperBound)))
        case let alert as HeartRateZoneAlert: return Alert(quantity: .heartRate, bound: .zone(alert.zone))
        case let alert as CadenceRangeAlert:
            return Alert(
                quantity: .cadence,
                bound: .range(perMinute(alert.target.lowerBound) ... perMinute(alert.target.upperBound)))
        case let alert as CadenceThresholdAlert:
            return Alert(quantity: .cadence, bound: .threshold(perMinute(alert.target)))
        case let alert as SpeedRangeAlert:
            return Alert(
                quantity: .speed,
                bound: .range(metresPerSecond(alert.target.lowerBound) ... metresPerSecond(alert.target.upperBound)),
                metric: metric)
        case let alert as SpeedThresholdAlert:
            return Alert(quantity: .speed, bound: .threshold(metresPerSecond(alert.target)), metric: metric)
        default: return nil
        }
    }
}

extension WorkoutPlan {
    /// The plan's steps as OpenHealthKit's plan runner walks them (``plannedSteps``, each made a runner step).
    /// OpenHealthKit addition.
    public var runnerSteps: [PlanRunner.Step] {
        var iterations: [Int: Int] = [:]
        if case .custom(let custom) = workout {
            for (index, block) in custom.blocks.enumerated() { iterations[index] = block.iterations }
        }
        return plannedSteps.map { $0.runnerStep(iterations: $0.block.flatMap { iterations[$0] }) }
    }
}

extension LiveRecording.Options {
    /// Runs `plan` in the recording: its steps (``WorkoutPlan/runnerSteps``) drive the trainers' target and make
    /// a segment event each, and the saved workout keeps the plan (`HKWorkout.workoutPlan`). OpenHealthKit addition.
    ///
    /// - Throws: When the plan has no step, or cannot be encoded as a `.workout` file.
    public mutating func setWorkoutPlan(_ plan: WorkoutPlan) throws {
        let steps = plan.runnerSteps
        guard !steps.isEmpty else {
            throw HKError(.errorInvalidArgument, "The plan has no step to run.")
        }
        var run = self.plan ?? LiveRecording.Plan(steps: steps)
        run.steps = steps
        run.workoutPlanData = try plan.dataRepresentation
        self.plan = run
    }
}
