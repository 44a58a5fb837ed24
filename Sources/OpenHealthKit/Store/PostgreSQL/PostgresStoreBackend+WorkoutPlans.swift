import Foundation
import PostgresNIO

/// WorkoutKit's plans as `.workout` bytes on PostgreSQL, as ``StoreDatabase`` keeps them on SQLite: a workout's plan
/// (`workout_plans`), the schedule (`scheduled_workout_plans`, at most `limit` per person) and the plan library
/// (`plan_library`), each row its owner's.
extension PostgresStoreBackend {
    func workoutPlan(ofWorkout workout: UUID) async throws -> Data? {
        try await transaction(write: false) { c in
            try await c.rows(
                "SELECT p.plan FROM workout_plans p JOIN workouts w ON w.sample_id = p.workout_id WHERE w.uuid = ?",
                [.uuid(workout)]
            ).first?.bytes(0).map { Data($0) }
        }
    }

    func setWorkoutPlan(_ plan: Data, ofWorkout workout: UUID) async throws {
        try await transaction(write: true) { c in
            guard let id = try await self.workoutID(uuid: workout, c) else {
                throw HKError(.errorInvalidArgument, "The workout \(workout.uuidString) is not in the store.")
            }
            try await self.setWorkoutPlan(plan, workoutID: id, c)
        }
    }

    func setWorkoutPlan(_ plan: Data, workoutID: Int64, _ c: PostgresConnection) async throws {
        try await c.rows(
            """
            INSERT INTO workout_plans (workout_id, plan) VALUES (?, ?)
            ON CONFLICT (owner, workout_id) DO UPDATE SET plan = excluded.plan
            """, [.integer(workoutID), .bytes(Array(plan))])
    }

    func scheduledPlans() async throws -> [ScheduledPlanRecord] {
        try await transaction(write: false) { c in
            try await c.rows("SELECT plan, plan_id, date, complete FROM scheduled_workout_plans ORDER BY date, id")
                .compactMap { row in
                    guard let id = UUID(uuidString: try row.at(1)) else { return nil }
                    return ScheduledPlanRecord(
                        plan: Data(try row.bytes(0) ?? []), planID: id, date: try row.at(2), complete: try row.at(3))
                }
        }
    }

    /// Adds or replaces a scheduled plan; false when `limit` others are already scheduled.
    func schedulePlan(_ record: ScheduledPlanRecord, limit: Int) async throws -> Bool {
        try await transaction(write: true) { c in
            let key: [PostgresValue] = [.text(record.planID.uuidString), .text(record.date)]
            let exists =
                !(try await c.rows(
                    "SELECT 1 FROM scheduled_workout_plans WHERE plan_id = ? AND date = ?", key
                ).isEmpty)
            if !exists {
                let count = try await c.rows("SELECT count(*) FROM scheduled_workout_plans").first?.at(
                    0, as: Int64.self)
                guard (count ?? 0) < limit else { return false }
            }
            try await c.rows(
                """
                INSERT INTO scheduled_workout_plans (plan_id, date, complete, plan) VALUES (?, ?, ?, ?)
                ON CONFLICT (owner, plan_id, date) DO UPDATE SET plan = excluded.plan, complete = excluded.complete
                """, key + [.boolean(record.complete), .bytes(Array(record.plan))])
            return true
        }
    }

    func removeScheduledPlan(planID: UUID, date: String) async throws -> Bool {
        try await transaction(write: true) { c in
            !(try await c.rows(
                "DELETE FROM scheduled_workout_plans WHERE plan_id = ? AND date = ? RETURNING id",
                [.text(planID.uuidString), .text(date)]
            ).isEmpty)
        }
    }

    func markScheduledPlanComplete(planID: UUID, date: String) async throws -> Bool {
        try await transaction(write: true) { c in
            !(try await c.rows(
                "UPDATE scheduled_workout_plans SET complete = true WHERE plan_id = ? AND date = ? RETURNING id",
                [.text(planID.uuidString), .text(date)]
            ).isEmpty)
        }
    }

    func removeAllScheduledPlans() async throws {
        try await transaction(write: true) { c in _ = try await c.rows("DELETE FROM scheduled_workout_plans") }
    }

    func addLibraryPlan(_ record: LibraryPlanRecord) async throws -> Int64 {
        try await transaction(write: true) { c in
            guard
                let row = try await c.rows(
                    "INSERT INTO plan_library (name, source, imported, plan) VALUES (?, ?, ?, ?) RETURNING id",
                    [
                        PostgresValue(record.name), .text(record.source), .real(record.imported.timeIntervalSince1970),
                        .bytes(Array(record.plan)),
                    ]
                ).first
            else { throw HKError(.errorDatabaseInaccessible, "The plan could not be added to the library.") }
            return try row.at(0)
        }
    }

    func libraryPlans() async throws -> [LibraryPlanRecord] {
        try await libraryPlans(
            PostgresStatement("SELECT id, name, source, imported, plan FROM plan_library ORDER BY id"))
    }

    func libraryPlan(id: Int64) async throws -> LibraryPlanRecord? {
        try await libraryPlans(
            PostgresStatement("SELECT id, name, source, imported, plan FROM plan_library WHERE id = ?", [.integer(id)])
        ).first
    }

    private func libraryPlans(_ statement: PostgresStatement) async throws -> [LibraryPlanRecord] {
        try await transaction(write: false) { c in
            try await c.rows(statement).map {
                LibraryPlanRecord(
                    id: try $0.at(0), name: try $0.at(1), source: try $0.at(2),
                    imported: Date(timeIntervalSince1970: try $0.at(3)), plan: Data(try $0.bytes(4) ?? []))
            }
        }
    }
}
