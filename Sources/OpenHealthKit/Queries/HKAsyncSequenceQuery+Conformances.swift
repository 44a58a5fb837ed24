import Foundation
import HealthKitModel
import WorkoutEngine

// The descriptors HealthKit makes HKAsyncSequenceQuery: each one's `results(for:)` returns its own `Results`.

extension HKAnchoredObjectQueryDescriptor: HKAsyncSequenceQuery {}
extension HKStatisticsCollectionQueryDescriptor: HKAsyncSequenceQuery {}
extension HKActivitySummaryQueryDescriptor: HKAsyncSequenceQuery {}
extension HKWorkoutEffortRelationshipQueryDescriptor: HKAsyncSequenceQuery {}
extension HKQuantitySeriesSampleQueryDescriptor: HKAsyncSequenceQuery {}
extension HKWorkoutRouteQueryDescriptor: HKAsyncSequenceQuery {}
