import Foundation
import GRDB
import HealthKitModel

/// WorkoutKit's plans as `.workout` bytes: a workout's plan (`workout_plans`), the schedule
/// (`scheduled_workout_plans`) and the plan library (`plan_library`).
extension StoreDatabase {
    func workoutPlan(ofWorkout workout: UUID, _ db: Database) throws -> Data? {
        try Data.fetchOne(
            db,
            sql: """
                SELECT p.plan FROM workout_plans p JOIN workouts w ON w.sample_id = p.workout_id WHERE w.uuid = ?
                """, arguments: [workout])
    }

    func setWorkoutPlan(_ plan: Data, workoutID: Int64, _ db: Database) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO workout_plans (workout_id, plan) VALUES (?, ?)", arguments: [workoutID, plan])
    }

    func scheduledPlans(_ db: Database) throws -> [ScheduledPlanRecord] {
        try Row.fetchAll(
            db, sql: "SELECT plan, plan_id, date, complete FROM scheduled_workout_plans ORDER BY date, id"
        ).compactMap { row in
            guard let id = UUID(uuidString: row[1]) else { return nil }
            return ScheduledPlanRecord(plan: row[0], planID: id, date: row[2], complete: row[3])
        }
    }

    /// Adds or replaces a scheduled plan; false when `limit` others are already scheduled.
    func schedulePlan(_ record: ScheduledPlanRecord, limit: Int, _ db: Database) throws -> Bool {
        let key: [any DatabaseValueConvertible] = [record.planID.uuidString, record.date]
        let exists =
            try Bool.fetchOne(
                db, sql: "SELECT 1 FROM scheduled_workout_plans WHERE plan_id = ? AND date = ?",
                arguments: StatementArguments(key)) == true
        if !exists {
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM scheduled_workout_plans") ?? 0
            guard count < limit else { return false }
        }
        try db.execute(
            sql: """
                INSERT INTO scheduled_workout_plans (plan_id, date, complete, plan) VALUES (?, ?, ?, ?)
                ON CONFLICT (plan_id, date) DO UPDATE SET plan = excluded.plan, complete = excluded.complete
                """, arguments: [record.planID.uuidString, record.date, record.complete, record.plan])
        return true
    }

    func removeScheduledPlan(planID: UUID, date: String, _ db: Database) throws -> Bool {
        try db.execute(
            sql: "DELETE FROM scheduled_workout_plans WHERE plan_id = ? AND date = ?",
            arguments: [planID.uuidString, date])
        return db.changesCount > 0
    }

    func markScheduledPlanComplete(planID: UUID, date: String, _ db: Database) throws -> Bool {
        try db.execute(
            sql: "UPDATE scheduled_workout_plans SET complete = 1 WHERE plan_id = ? AND date = ?",
            arguments: [planID.uuidString, date])
        return db.changesCount > 0
    }

    func addLibraryPlan(_ record: LibraryPlanRecord, _ db: Database) throws -> Int64 {
        try db.execute(
            sql: "INSERT INTO plan_library (name, source, imported, plan) VALUES (?, ?, ?, ?)",
            arguments: [record.name, record.source, record.imported.timeIntervalSince1970, record.plan])
        return db.lastInsertedRowID
    }

    func libraryPlans(id: Int64?, _ db: Database) throws -> [LibraryPlanRecord] {
        let rows =
            if let id {
                try Row.fetchAll(
                    db, sql: "SELECT id, name, source, imported, plan FROM plan_library WHERE id = ?", arguments: [id])
            } else {
                try Row.fetchAll(db, sql: "SELECT id, name, source, imported, plan FROM plan_library ORDER BY id")
            }
        return rows.map {
            LibraryPlanRecord(
                id: $0[0], name: $0[1], source: $0[2], imported: Date(timeIntervalSince1970: $0[3]), plan: $0[4])
        }
    }
}
