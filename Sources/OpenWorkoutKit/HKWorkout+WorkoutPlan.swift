import Foundation
import OpenHealthKit

extension HKWorkout {
    /// The plan the workout was recorded with, nil when it had none. WorkoutKit's extension of HKWorkout.
    ///
    /// It reads the default store (`HKHealthStore()`), as Apple's reads the device's one store; for another store,
    /// use `HKHealthStore.workoutPlan(for:)`.
    public var workoutPlan: WorkoutPlan? {
        get async throws { try await HKHealthStore().workoutPlan(for: self) }
    }
}

extension HKHealthStore {
    /// The plan `workout` was recorded with, nil when it had none or this app cannot read the workout.
    /// OpenHealthKit addition (Apple's `HKWorkout.workoutPlan` knows its one store).
    public func workoutPlan(for workout: HKWorkout) async throws -> WorkoutPlan? {
        guard let data = try await workoutPlanData(for: workout) else { return nil }
        return try WorkoutPlan(from: data)
    }

    /// Keeps `plan` as the plan of a stored workout this app saved, replacing one it had. OpenHealthKit addition.
    public func setWorkoutPlan(_ plan: WorkoutPlan, for workout: HKWorkout) async throws {
        try await setWorkoutPlanData(try plan.dataRepresentation, for: workout)
    }
}

extension HKWorkoutBuilder {
    /// Attaches `plan` to the workout being built: `finishWorkout()` saves it with the workout, and
    /// `HKWorkout.workoutPlan` gives it back. Nil removes it. OpenHealthKit addition (Apple's Workout app does this
    /// for the plans it runs; a plan runner calls it).
    public func setWorkoutPlan(_ plan: WorkoutPlan?) throws {
        attachWorkoutPlanData(try plan.map { try $0.dataRepresentation })
    }
}
