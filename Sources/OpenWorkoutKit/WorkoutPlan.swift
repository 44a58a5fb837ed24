import Foundation
import OpenHealthKit

/// A workout to do, with an id: what a `.workout` file holds. WorkoutKit: WorkoutPlan.
public struct WorkoutPlan: Hashable, Sendable, Identifiable {
    /// The kind of workout. WorkoutKit: WorkoutPlan.Workout.
    public enum Workout: Hashable, Sendable {
        case goal(SingleGoalWorkout)
        case custom(CustomWorkout)
        case pacer(PacerWorkout)
        case swimBikeRun(SwimBikeRunWorkout)

        /// The activity: the workout's, or a swim-bike-run's `.swimBikeRun` (HealthKit's multisport type).
        public var activity: HKWorkoutActivityType {
            switch self {
            case .goal(let workout): workout.activity
            case .custom(let workout): workout.activity
            case .pacer(let workout): workout.activity
            case .swimBikeRun: .swimBikeRun
            }
        }
    }

    public var workout: WorkoutPlan.Workout
    public var id: UUID

    public init(_ workout: WorkoutPlan.Workout, id: UUID = UUID()) {
        self.workout = workout
        self.id = id
    }

    /// Reads a plan from the bytes of a `.workout` file (Apple's encoding, ``dataRepresentation``). Bytes that are
    /// not such a file, or a plan Apple's rules refuse (an iteration count of 0, a goal the activity does not
    /// support, legs out of order), throw one `DecodeError` naming what is wrong and where; it never traps.
    public init(from data: Data) throws {
        self = try WorkoutPlanCoding.decode([UInt8](data))
    }

    /// The plan as a `.workout` file: exactly the bytes Apple's WorkoutKit writes for the same plan. A plan the
    /// reader would refuse (an iteration count of 0, a goal its activity does not support, a target out of
    /// bounds) throws `HKError` `errorInvalidArgument` naming what is wrong, so that every file written reads back.
    public var dataRepresentation: Data {
        get throws {
            if let problem = WorkoutPlanChecks.problem(in: self) {
                throw HKError(.errorInvalidArgument, "The workout plan cannot be written: \(problem).")
            }
            return Data(WorkoutPlanCoding.encode(self))
        }
    }
}
