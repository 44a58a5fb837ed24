import Foundation
import HealthKitModel
import WorkoutEngine

/// Evaluates predicate nodes against objects in memory, with the same meaning as the store's SQL.
enum PredicateEvaluator {
    static func evaluate(_ node: PredicateNode, _ object: Any?) -> Bool {
        switch node {
        case .constant(let value):
            return value
        case .and(let nodes):
            return nodes.allSatisfy { evaluate($0, object) }
        case .or(let nodes):
            return nodes.contains { evaluate($0, object) }
        case .not(let inner):
            return !evaluate(inner, object)
        case .foreign, .invalid, .associatedWithWorkout, .effortRelated, .noCorrelation:
            // What the store knows of an object (its workout, its correlation) is not in the object.
            return false
        case .filter(let filter):
            return filter.matches(object)
        case .uuids(let uuids):
            guard let object = object as? HKObject else { return false }
            return uuids.contains(object.uuid)
        case let .sampleDates(start, end, options):
            guard let sample = object as? HKSample else { return false }
            return DateRangeRule(start: start, end: end, options: options).matches(
                start: sample.startDate, end: sample.endDate)
        case .workoutActivityType(let type):
            return (object as? HKWorkout)?.workoutActivityType == type
        case let .quantity(comparison, quantity):
            guard let sample = object as? HKQuantitySample, let comparison,
                sample.quantity.is(compatibleWith: quantity.unit)
            else {
                return false
            }
            return comparison.holds(
                sample.quantity.doubleValue(for: quantity.unit), quantity.doubleValue(for: quantity.unit))
        case let .workoutDuration(comparison, value):
            guard let workout = object as? HKWorkout, let comparison else { return false }
            return comparison.holds(workout.duration, value)
        case let .workoutStatistic(types, statistic, comparison, value):
            guard let workout = object as? HKWorkout, let comparison else { return false }
            return types.contains { identifier in
                guard let stats = workout.allStatistics.first(where: { $0.key.identifier == identifier })?.value,
                    let actual = stats.merged.value(of: statistic)
                else { return false }
                return comparison.holds(actual, value)
            }
        case .workoutsWithActivity(let inner):
            guard let workout = object as? HKWorkout else { return false }
            return workout.workoutActivities.contains { evaluate(inner, $0) }
        case .activityType(let type):
            return (object as? HKWorkoutActivity)?.activityType == type
        case let .activityDuration(comparison, value):
            guard let activity = object as? HKWorkoutActivity, let comparison else { return false }
            return comparison.holds(activity.duration, value)
        case let .activityDates(start, end, options):
            guard let activity = object as? HKWorkoutActivity else { return false }
            return DateRangeRule(start: start, end: end, options: options)
                .matches(start: activity.startDate, end: activity.endDate ?? .distantFuture)
        case let .activityStatistic(identifier, statistic, comparison, value):
            guard let activity = object as? HKWorkoutActivity, let comparison,
                let stats = activity.allStatistics.first(where: { $0.key.identifier == identifier })?.value,
                let actual = stats.merged.value(of: statistic)
            else { return false }
            return comparison.holds(actual, value)
        }
    }
}

/// The rule of `HKQuery.predicateForSamples(withStart:end:options:)`.
///
/// Without options a sample matches when it overlaps the range: it ends at or after `start` and starts before
/// `end`. `.strictStartDate` asks that it start at or after `start`; `.strictEndDate` that it end at or before
/// `end`. A nil bound is open.
struct DateRangeRule {
    var start: Date?
    var end: Date?
    var options: HKQueryOptions

    func matches(start sampleStart: Date, end sampleEnd: Date) -> Bool {
        if let start {
            if options.contains(.strictStartDate) ? sampleStart < start : sampleEnd < start { return false }
        }
        if let end {
            if options.contains(.strictEndDate) ? sampleEnd > end : sampleStart >= end { return false }
        }
        return true
    }

    /// The SQL condition over the columns `startColumn` and `endColumn`.
    func sql(startColumn: String, endColumn: String) -> (String, [Double]) {
        var terms: [String] = []
        var arguments: [Double] = []
        if let start {
            terms.append(options.contains(.strictStartDate) ? "\(startColumn) >= ?" : "\(endColumn) >= ?")
            arguments.append(start.storeValue)
        }
        if let end {
            terms.append(options.contains(.strictEndDate) ? "\(endColumn) <= ?" : "\(startColumn) < ?")
            arguments.append(end.storeValue)
        }
        return (terms.isEmpty ? "1" : terms.joined(separator: " AND "), arguments)
    }
}

extension HKStatistics.Values {
    func value(of statistic: PredicateNode.Statistic) -> Double? {
        switch statistic {
        case .sum: sum
        case .average: average
        case .minimum: minimum
        case .maximum: maximum
        }
    }
}
