import BluetoothLE
import FitnessSensors
import Foundation
import Logging

/// Makes a ``Sensor`` for an identifier: `ble:AA:BB:CC:DD:EE:FF[/random]` (or a bare address)
/// connects over L2CAP; `unix:PATH` connects to a simulated peripheral's `AF_UNIX` socket.
///
/// Nothing is opened until the sensor is started, so this succeeds on a machine without
/// Bluetooth; the failure then arrives as a `.disconnected(reason:)` event with the sentence that
/// says how to fix it.
///
/// - Parameters:
///   - identifier: The sensor identifier or address.
///   - name: A name for people; defaults to the address.
///   - capabilities: What it measures, if known (from pairing); defaults to everything a strap or
///     power meter can measure.
/// - Throws: ``BlueZError/Code/invalidAddress`` for an identifier that is neither form.
public func makeSensor(
    identifier: String,
    name: String? = nil,
    capabilities: SensorCapabilities? = nil,
    options: BLESensor.Options = BLESensor.Options(),
    clock: any Clock<Duration> = ContinuousClock(),
    wallClock: @escaping @Sendable () -> Date = { Date() },
    logger: Logger = Logger(label: "org.openhealthkit.ble-sensor"),
    adapter: String? = nil
) throws -> any Sensor {
    let address = try SensorAddress(parsing: identifier)
    return BLESensor(
        identifier: address.identifier, name: name ?? address.description,
        capabilities: capabilities ?? SensorCapabilities.heartRateStrap.union(.powerMeter),
        options: options, clock: clock, wallClock: wallClock, logger: logger,
        connect: connector(for: address, adapter: adapter, clock: clock))
}

/// The connector for an address: a fresh bearer per call, through `adapter` (`hciN`; `nil`: the
/// first one up) for a Bluetooth address.
public func connector(
    for address: SensorAddress, adapter: String? = nil, timeout: Duration = .seconds(10),
    clock: any Clock<Duration> = ContinuousClock()
) -> BLESensor.Connector {
    switch address {
    case .bluetooth(let device):
        return { try await L2CAPConnector.connect(to: device, adapter: adapter, timeout: timeout, clock: clock) }
    case .unix(let path):
        return { try SocketBearer.connect(unixPath: path) }
    }
}

/// What a quick connection learns about a device: enough to pair it.
public struct SensorProbe: Sendable {
    public var capabilities: SensorCapabilities
    /// The Device Name of its Generic Access service (0x2A00), if it has one: the name a phone shows, and usually
    /// the one it advertises ("Polar H10 8A1C2D3E").
    public var deviceName: String?
    public var deviceInformation: DeviceInformation
    /// The services found, as UUID strings.
    public var services: [BluetoothUUID]

    public init(
        capabilities: SensorCapabilities, deviceName: String?, deviceInformation: DeviceInformation,
        services: [BluetoothUUID]
    ) {
        self.capabilities = capabilities
        self.deviceName = deviceName
        self.deviceInformation = deviceInformation
        self.services = services
    }

    /// Connects, discovers services, reads the Device Name and Device Information, then disconnects.
    ///
    /// - Throws: ``BlueZError`` when the device cannot be reached, `GATTClientError` when it
    ///   does not answer discovery.
    public static func probe(
        _ address: SensorAddress, adapter: String? = nil, timeout: Duration = .seconds(10),
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> SensorProbe {
        let bearer = try await connector(for: address, adapter: adapter, timeout: timeout, clock: clock)()
        defer { bearer.close() }
        let client = GATTClient(bearer: bearer, transactionTimeout: .init(duration: timeout, clock: clock))
        return try await withThrowingTaskGroup(of: SensorProbe?.self) { group in
            group.addTask {
                try await client.run()
                return nil
            }
            defer { group.cancelAll() }
            let services = try await client.discoverPrimaryServices()
            // A device whose Generic Access cannot be read is still paired, by its maker and model.
            var deviceName: String?
            if let access = services.first(where: { $0.uuid == .genericAccess }),
                let name = try? await client.discoverCharacteristics(of: access).first(where: { $0.uuid == .deviceName }
                ),
                name.properties.contains(.read),
                let bytes = try? await client.readLongValue(handle: name.valueHandle),
                let text = try? DeviceInformationString.decodeUTF8(bytes), !text.isEmpty
            {
                deviceName = text
            }
            var information = DeviceInformation()
            if let dis = services.first(where: { $0.uuid == .deviceInformation }) {
                for characteristic in try await client.discoverCharacteristics(of: dis)
                where characteristic.properties.contains(.read) {
                    guard let uuid = characteristic.uuid.shortValue else { continue }
                    _ = try? information.update(
                        characteristic: uuid, bytes: try await client.readLongValue(handle: characteristic.valueHandle))
                }
            }
            return SensorProbe(
                capabilities: capabilities(of: services.map(\.uuid)), deviceName: deviceName,
                deviceInformation: information, services: services.map(\.uuid))
        }
    }

    /// What a device with these services can measure.
    public static func capabilities(of services: [BluetoothUUID]) -> SensorCapabilities {
        FitnessProfiles.capabilities(ofServices: services.compactMap(\.shortValue))
    }
}
