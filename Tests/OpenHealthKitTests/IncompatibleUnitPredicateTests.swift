import Foundation
import OpenHealthKit
import Testing

/// A workout or activity predicate whose quantity has a unit the type does not (heart rate in `count`, as Apple's
/// article "Dividing a HealthKit workout into activities" writes it) fails its query with `errorInvalidArgument`,
/// never a crash, where HealthKit raises on incompatible units.
@Suite(.timeLimit(.minutes(1))) struct IncompatibleUnitPredicateTests {
    @Test func workoutAndActivityStatisticPredicatesFailTheirQuery() async throws {
        let store = try await authorizedStore()
        let count = HKQuantity(unit: .count(), doubleValue: 150)
        let heartRate = HKQuantityType(.heartRate)
        let predicates: [NSPredicate] = [
            HKQuery.predicateForWorkouts(operatorType: .greaterThan, quantityType: heartRate, averageQuantity: count),
            HKQuery.predicateForWorkouts(
                activityPredicate: HKQuery.predicateForWorkoutActivities(
                    operatorType: .greaterThan, quantityType: heartRate, averageQuantity: count)),
            HKQuery.predicateForWorkouts(
                operatorType: .greaterThan, quantityType: HKQuantityType(.distanceCycling),
                sumQuantity: HKQuantity(unit: .second(), doubleValue: 10)),
        ]
        for predicate in predicates {
            let error = await expectHKError(.errorInvalidArgument) {
                _ = try await HKSampleQueryDescriptor(predicates: [.workout(predicate)], sortDescriptors: [])
                    .result(for: store)
            }
            #expect(error?.message.contains("is not one of the type's") == true)
        }
        // The same predicate with the type's unit runs.
        let bpm = HKQuantity(unit: .count().unitDivided(by: .minute()), doubleValue: 150)
        let fine = HKQuery.predicateForWorkouts(
            operatorType: .greaterThan, quantityType: heartRate, averageQuantity: bpm)
        #expect(
            try await HKSampleQueryDescriptor(predicates: [.workout(fine)], sortDescriptors: []).result(for: store)
                .isEmpty)
    }
}
