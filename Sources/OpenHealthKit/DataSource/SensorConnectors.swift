import FitnessSensors
import Foundation
import GRDB
import Synchronization

/// A sensor paired with the store, as a strap is paired in Settings: data sources read from it in every live
/// workout. OpenHealthKit.
public struct PairedSensor: Sendable, Hashable {
    /// How to reach it: `ble:AA:BB:CC:DD:EE:FF`, `unix:/path/to/peripheral.sock`, …
    public var identifier: String
    public var name: String
    public var capabilities: SensorCapabilities

    public init(identifier: String, name: String, capabilities: SensorCapabilities) {
        self.identifier = identifier
        self.name = name
        self.capabilities = capabilities
    }

    /// The part of the identifier before the first colon.
    public var scheme: String { String(identifier.prefix(while: { $0 != ":" })) }
}

/// Turns paired sensors into connected ones. Transports register a connector per identifier scheme; the
/// `workout` tool registers BlueZ's (`ble`, `unix`) at start-up. OpenHealthKit.
public enum SensorConnectors {
    public typealias Connector = @Sendable (PairedSensor) throws -> any Sensor
    private static let connectors = Mutex<[String: Connector]>([:])

    public static func register(scheme: String, _ connector: @escaping Connector) {
        connectors.withLock { $0[scheme] = connector }
    }

    /// The schemes with a connector.
    public static var schemes: [String] { connectors.withLock { Array($0.keys).sorted() } }

    public static func connect(_ sensor: PairedSensor) throws -> any Sensor {
        guard let connector = connectors.withLock({ $0[sensor.scheme] }) else {
            throw HKError(.errorInvalidArgument,
                          "No transport can reach \(sensor.identifier): nothing handles '\(sensor.scheme):' sensors in this program.")
        }
        return try connector(sensor)
    }
}

extension HKHealthStore {
    /// Pairs a sensor with the store (replacing an earlier pairing of the same identifier). OpenHealthKit.
    public func pairSensor(_ sensor: PairedSensor) throws {
        guard sensor.identifier.contains(":"), !sensor.scheme.isEmpty else {
            throw HKError(.errorInvalidArgument, "A sensor identifier looks like 'ble:AA:BB:CC:DD:EE:FF', not '\(sensor.identifier)'.")
        }
        let now = wallClock()
        let database = try database()
        try database.write { db in try database.pairSensor(sensor, at: now, db) }
    }

    /// Forgets a paired sensor; returns whether it was paired. OpenHealthKit.
    @discardableResult
    public func unpairSensor(identifier: String) throws -> Bool {
        let database = try database()
        return try database.write { db in try database.unpairSensor(identifier: identifier, db) }
    }

    /// The sensors paired with this store, in the order they were paired. OpenHealthKit.
    public func pairedSensors() throws -> [PairedSensor] {
        let database = try database()
        return try database.read { db in try database.pairedSensors(db) }
    }
}
