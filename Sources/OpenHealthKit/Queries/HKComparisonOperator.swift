import Foundation
import HealthKitModel
import WorkoutEngine

/// The comparison a HealthKit predicate makes: `NSComparisonPredicate.Operator`'s cases and raw values, as a type of
/// OpenHealthKit's own.
///
/// HealthKit's comparison predicates (`predicateForWorkouts(with:duration:)`, `predicateForQuantitySamples`, the
/// workout-activity statistics predicates) take an `NSComparisonPredicate.Operator`. swift-corelibs-foundation marks
/// `NSComparisonPredicate` deprecated (it has none of the `NSExpression` machinery behind it), so naming that type in
/// every signature made every build of this package, and of every package depending on it, print a deprecation
/// warning. These functions take this enum instead: code that passes `.greaterThan` compiles unchanged and picks
/// these. Code that names Apple's type (`NSComparisonPredicate.Operator.greaterThan`, or a variable of that type)
/// still compiles, through deprecated overloads that take it (`HKQuery+FoundationOperator.swift`), with the warning
/// Foundation gives for naming that type on Linux anyway. OpenHealthKit.
public enum _ComparisonOperator: UInt, Sendable, Hashable {
    case lessThan = 0
    case lessThanOrEqualTo = 1
    case greaterThan = 2
    case greaterThanOrEqualTo = 3
    case equalTo = 4
    case notEqualTo = 5
    case matches = 6
    case like = 7
    case beginsWith = 8
    case endsWith = 9
    case `in` = 10
    case customSelector = 11
    case contains = 99
    case between = 100
}
