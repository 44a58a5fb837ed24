import Foundation

// HealthKit's predicate key paths, for `NSPredicate(format: "%K > %@", HKPredicateKeyPathQuantity, …)`.
//
// They are declared so that code naming them compiles unchanged, with the key paths Apple's own predicates print in
// their `predicateFormat` (`startDate`, `endDate`, `UUID`, `quantity`, `duration`, `workoutType`, …). They serve
// source compatibility only: swift-corelibs-foundation does not implement `NSPredicate(format:)` or
// `NSComparisonPredicate` (both are deprecated there, with no expression machinery behind them), so a predicate built
// from a format string cannot be made, let alone run. Build predicates with `HKQuery`'s predicate functions and
// `NSCompoundPredicate`, which the store compiles to SQL. HealthKit: Predicate key paths (HKQuery.h).

/// The key path of an object's UUID. HealthKit: HKPredicateKeyPathUUID.
public let HKPredicateKeyPathUUID = "UUID"
/// The key path of an object's source. HealthKit: HKPredicateKeyPathSource.
public let HKPredicateKeyPathSource = "source"
/// The key path of an object's metadata. HealthKit: HKPredicateKeyPathMetadata.
public let HKPredicateKeyPathMetadata = "metadata"
/// The key path of an object's device. HealthKit: HKPredicateKeyPathDevice.
public let HKPredicateKeyPathDevice = "device"
/// The key path of a sample's start date. HealthKit: HKPredicateKeyPathStartDate.
public let HKPredicateKeyPathStartDate = "startDate"
/// The key path of a sample's end date. HealthKit: HKPredicateKeyPathEndDate.
public let HKPredicateKeyPathEndDate = "endDate"
/// The key path of a quantity sample's quantity. HealthKit: HKPredicateKeyPathQuantity.
public let HKPredicateKeyPathQuantity = "quantity"
/// The key path of a quantity sample's count (the values in a series). HealthKit: HKPredicateKeyPathCount.
public let HKPredicateKeyPathCount = "count"
/// The key path of a workout's duration. HealthKit: HKPredicateKeyPathWorkoutDuration.
public let HKPredicateKeyPathWorkoutDuration = "duration"
/// The key path of a workout's activity type. HealthKit: HKPredicateKeyPathWorkoutType.
public let HKPredicateKeyPathWorkoutType = "workoutType"
/// The key path of a workout-effort relationship. HealthKit: HKPredicateKeyPathWorkoutEffortRelationship.
public let HKPredicateKeyPathWorkoutEffortRelationship = "workoutEffortRelationship"
