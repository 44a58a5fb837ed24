import Foundation
import HealthKitModel
import WorkoutEngine

extension HKWorkoutSession {
    /// The session's activity type (Apple's iPhone sample still reads it). HealthKit: HKWorkoutSession.activityType,
    /// deprecated for `workoutConfiguration`.
    @available(*, deprecated, message: "Use workoutConfiguration")
    public var activityType: HKWorkoutActivityType { workoutConfiguration.activityType }

    /// The session's location type. HealthKit: HKWorkoutSession.locationType, deprecated for `workoutConfiguration`.
    @available(*, deprecated, message: "Use workoutConfiguration")
    public var locationType: HKWorkoutSessionLocationType { workoutConfiguration.locationType }
}
