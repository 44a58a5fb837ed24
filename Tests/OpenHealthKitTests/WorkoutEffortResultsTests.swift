import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit

/// `HKWorkoutEffortRelationshipQueryDescriptor.results(for:)`: the relationships since the anchor, then one delivery
/// per change that relates a sample, until the consumer stops. Each `next()` waits under the suite's time limit.
@Suite(.postgresCluster, .timeLimit(.minutes(1))) struct WorkoutEffortResultsTests {
    func effort(_ type: HKQuantityTypeIdentifier, _ score: Double, at offset: TimeInterval) -> HKQuantitySample {
        HKQuantitySample(
            type: HKQuantityType(type), quantity: HKQuantity(unit: .appleEffortScore(), doubleValue: score),
            start: t0 + offset, end: t0 + offset)
    }

    @Test(arguments: StoreKind.available) func relationshipsArriveAsTheyAreMade(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await authorizedStore(databasePath: try await kind.freshStoreName(directory))
        let types: Set<HKSampleType> = [
            HKQuantityType(.workoutEffortScore), HKQuantityType(.estimatedWorkoutEffortScore),
        ]
        try await store.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration(.running), device: nil)
        try await builder.beginCollection(at: t0)
        try await builder.endCollection(at: t0 + 1800)
        let workout = try #require(try await builder.finishWorkout())
        let estimated = effort(.estimatedWorkoutEffortScore, 6, at: 1800)
        let rated = effort(.workoutEffortScore, 8, at: 1800)
        let unrelated = effort(.workoutEffortScore, 2, at: 1800)
        try await store.save([estimated, rated, unrelated])
        try await store.relateWorkoutEffortSample(estimated, with: workout, activity: nil)

        let descriptor = HKWorkoutEffortRelationshipQueryDescriptor(predicate: nil, anchor: nil, option: .default)
        var updates = descriptor.results(for: store).makeAsyncIterator()
        // First: what is already related.
        let first = try #require(try await updates.next())
        #expect(first.relationships.map { $0.samples?.map(\.uuid) } == [[estimated.uuid]])
        // A save that relates nothing delivers nothing; the next relation does, with only what is new.
        try await store.save(
            HKQuantitySample(
                type: HKQuantityType(.heartRate),
                quantity: HKQuantity(unit: HKUnit(from: "count/min"), doubleValue: 90),
                start: t0, end: t0 + 1))
        try await store.relateWorkoutEffortSample(rated, with: workout, activity: nil)
        let second = try #require(try await updates.next())
        #expect(second.relationships.map { $0.samples?.map(\.uuid) } == [[rated.uuid]])
        #expect(second.newAnchor.value > first.newAnchor.value)
        // Continuing from the delivered anchor finds nothing more.
        let rest = try await HKWorkoutEffortRelationshipQueryDescriptor(
            predicate: nil, anchor: second.newAnchor, option: .default
        ).result(for: store)
        #expect(rest.relationships.isEmpty)
    }
}
