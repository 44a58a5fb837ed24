import FitnessSensors
import Foundation
import GRDB
import HealthKitModel
import WorkoutEngine

/// Sensors paired with the store (`paired_sensors`): what live data sources connect to.
extension StoreDatabase {
    /// Pairs a sensor, replacing the name and capabilities of an earlier pairing of the same identifier (its pairing
    /// date stays, so the order of `pairedSensors` does not change).
    func pairSensor(_ sensor: PairedSensor, at date: Date, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO paired_sensors (identifier, name, capabilities, paired) VALUES (?, ?, ?, ?)
                ON CONFLICT (identifier) DO UPDATE SET name = excluded.name, capabilities = excluded.capabilities
                """, arguments: [sensor.identifier, sensor.name, Int(sensor.capabilities.rawValue), date.storeValue])
    }

    /// Forgets a paired sensor; returns whether it was paired.
    func unpairSensor(identifier: String, _ db: Database) throws -> Bool {
        try db.execute(sql: "DELETE FROM paired_sensors WHERE identifier = ?", arguments: [identifier])
        return db.changesCount > 0
    }

    /// The paired sensors, in the order they were paired.
    func pairedSensors(_ db: Database) throws -> [PairedSensor] {
        try Row.fetchAll(
            db, sql: "SELECT identifier, name, capabilities FROM paired_sensors ORDER BY paired, identifier"
        ).map {
            PairedSensor(
                identifier: $0[0], name: $0[1],
                capabilities: SensorCapabilities(rawValue: UInt16(truncatingIfNeeded: $0[2] as Int)))
        }
    }
}
