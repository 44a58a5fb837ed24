import Foundation
import HealthKitModel
import WorkoutEngine

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

// The remaining key paths of HKObject.h, HKWorkout.h, HKWorkoutActivity.h and the quantity sample headers. Apple does
// not document their strings; these are the properties they name, which is all a format string could use.

/// The key path of the workout a sample is associated with. HealthKit: HKPredicateKeyPathWorkout.
public let HKPredicateKeyPathWorkout = "workout"
/// The key path of an object's source revision. HealthKit: HKPredicateKeyPathSourceRevision.
public let HKPredicateKeyPathSourceRevision = "sourceRevision"
/// The key path of a source revision's source. HealthKit: HKPredicateKeyPathSourceRevisionSource.
public let HKPredicateKeyPathSourceRevisionSource = "sourceRevision.source"
/// The key path of a source revision's version. HealthKit: HKPredicateKeyPathSourceRevisionVersion.
public let HKPredicateKeyPathSourceRevisionVersion = "sourceRevision.version"
/// The key path of a source revision's product type. HealthKit: HKPredicateKeyPathSourceRevisionProductType.
public let HKPredicateKeyPathSourceRevisionProductType = "sourceRevision.productType"
/// The key path of a source revision's operating system version.
/// HealthKit: HKPredicateKeyPathSourceRevisionOperatingSystemVersion.
public let HKPredicateKeyPathSourceRevisionOperatingSystemVersion = "sourceRevision.operatingSystemVersion"
/// The key path of a workout's total distance (deprecated in HealthKit 18 for statistics).
/// HealthKit: HKPredicateKeyPathWorkoutTotalDistance.
public let HKPredicateKeyPathWorkoutTotalDistance = "totalDistance"
/// The key path of a workout's total energy (deprecated in HealthKit 18). HealthKit: HKPredicateKeyPathWorkoutTotalEnergyBurned.
public let HKPredicateKeyPathWorkoutTotalEnergyBurned = "totalEnergyBurned"
/// The key path of a workout's total strokes (deprecated in HealthKit 18).
/// HealthKit: HKPredicateKeyPathWorkoutTotalSwimmingStrokeCount.
public let HKPredicateKeyPathWorkoutTotalSwimmingStrokeCount = "totalSwimmingStrokeCount"
/// The key path of a workout's total flights (deprecated in HealthKit 18).
/// HealthKit: HKPredicateKeyPathWorkoutTotalFlightsClimbed.
public let HKPredicateKeyPathWorkoutTotalFlightsClimbed = "totalFlightsClimbed"
/// The key path of the sum of a workout statistic. HealthKit: HKPredicateKeyPathWorkoutSumQuantity.
public let HKPredicateKeyPathWorkoutSumQuantity = "sumQuantity"
/// The key path of the minimum of a workout statistic. HealthKit: HKPredicateKeyPathWorkoutMinimumQuantity.
public let HKPredicateKeyPathWorkoutMinimumQuantity = "minimumQuantity"
/// The key path of the maximum of a workout statistic. HealthKit: HKPredicateKeyPathWorkoutMaximumQuantity.
public let HKPredicateKeyPathWorkoutMaximumQuantity = "maximumQuantity"
/// The key path of the average of a workout statistic. HealthKit: HKPredicateKeyPathWorkoutAverageQuantity.
public let HKPredicateKeyPathWorkoutAverageQuantity = "averageQuantity"
/// The key path of a workout's activities. HealthKit: HKPredicateKeyPathWorkoutActivity.
public let HKPredicateKeyPathWorkoutActivity = "workoutActivity"
/// The key path of an activity's type. HealthKit: HKPredicateKeyPathWorkoutActivityType.
public let HKPredicateKeyPathWorkoutActivityType = "workoutActivityType"
/// The key path of an activity's duration. HealthKit: HKPredicateKeyPathWorkoutActivityDuration.
public let HKPredicateKeyPathWorkoutActivityDuration = "duration"
/// The key path of an activity's start date. HealthKit: HKPredicateKeyPathWorkoutActivityStartDate.
public let HKPredicateKeyPathWorkoutActivityStartDate = "startDate"
/// The key path of an activity's end date. HealthKit: HKPredicateKeyPathWorkoutActivityEndDate.
public let HKPredicateKeyPathWorkoutActivityEndDate = "endDate"
/// The key path of the sum of an activity statistic. HealthKit: HKPredicateKeyPathWorkoutActivitySumQuantity.
public let HKPredicateKeyPathWorkoutActivitySumQuantity = "sumQuantity"
/// The key path of the minimum of an activity statistic. HealthKit: HKPredicateKeyPathWorkoutActivityMinimumQuantity.
public let HKPredicateKeyPathWorkoutActivityMinimumQuantity = "minimumQuantity"
/// The key path of the maximum of an activity statistic. HealthKit: HKPredicateKeyPathWorkoutActivityMaximumQuantity.
public let HKPredicateKeyPathWorkoutActivityMaximumQuantity = "maximumQuantity"
/// The key path of the average of an activity statistic. HealthKit: HKPredicateKeyPathWorkoutActivityAverageQuantity.
public let HKPredicateKeyPathWorkoutActivityAverageQuantity = "averageQuantity"
/// The key path of a discrete sample's minimum. HealthKit: HKPredicateKeyPathMin.
public let HKPredicateKeyPathMin = "min"
/// The key path of a discrete sample's average. HealthKit: HKPredicateKeyPathAverage.
public let HKPredicateKeyPathAverage = "average"
/// The key path of a discrete sample's maximum. HealthKit: HKPredicateKeyPathMax.
public let HKPredicateKeyPathMax = "max"
/// The key path of a discrete sample's most recent value. HealthKit: HKPredicateKeyPathMostRecent.
public let HKPredicateKeyPathMostRecent = "mostRecent"
/// The key path of the start of a discrete sample's most recent value. HealthKit: HKPredicateKeyPathMostRecentStartDate.
public let HKPredicateKeyPathMostRecentStartDate = "mostRecentStartDate"
/// The key path of the end of a discrete sample's most recent value. HealthKit: HKPredicateKeyPathMostRecentEndDate.
public let HKPredicateKeyPathMostRecentEndDate = "mostRecentEndDate"
/// The key path of the duration of a discrete sample's most recent value. HealthKit: HKPredicateKeyPathMostRecentDuration.
public let HKPredicateKeyPathMostRecentDuration = "mostRecentDuration"
/// The key path of a cumulative sample's sum. HealthKit: HKPredicateKeyPathSum.
public let HKPredicateKeyPathSum = "sum"
