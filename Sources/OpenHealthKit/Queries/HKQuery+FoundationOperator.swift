import Foundation
import HealthKitModel
import WorkoutEngine

// Apple's signatures, with `NSComparisonPredicate.Operator` as Apple spells it, for code that names that type or passes
// a variable of it. Deprecated (and disfavored, so `.greaterThan` picks the `_ComparisonOperator` functions): a
// deprecated declaration may name `NSComparisonPredicate`, which swift-corelibs-foundation deprecates, without a
// warning in this package's build. Each converts by raw value, which both types share. OpenHealthKit.

extension HKQuery {
    @available(*, deprecated)
    private class func comparison(_ operatorType: NSComparisonPredicate.Operator) -> _ComparisonOperator {
        // Both enums carry Apple's raw values; every case of Apple's has one here.
        _ComparisonOperator(rawValue: operatorType.rawValue) ?? .customSelector
    }

    @available(*, deprecated, message: "NSComparisonPredicate is deprecated on Linux; write .greaterThan")
    @_disfavoredOverload
    public class func predicateForWorkouts(
        with operatorType: NSComparisonPredicate.Operator,
        duration: TimeInterval
    ) -> NSPredicate {
        predicateForWorkouts(with: comparison(operatorType), duration: duration)
    }

    @available(*, deprecated, message: "NSComparisonPredicate is deprecated on Linux; write .greaterThan")
    @_disfavoredOverload
    public class func predicateForWorkouts(
        with operatorType: NSComparisonPredicate.Operator,
        totalEnergyBurned: HKQuantity
    ) -> NSPredicate {
        predicateForWorkouts(with: comparison(operatorType), totalEnergyBurned: totalEnergyBurned)
    }

    @available(*, deprecated, message: "NSComparisonPredicate is deprecated on Linux; write .greaterThan")
    @_disfavoredOverload
    public class func predicateForWorkouts(
        with operatorType: NSComparisonPredicate.Operator,
        totalDistance: HKQuantity
    ) -> NSPredicate {
        predicateForWorkouts(with: comparison(operatorType), totalDistance: totalDistance)
    }

    @available(*, deprecated, message: "NSComparisonPredicate is deprecated on Linux; write .greaterThan")
    @_disfavoredOverload
    public class func predicateForWorkouts(
        with operatorType: NSComparisonPredicate.Operator,
        totalSwimmingStrokeCount: HKQuantity
    ) -> NSPredicate {
        predicateForWorkouts(with: comparison(operatorType), totalSwimmingStrokeCount: totalSwimmingStrokeCount)
    }

    @available(*, deprecated, message: "NSComparisonPredicate is deprecated on Linux; write .greaterThan")
    @_disfavoredOverload
    public class func predicateForWorkouts(
        with operatorType: NSComparisonPredicate.Operator,
        totalFlightsClimbed: HKQuantity
    ) -> NSPredicate {
        predicateForWorkouts(with: comparison(operatorType), totalFlightsClimbed: totalFlightsClimbed)
    }

    @available(*, deprecated, message: "NSComparisonPredicate is deprecated on Linux; write .greaterThan")
    @_disfavoredOverload
    public class func predicateForWorkouts(
        operatorType: NSComparisonPredicate.Operator, quantityType: HKQuantityType,
        sumQuantity: HKQuantity
    ) -> NSPredicate {
        predicateForWorkouts(
            operatorType: comparison(operatorType),
            quantityType: quantityType, sumQuantity: sumQuantity)
    }

    @available(*, deprecated, message: "NSComparisonPredicate is deprecated on Linux; write .greaterThan")
    @_disfavoredOverload
    public class func predicateForWorkouts(
        operatorType: NSComparisonPredicate.Operator, quantityType: HKQuantityType,
        minimumQuantity: HKQuantity
    ) -> NSPredicate {
        predicateForWorkouts(
            operatorType: comparison(operatorType),
            quantityType: quantityType, minimumQuantity: minimumQuantity)
    }

    @available(*, deprecated, message: "NSComparisonPredicate is deprecated on Linux; write .greaterThan")
    @_disfavoredOverload
    public class func predicateForWorkouts(
        operatorType: NSComparisonPredicate.Operator, quantityType: HKQuantityType,
        maximumQuantity: HKQuantity
    ) -> NSPredicate {
        predicateForWorkouts(
            operatorType: comparison(operatorType),
            quantityType: quantityType, maximumQuantity: maximumQuantity)
    }

    @available(*, deprecated, message: "NSComparisonPredicate is deprecated on Linux; write .greaterThan")
    @_disfavoredOverload
    public class func predicateForWorkouts(
        operatorType: NSComparisonPredicate.Operator, quantityType: HKQuantityType,
        averageQuantity: HKQuantity
    ) -> NSPredicate {
        predicateForWorkouts(
            operatorType: comparison(operatorType),
            quantityType: quantityType, averageQuantity: averageQuantity)
    }

    @available(*, deprecated, message: "NSComparisonPredicate is deprecated on Linux; write .greaterThan")
    @_disfavoredOverload
    public class func predicateForWorkoutActivities(
        operatorType: NSComparisonPredicate.Operator,
        duration: TimeInterval
    ) -> NSPredicate {
        predicateForWorkoutActivities(operatorType: comparison(operatorType), duration: duration)
    }

    @available(*, deprecated, message: "NSComparisonPredicate is deprecated on Linux; write .greaterThan")
    @_disfavoredOverload
    public class func predicateForWorkoutActivities(
        operatorType: NSComparisonPredicate.Operator,
        quantityType: HKQuantityType,
        sumQuantity: HKQuantity
    ) -> NSPredicate {
        predicateForWorkoutActivities(
            operatorType: comparison(operatorType),
            quantityType: quantityType, sumQuantity: sumQuantity)
    }

    @available(*, deprecated, message: "NSComparisonPredicate is deprecated on Linux; write .greaterThan")
    @_disfavoredOverload
    public class func predicateForWorkoutActivities(
        operatorType: NSComparisonPredicate.Operator,
        quantityType: HKQuantityType,
        minimumQuantity: HKQuantity
    ) -> NSPredicate {
        predicateForWorkoutActivities(
            operatorType: comparison(operatorType),
            quantityType: quantityType, minimumQuantity: minimumQuantity)
    }

    @available(*, deprecated, message: "NSComparisonPredicate is deprecated on Linux; write .greaterThan")
    @_disfavoredOverload
    public class func predicateForWorkoutActivities(
        operatorType: NSComparisonPredicate.Operator,
        quantityType: HKQuantityType,
        maximumQuantity: HKQuantity
    ) -> NSPredicate {
        predicateForWorkoutActivities(
            operatorType: comparison(operatorType),
            quantityType: quantityType, maximumQuantity: maximumQuantity)
    }

    @available(*, deprecated, message: "NSComparisonPredicate is deprecated on Linux; write .greaterThan")
    @_disfavoredOverload
    public class func predicateForWorkoutActivities(
        operatorType: NSComparisonPredicate.Operator,
        quantityType: HKQuantityType,
        averageQuantity: HKQuantity
    ) -> NSPredicate {
        predicateForWorkoutActivities(
            operatorType: comparison(operatorType),
            quantityType: quantityType, averageQuantity: averageQuantity)
    }

    @available(*, deprecated, message: "NSComparisonPredicate is deprecated on Linux; write .greaterThan")
    @_disfavoredOverload
    public class func predicateForQuantitySamples(
        with operatorType: NSComparisonPredicate.Operator,
        quantity: HKQuantity
    ) -> NSPredicate {
        predicateForQuantitySamples(with: comparison(operatorType), quantity: quantity)
    }

    @available(*, deprecated, message: "NSComparisonPredicate is deprecated on Linux; write .greaterThan")
    @_disfavoredOverload
    public class func predicateForObjects(
        withMetadataKey key: String, operatorType: NSComparisonPredicate.Operator,
        value: Any
    ) -> NSPredicate {
        predicateForObjects(withMetadataKey: key, operatorType: comparison(operatorType), value: value)
    }
}
