import Foundation

/// `NSComparisonPredicate.Operator`, named in one place.
///
/// HealthKit's comparison predicates (`predicateForWorkouts(with:duration:)`, `predicateForQuantitySamples`, the
/// workout-activity statistics predicates) take an `NSComparisonPredicate.Operator`. swift-corelibs-foundation marks
/// `NSComparisonPredicate` deprecated, because it has none of the `NSExpression` machinery behind it; the operator
/// enum itself is fine, and OpenHealthKit only reads its cases. Apple's signatures must keep Apple's type, so that
/// `.greaterThan` and code that names `NSComparisonPredicate.Operator` compile unchanged. This alias is the only
/// reference to the deprecated class in OpenHealthKit: the build's one deprecation warning is this line, not one per
/// predicate function.
@_documentation(visibility: internal)
public typealias _ComparisonOperator = NSComparisonPredicate.Operator
