import Foundation
import OpenHealthKit

/// The rules of what a plan may hold: activities, goals, alerts, leg orders. Apple publishes few of them; where it
/// does not, these are OpenHealthKit's choice, stated in the public functions' doc comments and tested.
package enum WorkoutPlanRules {
    /// Activities a custom or single-goal workout may have.
    package static let customActivities: Set<HKWorkoutActivityType> = [
        .running, .walking, .hiking, .cycling, .swimming, .rowing, .highIntensityIntervalTraining, .elliptical,
        .stairClimbing, .stepTraining, .functionalStrengthTraining, .traditionalStrengthTraining, .coreTraining,
        .crossTraining, .mixedCardio, .yoga, .pilates, .socialDance, .cardioDance, .kickboxing, .crossCountrySkiing,
        .downhillSkiing, .paddleSports, .wheelchairRunPace, .wheelchairWalkPace, .other,
    ]
    package static let singleGoalActivities = customActivities
    package static let pacerActivities: Set<HKWorkoutActivityType> = [
        .running, .walking, .cycling, .wheelchairRunPace, .wheelchairWalkPace,
    ]
    /// Activities that cover a distance a sensor measures.
    package static let distanceActivities: Set<HKWorkoutActivityType> = [
        .running, .walking, .hiking, .cycling, .swimming, .rowing, .crossCountrySkiing, .downhillSkiing, .paddleSports,
        .wheelchairRunPace, .wheelchairWalkPace,
    ]

    package static func supportsCustomGoal(
        _ goal: WorkoutGoal, activity: HKWorkoutActivityType, location: HKWorkoutSessionLocationType
    ) -> Bool {
        guard customActivities.contains(activity) else { return false }
        switch goal {
        case .open, .time: return true
        case .distance: return distanceActivities.contains(activity)
        case .energy: return false
        case .poolSwimDistanceWithTime: return activity == .swimming
        }
    }

    package static func supportsSingleGoal(
        _ goal: WorkoutGoal, activity: HKWorkoutActivityType, location: HKWorkoutSessionLocationType
    ) -> Bool {
        guard singleGoalActivities.contains(activity) else { return false }
        if activity == .rowing && location == .indoor { return false }
        switch goal {
        case .open, .time, .energy: return true
        case .distance: return distanceActivities.contains(activity)
        case .poolSwimDistanceWithTime: return false
        }
    }

    package static func supportsOrdering(_ legs: [SwimBikeRunWorkout.Activity]) -> Bool {
        guard !legs.isEmpty else { return false }
        for (index, leg) in legs.enumerated() {
            if index > 0 && legs[index - 1].activityType == leg.activityType { return false }
            if index > 0 && leg.activityType == .swimming { return false }
        }
        return true
    }
}

/// The rules of alerts: which activities each kind watches, and their quantities.
enum AlertRules {
    /// Heart rate: every activity a custom workout supports.
    static func heartRate(activity: HKWorkoutActivityType) -> Bool {
        WorkoutPlanRules.customActivities.contains(activity)
    }

    /// Power: cycling and running (a power meter, a trainer, a running power sensor), anywhere.
    static func power(activity: HKWorkoutActivityType) -> Bool { [.cycling, .running].contains(activity) }

    /// Cadence: cycling and running.
    static func cadence(activity: HKWorkoutActivityType, location: HKWorkoutSessionLocationType) -> Bool {
        [.cycling, .running].contains(activity)
    }

    /// Speed: activities that cover a distance.
    static func speed(activity: HKWorkoutActivityType, location: HKWorkoutSessionLocationType) -> Bool {
        WorkoutPlanRules.distanceActivities.contains(activity) && activity != .swimming
    }

    static func range<U: Dimension>(_ values: ClosedRange<Double>, _ unit: U) -> ClosedRange<Measurement<U>> {
        Measurement(value: values.lowerBound, unit: unit) ... Measurement(value: values.upperBound, unit: unit)
    }

    static func beats(_ value: Measurement<UnitFrequency>) -> HKQuantity {
        HKQuantity(unit: .count().unitDivided(by: .minute()), doubleValue: value.converted(to: .countPerMinute).value)
    }

    static func watts(_ value: Measurement<UnitPower>) -> HKQuantity {
        HKQuantity(unit: .watt(), doubleValue: value.converted(to: .watts).value)
    }

    static func metresPerSecond(_ value: Measurement<UnitSpeed>) -> HKQuantity {
        HKQuantity(
            unit: .meter().unitDivided(by: .second()), doubleValue: value.converted(to: .metersPerSecond).value)
    }
}
