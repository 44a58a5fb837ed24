import Foundation
import GRDB
import HealthKitModel
import WorkoutEngine

/// SQL for workout effort relationships (schema "v8: workout effort relationships").
extension StoreDatabase {
    /// The store ids of a workout and of a sample, or nil when either is not in the store.
    func effortIDs(
        workout: UUID, sample: UUID, sampleType: HKSampleType, _ db: Database
    ) throws -> (workout: Int64, sample: Int64)? {
        guard
            let workoutID = try Int64.fetchOne(
                db, sql: "SELECT sample_id FROM workouts WHERE uuid = ?", arguments: [workout]),
            let typeID = try existingTypeID(sampleType.identifier, db),
            let sampleID = try Int64.fetchOne(
                db, sql: "SELECT id FROM samples WHERE type_id = ? AND uuid = ?", arguments: [typeID, sample])
        else { return nil }
        return (workoutID, sampleID)
    }

    func relateEffort(workoutID: Int64, activity: UUID?, sampleID: Int64, _ db: Database) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO workout_effort (workout_id, activity_uuid, sample_id) VALUES (?, ?, ?)",
            arguments: [workoutID, activity, sampleID])
    }

    func unrelateEffort(workoutID: Int64, activity: UUID?, sampleID: Int64, _ db: Database) throws {
        try db.execute(
            sql: "DELETE FROM workout_effort WHERE workout_id = ? AND activity_uuid IS ? AND sample_id = ?",
            arguments: [workoutID, activity, sampleID])
    }

    /// Relationships added after `anchor` for the given workouts (by store id): workout UUID, activity UUID, sample
    /// UUID and type identifier, in anchor order; and the newest anchor.
    func effortRows(
        workoutIDs: [Int64], after anchor: Int64, _ db: Database
    )
        throws -> (rows: [(workout: UUID, activity: UUID?, sample: UUID, type: String)], newest: Int64)
    {
        let newest = try Int64.fetchOne(db, sql: "SELECT max(id) FROM workout_effort") ?? 0
        guard !workoutIDs.isEmpty else { return ([], max(anchor, newest)) }
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT w.uuid, e.activity_uuid, s.uuid, t.identifier FROM workout_effort e
                JOIN workouts w ON w.sample_id = e.workout_id JOIN samples s ON s.id = e.sample_id JOIN types t ON t.id = s.type_id
                WHERE e.id > ? AND e.workout_id IN (\(workoutIDs.map(String.init).joined(separator: ",")))
                ORDER BY e.id
                """, arguments: [anchor])
        return (rows.map { ($0[0], $0[1], $0[2], $0[3]) }, max(anchor, newest))
    }

    /// The store ids of workouts by UUID.
    func workoutIDs(_ uuids: [UUID], _ db: Database) throws -> [Int64] {
        guard !uuids.isEmpty else { return [] }
        return try Int64.fetchAll(
            db,
            sql:
                "SELECT sample_id FROM workouts WHERE uuid IN (\(Array(repeating: "?", count: uuids.count).joined(separator: ",")))",
            arguments: StatementArguments(uuids))
    }
}
