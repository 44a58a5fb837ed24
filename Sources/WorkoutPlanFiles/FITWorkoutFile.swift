import Foundation
import OpenWorkoutKit

/// FIT workout files (`workout` and `workout_step` messages). Not written yet: reading and writing throw.
enum FITWorkoutFile {
    static func read(_ data: Data) throws(PlanFileError) -> WorkoutPlan {
        throw PlanFileError("is a FIT file; FIT workout files are not read yet")
    }

    static func write(_ plan: WorkoutPlan) throws(PlanFileError) -> Data {
        throw PlanFileError("FIT workout files are not written yet")
    }
}
