import Foundation
import OpenHealthKit

/// A workout of a warm-up, blocks of work and recovery steps, and a cool-down. WorkoutKit: CustomWorkout.
public struct CustomWorkout: Hashable, Sendable {
    public var activity: HKWorkoutActivityType
    public var location: HKWorkoutSessionLocationType
    /// The workout's name; nil and the empty string differ.
    public var displayName: String?
    public var warmup: WorkoutStep?
    public var blocks: [IntervalBlock]
    public var cooldown: WorkoutStep?

    public init(
        activity: HKWorkoutActivityType, location: HKWorkoutSessionLocationType = .unknown,
        displayName: String? = nil, warmup: WorkoutStep? = nil, blocks: [IntervalBlock] = [],
        cooldown: WorkoutStep? = nil
    ) {
        self.activity = activity
        self.location = location
        self.displayName = displayName
        self.warmup = warmup
        self.blocks = blocks
        self.cooldown = cooldown
    }

    /// Whether a custom workout can be of `activity`. Apple publishes no list; OpenHealthKit's: the activities
    /// whose steps a person can time or measure (running, walking, hiking, cycling, swimming, rowing, HIIT,
    /// elliptical, stair stepping, strength, core, cross training, mixed cardio, yoga, pilates, dance, kickboxing,
    /// skiing, paddling, wheelchair paces, other).
    public static func supportsActivity(_ activity: HKWorkoutActivityType) -> Bool {
        WorkoutPlanRules.customActivities.contains(activity)
    }

    /// Whether a step of a custom workout of `activity` at `location` can have `goal`: `.open` and `.time` for
    /// every supported activity; `.distance` for activities that cover a distance; `.poolSwimDistanceWithTime` for
    /// swimming; never `.energy` (Apple allows energy goals only in a single-goal workout).
    public static func supportsGoal(
        _ goal: WorkoutGoal, activity: HKWorkoutActivityType, location: HKWorkoutSessionLocationType = .unknown
    ) -> Bool {
        WorkoutPlanRules.supportsCustomGoal(goal, activity: activity, location: location)
    }

    /// Whether a step of a custom workout of `activity` at `location` can have `alert`: the activity is one a custom
    /// workout supports and the alert ``WorkoutAlert/supports(activity:location:)`` it.
    public static func supportsAlert(
        _ alert: any WorkoutAlert, activity: HKWorkoutActivityType, location: HKWorkoutSessionLocationType = .unknown
    ) -> Bool {
        supportsActivity(activity) && alert.supports(activity: activity, location: location)
    }
}

/// A workout with one goal. WorkoutKit: SingleGoalWorkout.
public struct SingleGoalWorkout: Hashable, Sendable {
    public var activity: HKWorkoutActivityType
    public var location: HKWorkoutSessionLocationType
    public var swimmingLocation: HKWorkoutSwimmingLocationType
    public var goal: WorkoutGoal

    public init(
        activity: HKWorkoutActivityType, location: HKWorkoutSessionLocationType = .unknown,
        swimmingLocation: HKWorkoutSwimmingLocationType = .unknown, goal: WorkoutGoal = .open
    ) {
        self.activity = activity
        self.location = location
        self.swimmingLocation = swimmingLocation
        self.goal = goal
    }

    /// Whether a single-goal workout can be of `activity`: those of a custom workout (OpenHealthKit's list, Apple
    /// publishes none).
    public static func supportsActivity(_ activity: HKWorkoutActivityType) -> Bool {
        WorkoutPlanRules.singleGoalActivities.contains(activity)
    }

    /// Whether a single-goal workout of `activity` at `location` can have `goal`: `.open`, `.time` and `.energy`
    /// for every supported activity; `.distance` for activities that cover a distance (rowing only outdoors: Apple
    /// refuses an indoor rowing single-goal workout); never `.poolSwimDistanceWithTime` (Apple refuses it here).
    public static func supportsGoal(
        _ goal: WorkoutGoal, activity: HKWorkoutActivityType, location: HKWorkoutSessionLocationType = .unknown
    ) -> Bool {
        WorkoutPlanRules.supportsSingleGoal(goal, activity: activity, location: location)
    }
}

/// A workout that paces a distance in a time. WorkoutKit: PacerWorkout.
public struct PacerWorkout: Hashable, Sendable {
    public var activity: HKWorkoutActivityType
    public var location: HKWorkoutSessionLocationType
    public var distance: Measurement<UnitLength>
    public var time: Measurement<UnitDuration>

    public init(
        activity: HKWorkoutActivityType, location: HKWorkoutSessionLocationType = .unknown,
        distance: Measurement<UnitLength>, time: Measurement<UnitDuration>
    ) {
        self.activity = activity
        self.location = location
        self.distance = distance
        self.time = time
    }

    /// Whether a pacer workout can be of `activity`: running, walking, cycling and the wheelchair paces (a pace
    /// over a distance; OpenHealthKit's list, Apple publishes none).
    public static func supportsActivity(_ activity: HKWorkoutActivityType) -> Bool {
        WorkoutPlanRules.pacerActivities.contains(activity)
    }
}

/// A multisport workout of swimming, cycling and running legs. WorkoutKit: SwimBikeRunWorkout.
public struct SwimBikeRunWorkout: Hashable, Sendable {
    /// One leg. WorkoutKit: SwimBikeRunWorkout.Activity.
    public enum Activity: Hashable, Sendable {
        case swimming(HKWorkoutSwimmingLocationType)
        case cycling(HKWorkoutSessionLocationType)
        case running(HKWorkoutSessionLocationType)
    }

    public var activities: [SwimBikeRunWorkout.Activity]
    public var displayName: String?

    public init(activities: [SwimBikeRunWorkout.Activity], displayName: String? = nil) {
        self.activities = activities
        self.displayName = displayName
    }

    /// Whether the legs may come in this order: at least one leg, no leg of the same activity as the one before
    /// it, and swimming only as the first leg (a duathlon's run, bike, run is fine; Apple refuses bike, run, swim).
    public static func supportsActivityOrdering(_ activities: [SwimBikeRunWorkout.Activity]) -> Bool {
        WorkoutPlanRules.supportsOrdering(activities)
    }
}

extension SwimBikeRunWorkout.Activity {
    /// The leg's activity type.
    var activityType: HKWorkoutActivityType {
        switch self {
        case .swimming: .swimming
        case .cycling: .cycling
        case .running: .running
        }
    }
}
