import Foundation
import OpenHealthKit

/// HealthKit's deprecated workout API — `HKWorkout`'s initializers, `add(_:to:)`, `totalEnergyBurned` and
/// `totalDistance`, the total-based workout predicates — which these tests call on purpose: apps still use it, and it
/// must go on working. The calls go through `LegacyWorkoutAPI`, whose requirements are not deprecated while their
/// witnesses below are, so the deprecation warnings the API rightly carries stay out of the test build. Apple's
/// article code that uses it runs the same way (`AppleArticleTests`).
protocol LegacyWorkoutAPI {
    static func workout(activityType: HKWorkoutActivityType, start: Date, end: Date) -> HKWorkout
    static func workout(
        activityType: HKWorkoutActivityType, start: Date, end: Date, duration: TimeInterval,
        totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?, metadata: [String: Any]?
    ) -> HKWorkout
    static func workout(
        activityType: HKWorkoutActivityType, start: Date, end: Date, workoutEvents: [HKWorkoutEvent]?,
        totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?, metadata: [String: Any]?
    ) -> HKWorkout
    static func add(_ samples: [HKSample], to workout: HKWorkout, in store: HKHealthStore) async throws
    static func predicateForWorkouts(
        with operatorType: _ComparisonOperator, totalEnergyBurned: HKQuantity
    ) -> NSPredicate
    static func predicateForWorkouts(with operatorType: _ComparisonOperator, totalDistance: HKQuantity) -> NSPredicate
    /// `predicateForQuantitySamples(with:quantity:)` called with a value of Apple's own operator type,
    /// `NSComparisonPredicate.Operator` (made from `rawValue`), as code that names that type does.
    static func predicateForQuantitySamples(foundationOperator rawValue: UInt, quantity: HKQuantity) -> NSPredicate
}

enum Legacy: LegacyWorkoutAPI {}

/// The deprecated API, reached without a warning at each call.
var legacy: any LegacyWorkoutAPI.Type { Legacy.self }

extension Legacy {
    @available(*, deprecated, message: "calls HealthKit's deprecated API on purpose")
    static func workout(activityType: HKWorkoutActivityType, start: Date, end: Date) -> HKWorkout {
        HKWorkout(activityType: activityType, start: start, end: end)
    }

    @available(*, deprecated, message: "calls HealthKit's deprecated API on purpose")
    static func workout(
        activityType: HKWorkoutActivityType, start: Date, end: Date, duration: TimeInterval,
        totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?, metadata: [String: Any]?
    ) -> HKWorkout {
        HKWorkout(
            activityType: activityType, start: start, end: end, duration: duration,
            totalEnergyBurned: totalEnergyBurned,
            totalDistance: totalDistance, metadata: metadata)
    }

    @available(*, deprecated, message: "calls HealthKit's deprecated API on purpose")
    static func workout(
        activityType: HKWorkoutActivityType, start: Date, end: Date, workoutEvents: [HKWorkoutEvent]?,
        totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?, metadata: [String: Any]?
    ) -> HKWorkout {
        HKWorkout(
            activityType: activityType, start: start, end: end, workoutEvents: workoutEvents,
            totalEnergyBurned: totalEnergyBurned, totalDistance: totalDistance, metadata: metadata)
    }

    @available(*, deprecated, message: "calls HealthKit's deprecated API on purpose")
    static func add(_ samples: [HKSample], to workout: HKWorkout, in store: HKHealthStore) async throws {
        try await store.add(samples, to: workout)
    }

    @available(*, deprecated, message: "calls HealthKit's deprecated API on purpose")
    static func predicateForWorkouts(
        with operatorType: _ComparisonOperator, totalEnergyBurned: HKQuantity
    ) -> NSPredicate {
        HKQuery.predicateForWorkouts(with: operatorType, totalEnergyBurned: totalEnergyBurned)
    }

    @available(*, deprecated, message: "calls HealthKit's deprecated API on purpose")
    static func predicateForWorkouts(with operatorType: _ComparisonOperator, totalDistance: HKQuantity) -> NSPredicate {
        HKQuery.predicateForWorkouts(with: operatorType, totalDistance: totalDistance)
    }

    @available(*, deprecated, message: "names NSComparisonPredicate on purpose")
    static func predicateForQuantitySamples(foundationOperator rawValue: UInt, quantity: HKQuantity) -> NSPredicate {
        let operatorType = NSComparisonPredicate.Operator(rawValue: rawValue)!
        return HKQuery.predicateForQuantitySamples(with: operatorType, quantity: quantity)
    }
}
