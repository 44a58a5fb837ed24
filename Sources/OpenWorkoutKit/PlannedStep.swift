import Foundation
import OpenHealthKit

/// One step of a plan as a runner walks it: the warm-up, each step of each block for each iteration, the
/// cool-down, in order. OpenHealthKit addition (WorkoutKit leaves walking a plan to the Workout app).
public struct PlannedStep: Hashable, Sendable {
    /// What part of the plan a step is.
    public enum Kind: Hashable, Sendable {
        case warmup
        case work
        case recovery
        case cooldown
    }

    public var kind: Kind
    /// The step: its goal, alert and name.
    public var step: WorkoutStep
    /// The block it belongs to (from 0), nil for the warm-up, the cool-down and a workout without blocks.
    public var block: Int?
    /// The iteration of its block (from 1), nil outside a block.
    public var iteration: Int?
    /// When the step starts, in seconds from the plan's start: known while every earlier step has a time goal.
    public var start: TimeInterval?

    /// The step's length in seconds when its goal is a time (a pool-swim goal's time included), else nil.
    public var duration: TimeInterval? {
        switch step.goal {
        case .time(let value, let unit): Measurement(value: value, unit: unit).converted(to: .seconds).value
        case .poolSwimDistanceWithTime(_, let time): time.converted(to: .seconds).value
        default: nil
        }
    }

    public init(kind: Kind, step: WorkoutStep, block: Int? = nil, iteration: Int? = nil, start: TimeInterval? = nil) {
        self.kind = kind
        self.step = step
        self.block = block
        self.iteration = iteration
        self.start = start
    }
}

extension WorkoutPlan {
    /// The plan's steps in the order they are done: a custom workout's warm-up, its blocks' steps repeated for
    /// each iteration, its cool-down; a single-goal workout's goal as one step; a pacer workout as one step of its
    /// distance with its time as the pace; a swim-bike-run workout as one open step per leg. OpenHealthKit addition.
    public var plannedSteps: [PlannedStep] {
        var steps: [PlannedStep] = []
        switch workout {
        case .custom(let custom):
            if let warmup = custom.warmup { steps.append(PlannedStep(kind: .warmup, step: warmup)) }
            for (index, block) in custom.blocks.enumerated() where block.iterations > 0 {
                for iteration in 1 ... block.iterations {
                    for interval in block.steps {
                        steps.append(
                            PlannedStep(
                                kind: interval.purpose == .work ? .work : .recovery, step: interval.step, block: index,
                                iteration: iteration))
                    }
                }
            }
            if let cooldown = custom.cooldown { steps.append(PlannedStep(kind: .cooldown, step: cooldown)) }
        case .goal(let single):
            steps.append(PlannedStep(kind: .work, step: WorkoutStep(goal: single.goal)))
        case .pacer(let pacer):
            steps.append(
                PlannedStep(
                    kind: .work, step: WorkoutStep(goal: .distance(pacer.distance.value, pacer.distance.unit))))
        case .swimBikeRun(let legs):
            steps += legs.activities.map { _ in PlannedStep(kind: .work, step: WorkoutStep()) }
        }
        var elapsed: TimeInterval? = 0
        for index in steps.indices {
            steps[index].start = elapsed
            if let known = elapsed, let duration = steps[index].duration {
                elapsed = known + duration
            } else {
                elapsed = nil
            }
        }
        return steps
    }

    /// The plan's length in seconds when every step has a time goal (a pacer workout: its time), else nil.
    /// OpenHealthKit addition.
    public var plannedDuration: TimeInterval? {
        if case .pacer(let pacer) = workout { return pacer.time.converted(to: .seconds).value }
        let steps = plannedSteps
        guard !steps.isEmpty else { return nil }
        var total: TimeInterval = 0
        for step in steps {
            guard let duration = step.duration else { return nil }
            total += duration
        }
        return total
    }
}
