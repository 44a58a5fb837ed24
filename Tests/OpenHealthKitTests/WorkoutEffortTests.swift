import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit

/// The workout-effort relationship API: effort samples related to a workout or an activity, read back by anchor. On both backends.
@Suite(.postgresCluster, .timeLimit(.minutes(1))) struct WorkoutEffortTests {
    func effort(_ type: HKQuantityTypeIdentifier, _ score: Double, at offset: TimeInterval) -> HKQuantitySample {
        HKQuantitySample(
            type: HKQuantityType(type), quantity: HKQuantity(unit: .appleEffortScore(), doubleValue: score),
            start: t0 + offset, end: t0 + offset)
    }

    @Test(arguments: StoreKind.available) func relatedSamplesReadBackByAnchorAndRelevance(kind: StoreKind) async throws
    {
        let directory = try TemporaryDirectory()
        let store = try await authorizedStore(databasePath: try await kind.freshStoreName(directory))
        try await store.requestAuthorization(
            toShare: [HKQuantityType(.workoutEffortScore), HKQuantityType(.estimatedWorkoutEffortScore)],
            read: [HKQuantityType(.workoutEffortScore), HKQuantityType(.estimatedWorkoutEffortScore)])
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration(.running), device: nil)
        try await builder.beginCollection(at: t0)
        try await builder.endCollection(at: t0 + 1800)
        let workout = try #require(try await builder.finishWorkout())
        let estimated = effort(.estimatedWorkoutEffortScore, 6, at: 1800)
        let rated = effort(.workoutEffortScore, 8, at: 1800)
        try await store.save([estimated, rated])
        let unsaved = effort(.workoutEffortScore, 3, at: 1800)
        await expectHKError(.errorInvalidArgument) {
            try await store.relateWorkoutEffortSample(unsaved, with: workout, activity: nil)
        }
        await expectHKError(.errorInvalidArgument) {
            try await store.relateWorkoutEffortSample(heartRate(60, at: 0), with: workout, activity: nil)
        }

        try await store.relateWorkoutEffortSample(estimated, with: workout, activity: nil)
        try await store.relateWorkoutEffortSample(rated, with: workout, activity: nil)
        try await store.relateWorkoutEffortSample(rated, with: workout, activity: nil)  // twice: no change
        let all = try await HKWorkoutEffortRelationshipQueryDescriptor(
            predicate: HKQuery.predicateForObject(with: workout.uuid),
            anchor: nil, option: .default
        ).result(for: store)
        #expect(all.relationships.count == 1)
        #expect(all.relationships.first?.workout.uuid == workout.uuid && all.relationships.first?.activity == nil)
        #expect(all.relationships.first?.samples?.map(\.uuid) == [estimated.uuid, rated.uuid])
        // The person's own rating is the most relevant.
        let relevant = try await HKWorkoutEffortRelationshipQueryDescriptor(
            predicate: nil, anchor: nil, option: .mostRelevant
        ).result(for: store)
        #expect(relevant.relationships.first?.samples?.map(\.uuid) == [rated.uuid])
        // Nothing new after the anchor; unrelating removes the sample.
        let later = try await HKWorkoutEffortRelationshipQueryDescriptor(
            predicate: nil, anchor: all.newAnchor, option: .default
        ).result(for: store)
        #expect(later.relationships.isEmpty)
        try await store.unrelateWorkoutEffortSample(rated, from: workout, activity: nil)
        let after: [HKWorkoutEffortRelationship] = try await withCheckedThrowingContinuation { continuation in
            store.execute(
                HKWorkoutEffortRelationshipQuery(predicate: nil, anchor: nil, options: .default) {
                    _, relationships, _, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else {
                        continuation.resume(returning: relationships ?? [])
                    }
                })
        }
        #expect(after.first?.samples?.map(\.uuid) == [estimated.uuid])
    }
}
