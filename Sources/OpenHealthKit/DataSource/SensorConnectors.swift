import FitnessSensors
import Foundation
import HealthKitModel
import WorkoutEngine

#if BlueZ
import BlueZDBus
import BlueZTransport
#endif

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

/// Turns a paired sensor into a connected one. A store holds one (``HKHealthStore/sensorConnector``):
/// ``SensorConnector/standard``, which is BlueZ's when the package's `BlueZ` trait is on (the default), so an app
/// that only changed its import reaches the sensors paired with the store. Tests and other transports make their
/// own. OpenHealthKit.
public struct SensorConnector: Sendable {
    public typealias Connect = @Sendable (PairedSensor) throws -> any Sensor
    /// The identifier schemes it reaches (`ble`, `unix`, …).
    public var schemes: [String]
    private let make: Connect

    public init(schemes: [String], connect: @escaping Connect) {
        self.schemes = schemes
        self.make = connect
    }

    /// A sensor for a paired one; throws when no transport here reaches its scheme.
    public func connect(_ sensor: PairedSensor) throws -> any Sensor {
        guard schemes.contains(sensor.scheme) else {
            throw HKError(
                .errorInvalidArgument,
                "No transport can reach \(sensor.identifier): nothing handles '\(sensor.scheme):' sensors in this program."
            )
        }
        return try make(sensor)
    }

    /// Reaches no sensor: paired sensors are reported unavailable (a store in a test that must not touch Bluetooth).
    public static let none = SensorConnector(schemes: []) { sensor in
        throw HKError(.errorInvalidArgument, "No transport can reach \(sensor.identifier) in this program.")
    }

    /// What a store uses unless told otherwise: ``bluez`` with the package's `BlueZ` trait, ``none`` without it.
    public static var standard: SensorConnector {
        #if BlueZ
        bluez
        #else
        none
        #endif
    }

    #if BlueZ
    /// BlueZ: `ble:` addresses through bluetoothd's D-Bus API where it runs, else over L2CAP
    /// (`OPENHEALTHKIT_BLUETOOTH=dbus|raw` forces either); `unix:` paths to simulated peripherals. With a `tap`,
    /// every sensor it makes passes its raw notifications to it (`workout record --save-fixture`).
    public static func bluez(tap: (any NotificationTap)? = nil) -> SensorConnector {
        var options = BLESensor.Options()
        options.tap = tap
        return SensorConnector(schemes: ["ble", "unix"]) { [options] paired in
            try makeBluetoothSensor(
                identifier: paired.identifier, name: paired.name, capabilities: paired.capabilities, options: options)
        }
    }

    /// BlueZ without a tap.
    public static var bluez: SensorConnector { bluez(tap: nil) }
    #endif
}

extension HKHealthStore {
    /// Pairs a sensor with the store (replacing an earlier pairing of the same identifier). OpenHealthKit.
    public func pairSensor(_ sensor: PairedSensor) async throws {
        guard sensor.identifier.contains(":"), !sensor.scheme.isEmpty else {
            throw HKError(
                .errorInvalidArgument,
                "A sensor identifier looks like 'ble:AA:BB:CC:DD:EE:FF', not '\(sensor.identifier)'.")
        }
        try await backend().pairSensor(sensor, at: wallClock())
    }

    /// Forgets a paired sensor; returns whether it was paired. OpenHealthKit.
    @discardableResult
    public func unpairSensor(identifier: String) async throws -> Bool {
        try await backend().unpairSensor(identifier: identifier)
    }

    /// The sensors paired with this store, in the order they were paired. OpenHealthKit.
    public func pairedSensors() async throws -> [PairedSensor] {
        try await backend().pairedSensors()
    }
}
