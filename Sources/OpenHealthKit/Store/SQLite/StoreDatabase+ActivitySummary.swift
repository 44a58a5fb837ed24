import Foundation
import GRDB
import HealthKitModel
import WorkoutEngine

/// SQL for activity summaries: what a day's exercise time and move are computed from.
extension StoreDatabase {
    /// The first start and last end of the samples a summary counts (active energy and workouts), or nil.
    func activityDataSpan(_ db: Database) throws -> (start: Double, end: Double)? {
        let row = try Row.fetchOne(
            db,
            sql: """
                SELECT min(s.start), max(s."end") FROM samples s JOIN types t ON t.id = s.type_id
                WHERE t.identifier IN (?, ?)
                """, arguments: [HKQuantityTypeIdentifier.activeEnergyBurned.rawValue, HKWorkoutTypeIdentifier])
        guard let row, let start = row[0] as Double?, let end = row[1] as Double? else { return nil }
        return (start, end)
    }

    /// The running spans of every workout overlapping `[start, end)`, whoever saved it: the workout's span cut by
    /// its pause and resume events (HealthKit's elapsed-time rule; see ``ExerciseTime``).
    func workoutRunningSpans(from start: Double, to end: Double, _ db: Database) throws -> [ExerciseTime.Span] {
        let workouts = try Row.fetchAll(
            db,
            sql: """
                SELECT s.id, s.start, s."end" FROM samples s JOIN workouts w ON w.sample_id = s.id
                WHERE s."end" > ? AND s.start < ?
                """, arguments: [start, end])
        var spans: [ExerciseTime.Span] = []
        let events = try db.cachedStatement(
            sql: """
                SELECT type, start FROM workout_events WHERE workout_id = ? AND type IN (?, ?) ORDER BY start, position
                """)
        for workout in workouts {
            let id: Int64 = workout[0]
            let pauses = try Row.fetchAll(
                events,
                arguments: [
                    id, HKWorkoutEventType.pause.rawValue,
                    HKWorkoutEventType.resume.rawValue,
                ]
            ).map { row in
                (paused: (row[0] as Int) == HKWorkoutEventType.pause.rawValue, at: row[1] as Double)
            }
            spans += ExerciseTime.runningSpans(start: workout[1], end: workout[2], pauses: pauses)
        }
        return spans
    }
}
