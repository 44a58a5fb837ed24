import Foundation

/// One step of a custom workout: a goal, an optional alert and an optional name. WorkoutKit: WorkoutStep.
public struct WorkoutStep: Hashable, Sendable {
    /// When the step ends.
    public var goal: WorkoutGoal
    /// What the step watches, if anything.
    public var alert: (any WorkoutAlert)?
    /// The step's name as shown; nil and the empty string differ (both are kept in a `.workout` file).
    public var displayName: String?

    public init(goal: WorkoutGoal = .open, alert: (any WorkoutAlert)? = nil) {
        self.goal = goal
        self.alert = alert
    }

    public init(goal: WorkoutGoal = .open, alert: (any WorkoutAlert)? = nil, displayName: String? = nil) {
        self.goal = goal
        self.alert = alert
        self.displayName = displayName
    }

    public static func == (lhs: WorkoutStep, rhs: WorkoutStep) -> Bool {
        lhs.goal == rhs.goal && lhs.displayName == rhs.displayName && alertsEqual(lhs.alert, rhs.alert)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(goal)
        hasher.combine(displayName)
        hasher.combine(alert.map { AnyHashable($0) })
    }
}

/// A step of an interval block with its purpose, work or recovery. WorkoutKit: IntervalStep.
public struct IntervalStep: Hashable, Sendable {
    /// Whether a step is work or recovery. WorkoutKit: IntervalStep.Purpose.
    public enum Purpose: Hashable, Sendable {
        case work
        case recovery
    }

    public var purpose: IntervalStep.Purpose
    public var step: WorkoutStep

    public init(_ purpose: IntervalStep.Purpose, step: WorkoutStep) {
        self.purpose = purpose
        self.step = step
    }

    public init(_ purpose: IntervalStep.Purpose, goal: WorkoutGoal = .open, alert: (any WorkoutAlert)? = nil) {
        self.init(purpose, step: WorkoutStep(goal: goal, alert: alert))
    }
}

/// Steps repeated a number of times. WorkoutKit: IntervalBlock.
public struct IntervalBlock: Hashable, Sendable {
    public var steps: [IntervalStep]
    /// How many times the steps run; a plan is valid with 1 or more (a `.workout` file with 0 is refused).
    public var iterations: Int

    public init(steps: [IntervalStep] = [], iterations: Int = 1) {
        self.steps = steps
        self.iterations = iterations
    }
}
