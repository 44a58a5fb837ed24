import Foundation
import HealthKitModel
import Synchronization

/// What OpenWorkoutKit keeps in the store, as the bytes of `.workout` files (the store does not read plans): a
/// workout's plan, WorkoutKit's schedule, and the plan library of `workout plan`. `package`: OpenWorkoutKit gives
/// the public API.
extension HKHealthStore {
    /// The plan bytes a stored workout was recorded with; nil when it has none or this app cannot read the workout
    /// (it needs read access to the workout type, as a query for the workout does).
    package func workoutPlanData(for workout: HKWorkout) async throws -> Data? {
        let readable = try await HKSampleQueryDescriptor(
            predicates: [.workout(HKQuery.predicateForObject(with: workout.uuid))], sortDescriptors: [], limit: 1
        ).result(for: self)
        guard !readable.isEmpty else { return nil }
        return try await backend().workoutPlan(ofWorkout: workout.uuid)
    }

    /// Keeps plan bytes as the plan of a stored workout this app saved (its share authorization of the workout
    /// type is checked).
    package func setWorkoutPlanData(_ plan: Data, for workout: HKWorkout) async throws {
        try await backend().checkShareAuthorization(
            ShareCheck(client: clientIdentifier, types: [HKObjectType.workoutType()]))
        try await backend().setWorkoutPlan(plan, ofWorkout: workout.uuid)
    }

    package func scheduledPlanRecords() async throws -> [ScheduledPlanRecord] {
        try await backend().scheduledPlans()
    }

    package func schedulePlanRecord(_ record: ScheduledPlanRecord, limit: Int) async throws -> Bool {
        let added = try await backend().schedulePlan(record, limit: limit)
        notifyChange()
        return added
    }

    package func removeScheduledPlanRecord(planID: UUID, date: String) async throws -> Bool {
        let removed = try await backend().removeScheduledPlan(planID: planID, date: date)
        notifyChange()
        return removed
    }

    package func markScheduledPlanRecordComplete(planID: UUID, date: String) async throws -> Bool {
        let marked = try await backend().markScheduledPlanComplete(planID: planID, date: date)
        notifyChange()
        return marked
    }

    package func removeAllScheduledPlanRecords() async throws {
        try await backend().removeAllScheduledPlans()
        notifyChange()
    }

    package func addLibraryPlan(_ record: LibraryPlanRecord) async throws -> Int64 {
        let id = try await backend().addLibraryPlan(record)
        notifyChange()
        return id
    }

    package func libraryPlans() async throws -> [LibraryPlanRecord] { try await backend().libraryPlans() }

    package func libraryPlan(id: Int64) async throws -> LibraryPlanRecord? { try await backend().libraryPlan(id: id) }
}

extension HKWorkoutBuilder {
    /// Attaches a plan (a `.workout` file's bytes) to the workout being built: `finishWorkout()` saves it with the
    /// workout in its transaction, and `HKWorkout.workoutPlan` gives it back. The last one attached wins; nil
    /// removes it. OpenWorkoutKit's `setWorkoutPlan(_:)` calls it.
    package func attachWorkoutPlanData(_ plan: Data?) {
        attachedWorkoutPlan.withLock { $0 = plan }
    }

    /// The plan bytes attached to the workout being built.
    package var attachedWorkoutPlanData: Data? { attachedWorkoutPlan.withLock { $0 } }
}
