import Foundation
import HealthKitModel
import WorkoutEngine

/// Options of `predicateForSamples(withStart:end:options:)`. HealthKit: HKQueryOptions.
public struct HKQueryOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let strictStartDate = HKQueryOptions(rawValue: 1 << 0)
    public static let strictEndDate = HKQueryOptions(rawValue: 1 << 1)
}

/// No limit on the number of results. HealthKit: HKObjectQueryNoLimit.
public let HKObjectQueryNoLimit = 0

/// The base class of queries, and the home of HealthKit's predicate functions.
///
/// Every predicate here runs as SQL in the store. Combine them with `NSCompoundPredicate`
/// (`andPredicateWithSubpredicates:`, `orPredicateWithSubpredicates:`, `notPredicateWithSubpredicate:`).
///
/// HealthKit: HKQuery.
open class HKQuery: NSObject, @unchecked Sendable {
    /// The type the query reads (nil for a query over several descriptors).
    public let objectType: HKObjectType?
    public let predicate: NSPredicate?
    /// The query's descriptors: one per type it reads.
    let descriptors: [HKQueryDescriptor]

    @available(*, deprecated, renamed: "objectType")
    public var sampleType: HKSampleType? { objectType as? HKSampleType }

    init(objectType: HKObjectType?, predicate: NSPredicate?, descriptors: [HKQueryDescriptor]) {
        self.objectType = objectType
        self.predicate = predicate
        self.descriptors = descriptors
    }

    /// Called by the store when it begins running the query; the query answers on `queue`.
    func run(in store: HKHealthStore) {}
    /// Called by the store when the query is stopped.
    func didStop() {}

    // MARK: Objects

    /// Samples associated with a workout (by `add(_:to:)` or a workout builder).
    public class func predicateForObjects(from workout: HKWorkout) -> NSPredicate {
        HKQueryPredicate(.associatedWithWorkout(workout.uuid))
    }

    /// The effort samples (`workoutEffortScore`, `estimatedWorkoutEffortScore`) related to a workout with
    /// `relateWorkoutEffortSample(_:with:activity:)`: with `activity` nil, those related to the workout itself;
    /// otherwise those related to that activity of it.
    /// HealthKit: HKQuery.predicateForWorkoutEffortSamplesRelated(workout:activity:).
    public class func predicateForWorkoutEffortSamplesRelated(
        workout: HKWorkout, activity: HKWorkoutActivity?
    ) -> NSPredicate {
        HKQueryPredicate(.effortRelated(workout: workout.uuid, activity: activity?.uuid))
    }

    public class func predicateForObject(with UUID: UUID) -> NSPredicate {
        HKQueryPredicate(.uuids([UUID]))
    }

    public class func predicateForObjects(with UUIDs: Set<UUID>) -> NSPredicate {
        HKQueryPredicate(.uuids(Array(UUIDs)))
    }

    // MARK: Samples

    /// Samples in a date range: by default those overlapping it; see ``HKQueryOptions``.
    public class func predicateForSamples(
        withStart startDate: Date?, end endDate: Date?,
        options: HKQueryOptions = []
    ) -> NSPredicate {
        HKQueryPredicate(.sampleDates(start: startDate, end: endDate, options: options))
    }

    // MARK: Workouts

    public class func predicateForWorkouts(with workoutActivityType: HKWorkoutActivityType) -> NSPredicate {
        HKQueryPredicate(.workoutActivityType(workoutActivityType))
    }

    public class func predicateForWorkouts(
        with operatorType: _ComparisonOperator,
        duration: TimeInterval
    ) -> NSPredicate {
        HKQueryPredicate(.workoutDuration(.init(operatorType), duration))
    }

    @available(*, deprecated, message: "Use predicateForWorkouts(operatorType:quantityType:sumQuantity:)")
    public class func predicateForWorkouts(
        with operatorType: _ComparisonOperator,
        totalEnergyBurned: HKQuantity
    ) -> NSPredicate {
        total(operatorType, totalEnergyBurned, [.activeEnergyBurned])
    }

    @available(*, deprecated, message: "Use predicateForWorkouts(operatorType:quantityType:sumQuantity:)")
    public class func predicateForWorkouts(
        with operatorType: _ComparisonOperator,
        totalDistance: HKQuantity
    ) -> NSPredicate {
        total(operatorType, totalDistance, distanceTypes)
    }

    @available(*, deprecated, message: "Use predicateForWorkouts(operatorType:quantityType:sumQuantity:)")
    public class func predicateForWorkouts(
        with operatorType: _ComparisonOperator,
        totalSwimmingStrokeCount: HKQuantity
    ) -> NSPredicate {
        total(operatorType, totalSwimmingStrokeCount, [.swimmingStrokeCount])
    }

    @available(*, deprecated, message: "Use predicateForWorkouts(operatorType:quantityType:sumQuantity:)")
    public class func predicateForWorkouts(
        with operatorType: _ComparisonOperator,
        totalFlightsClimbed: HKQuantity
    ) -> NSPredicate {
        total(operatorType, totalFlightsClimbed, [.flightsClimbed])
    }

    private static let distanceTypes = HKWorkout.distanceTypeIdentifiers

    private class func total(
        _ operatorType: _ComparisonOperator, _ quantity: HKQuantity,
        _ identifiers: [HKQuantityTypeIdentifier]
    ) -> NSPredicate {
        let type = HKQuantityType(identifiers[0])
        if let invalid = incompatible(quantity, type) { return invalid }
        return HKQueryPredicate(
            .workoutStatistic(
                types: identifiers.map(\.rawValue), .sum, .init(operatorType),
                quantity.doubleValue(for: type.storageUnit)))
    }

    /// The predicate that fails its query when a quantity's unit does not fit the type (HealthKit raises).
    private class func incompatible(_ quantity: HKQuantity, _ type: HKQuantityType) -> NSPredicate? {
        if type.is(compatibleWith: quantity.unit) { return nil }
        return HKQueryPredicate(
            .invalid(
                "A predicate compares \(type.identifier) with \(quantity), whose unit (\(quantity.unit.unitString)) "
                    + "is not one of the type's (\(type.storageUnit.unitString))."))
    }

    private class func statistic(
        _ operatorType: _ComparisonOperator, _ type: HKQuantityType,
        _ statistic: PredicateNode.Statistic, _ quantity: HKQuantity
    ) -> NSPredicate {
        if let invalid = incompatible(quantity, type) { return invalid }
        return HKQueryPredicate(
            .workoutStatistic(
                types: [type.identifier], statistic, .init(operatorType),
                quantity.doubleValue(for: type.storageUnit)))
    }

    public class func predicateForWorkouts(
        operatorType: _ComparisonOperator, quantityType: HKQuantityType,
        sumQuantity: HKQuantity
    ) -> NSPredicate {
        statistic(operatorType, quantityType, .sum, sumQuantity)
    }

    public class func predicateForWorkouts(
        operatorType: _ComparisonOperator, quantityType: HKQuantityType,
        minimumQuantity: HKQuantity
    ) -> NSPredicate {
        statistic(operatorType, quantityType, .minimum, minimumQuantity)
    }

    public class func predicateForWorkouts(
        operatorType: _ComparisonOperator, quantityType: HKQuantityType,
        maximumQuantity: HKQuantity
    ) -> NSPredicate {
        statistic(operatorType, quantityType, .maximum, maximumQuantity)
    }

    public class func predicateForWorkouts(
        operatorType: _ComparisonOperator, quantityType: HKQuantityType,
        averageQuantity: HKQuantity
    ) -> NSPredicate {
        statistic(operatorType, quantityType, .average, averageQuantity)
    }

    /// Workouts with at least one activity matching an activity predicate (required around every
    /// `predicateForWorkoutActivities` predicate used in a workout query).
    public class func predicateForWorkouts(activityPredicate: NSPredicate) -> NSPredicate {
        HKQueryPredicate(.workoutsWithActivity(PredicateNode(activityPredicate)))
    }

    // MARK: Workout activities

    public class func predicateForWorkoutActivities(workoutActivityType: HKWorkoutActivityType) -> NSPredicate {
        HKQueryPredicate(.activityType(workoutActivityType))
    }

    public class func predicateForWorkoutActivities(
        operatorType: _ComparisonOperator,
        duration: TimeInterval
    ) -> NSPredicate {
        HKQueryPredicate(.activityDuration(.init(operatorType), duration))
    }

    public class func predicateForWorkoutActivities(
        start startDate: Date?, end endDate: Date?,
        options: HKQueryOptions = []
    ) -> NSPredicate {
        HKQueryPredicate(.activityDates(start: startDate, end: endDate, options: options))
    }

    private class func activityStatistic(
        _ operatorType: _ComparisonOperator, _ type: HKQuantityType,
        _ statistic: PredicateNode.Statistic, _ quantity: HKQuantity
    ) -> NSPredicate {
        if let invalid = incompatible(quantity, type) { return invalid }
        return HKQueryPredicate(
            .activityStatistic(
                type: type.identifier, statistic, .init(operatorType),
                quantity.doubleValue(for: type.storageUnit)))
    }

    public class func predicateForWorkoutActivities(
        operatorType: _ComparisonOperator, quantityType: HKQuantityType,
        sumQuantity: HKQuantity
    ) -> NSPredicate {
        activityStatistic(operatorType, quantityType, .sum, sumQuantity)
    }

    public class func predicateForWorkoutActivities(
        operatorType: _ComparisonOperator, quantityType: HKQuantityType,
        minimumQuantity: HKQuantity
    ) -> NSPredicate {
        activityStatistic(operatorType, quantityType, .minimum, minimumQuantity)
    }

    public class func predicateForWorkoutActivities(
        operatorType: _ComparisonOperator, quantityType: HKQuantityType,
        maximumQuantity: HKQuantity
    ) -> NSPredicate {
        activityStatistic(operatorType, quantityType, .maximum, maximumQuantity)
    }

    public class func predicateForWorkoutActivities(
        operatorType: _ComparisonOperator, quantityType: HKQuantityType,
        averageQuantity: HKQuantity
    ) -> NSPredicate {
        activityStatistic(operatorType, quantityType, .average, averageQuantity)
    }
}

/// A type to read and a predicate to filter it, for queries over several types. HealthKit: HKQueryDescriptor.
public final class HKQueryDescriptor: NSObject, NSCopying, @unchecked Sendable {
    public let sampleType: HKSampleType
    public let predicate: NSPredicate?

    public init(sampleType: HKSampleType, predicate: NSPredicate?) {
        self.sampleType = sampleType
        self.predicate = predicate
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }
}

/// A position in the store's history, for anchored object queries. HealthKit: HKQueryAnchor.
///
/// Apps keep an anchor between launches with `NSKeyedArchiver` (it is `NSSecureCoding`, as HealthKit's is).
public final class HKQueryAnchor: NSObject, NSCopying, NSSecureCoding, Sendable {
    let value: Int64

    public static var supportsSecureCoding: Bool { true }
    public func encode(with coder: NSCoder) { coder.encode(value, forKey: "value") }
    public init?(coder: NSCoder) {
        guard coder.containsValue(forKey: "value") else { return nil }
        value = coder.decodeInt64(forKey: "value")
    }

    /// Creates an anchor from a value an earlier anchor was made from (deprecated in HealthKit, still documented).
    public convenience init(fromValue value: Int) { self.init(value: Int64(value)) }
    init(value: Int64) { self.value = value }

    public func copy(with zone: NSZone? = nil) -> Any { self }
    public override func isEqual(_ object: Any?) -> Bool { (object as? HKQueryAnchor)?.value == value }
    public override var hash: Int { value.hashValue }
    public override var description: String { "HKQueryAnchor(\(value))" }
}
