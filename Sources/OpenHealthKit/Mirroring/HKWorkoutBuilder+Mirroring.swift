import Foundation
import HealthKitModel
import WorkoutEngine

extension HKWorkoutBuilder {
    /// A mirrored session's builder records nothing: the primary session's builder records and saves the workout,
    /// and a second one on the companion would journal a session of its own and save the workout twice.
    /// `beginCollection(at:)` and `finishWorkout()` on it throw `errorInvalidArgument` with this sentence.
    func refuseOnMirroredSession() throws {
        guard let live = self as? HKLiveWorkoutBuilder, live.workoutSession?.type == .mirrored else { return }
        throw HKError(
            .errorInvalidArgument,
            "A mirrored workout session's builder does not record: the primary session's builder records and saves the workout."
        )
    }
}
