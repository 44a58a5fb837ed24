import Foundation
import GRDB
import HealthKitModel
import WorkoutEngine

/// The sensors a workout was recorded from (`workout_sensors`, migration v10).
extension StoreDatabase {
    /// Saves a finished live workout's sensors, in rank order, in the caller's write transaction.
    func insertWorkoutSensors(_ sensors: [HKWorkoutSensor], workoutID: Int64, _ db: Database) throws {
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO workout_sensors (workout_id, position, device_id, battery_first, battery_last) VALUES (?, ?, ?, ?, ?)
                """)
        for (position, sensor) in sensors.enumerated() {
            try insert.execute(arguments: [
                workoutID, position, try deviceID(sensor.device, db),
                sensor.batteryPercentAtStart, sensor.batteryPercentAtEnd,
            ])
        }
    }

    /// The sensors of the workout with this UUID, in rank order; empty for a workout not recorded live.
    func workoutSensors(workoutUUID: UUID, _ db: Database) throws -> [HKWorkoutSensor] {
        do {
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT ws.device_id, ws.battery_first, ws.battery_last FROM workout_sensors ws
                    JOIN workouts w ON w.sample_id = ws.workout_id WHERE w.uuid = ? ORDER BY ws.position
                    """, arguments: [workoutUUID])
            return try rows.map { row in
                HKWorkoutSensor(
                    device: try device(id: row[0], db), batteryPercentAtStart: row[1], batteryPercentAtEnd: row[2])
            }
        }
    }
}
