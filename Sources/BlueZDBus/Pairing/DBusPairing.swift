import BlueZTransport
import BluetoothLE
import FitnessSensors
import Foundation
import Glibc

/// `workout pair` through bluetoothd: connect, learn what the sensor measures from its services, bond it when it is
/// not bonded yet (Just Works, through this program's ``PairingAgent``: no dialog), and mark it `Trusted` so
/// bluetoothd lets it reconnect on its own.
///
/// A sensor that refuses bonding (many straps do not bond at all) is still paired with the store: the refusal is
/// reported in ``Outcome/bonding`` and nothing else fails. A connection this made is closed again at the end.
public struct DBusPairing: Sendable {
    public let client: BlueZClient
    public var adapter: String?
    public var timeout: Duration

    public init(client: BlueZClient, adapter: String? = nil, timeout: Duration = .seconds(20)) {
        self.client = client
        self.adapter = adapter
        self.timeout = timeout
    }

    /// What pairing learned and did.
    public struct Outcome: Sendable {
        public var probe: SensorProbe
        /// The address as bluetoothd knows it (with its type).
        public var address: BluetoothAddress
        /// "bonded", "already bonded", or why bonding failed.
        public var bonding: String
        public var trusted: Bool
        /// The sensor has a Device Information service (bluetoothd lists it among the device's services) that
        /// bluetoothd does not export: BlueZ before 5.80 keeps the services its own plugins claim to itself, so the
        /// maker and model cannot be read through it.
        public var deviceInformationHidden: Bool

        /// What to tell the person when ``deviceInformationHidden``.
        public static let hiddenDeviceInformation =
            "bluetoothd keeps the sensor's Device Information to itself (BlueZ before 5.80 does), so its maker and "
            + "model are not recorded; BlueZ 5.80 or later shows them."
    }

    public func pair(
        _ address: BluetoothAddress, clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> Outcome {
        // A sensor just for this: connecting, discovery when bluetoothd has not seen it, services resolved.
        let sensor = DBusSensor(
            address: address,
            options: {
                var options = DBusSensor.Options()
                options.adapter = adapter
                options.connectTimeout = timeout
                options.servicesTimeout = timeout
                return options
            }(), clock: clock, bus: { [client] in client.connection })
        // The agent first: bluetoothd bonds by itself when a characteristic asks for encryption, and asks it.
        let agent = try await PairingAgent.register(with: client)
        let path: String
        let connectedHere: Bool
        do {
            (path, connectedHere) = try await sensor.connectForPairing(client: client, clock: clock)
        } catch {
            await agent.unregister()
            throw error
        }
        do {
            let bonding = try await bondIfNeeded(path)
            try await client.set(path, BlueZ.device, "Trusted", .boolean(true))
            let objects = try await client.managedObjects()
            guard let device = objects.device(at: path), let known = device.address else {
                throw BlueZError(.connectionFailed, "bluetoothd no longer knows \(SensorAddress.bluetooth(address)).")
            }
            let characteristics = objects.characteristics(of: path)
            let information = await client.deviceInformation(characteristics) { _, _ in }
            let exported = characteristics.contains { characteristic in
                characteristic.uuid.shortValue.flatMap(DeviceInformationField.init(rawValue:)) != nil
            }
            let hidden = !exported && device.services.contains { $0.shortValue == 0x180A }
            let probe = SensorProbe(
                capabilities: SensorProbe.capabilities(of: device.services), deviceName: device.name,
                deviceInformation: information, services: device.services)
            await agent.unregister()
            if connectedHere { _ = try? await client.call(path, BlueZ.device, "Disconnect", timeout: .seconds(5)) }
            return Outcome(
                probe: probe, address: known, bonding: bonding, trusted: device.isTrusted,
                deviceInformationHidden: hidden)
        } catch {
            await agent.unregister()
            if connectedHere { _ = try? await client.call(path, BlueZ.device, "Disconnect", timeout: .seconds(5)) }
            throw error
        }
    }
}

extension DBusPairing {
    /// Removes what bluetoothd keeps of the sensor (its bond, its trust, its cached services) on the chosen adapter,
    /// or on every adapter when none is chosen, as `bluetoothctl remove` does: a stale bond (the sensor reset, or
    /// bonded with another host since) is gone, and the next pairing starts afresh. Returns how many device objects
    /// it removed (0 when bluetoothd knew none).
    public func forget(_ address: BluetoothAddress) async throws(BlueZError) -> Int {
        let objects = try await client.managedObjects()
        var removed = 0
        for path in objects.paths(with: BlueZ.device).sorted() {
            guard objects.device(at: path)?.address?.rawValue == address.rawValue else { continue }
            let adapterPath = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
            if let adapter, adapterPath != "/org/bluez/\(adapter)" { continue }
            _ = try await client.call(adapterPath, BlueZ.adapter, "RemoveDevice", [.objectPath(path)])
            removed += 1
        }
        return removed
    }

    /// Bonds the sensor when it needs it: each measurement is subscribed to once and released, as a recording
    /// would. A sensor that protects one makes bluetoothd raise the link's security and bond through the agent by
    /// itself; where a subscription is refused for want of it all the same, `Device1.Pair` is called and the
    /// subscription tried again. "already bonded", "bonded", "no bond needed", or why bonding failed (the sensor is
    /// paired with the store all the same). Only a lost bus fails.
    func bondIfNeeded(_ path: String) async throws(BlueZError) -> String {
        let before = try await client.managedObjects()
        if before.device(at: path)?.isPaired == true { return "already bonded" }
        let measurements = before.characteristics(of: path).filter { characteristic in
            characteristic.canNotify
                && characteristic.uuid.shortValue.map(FitnessProfiles.measurementCharacteristics.contains) == true
        }
        var refused = false
        for characteristic in measurements where try await !trySubscribing(characteristic.path) { refused = true }
        if try await client.managedObjects().device(at: path)?.isPaired == true { return "bonded" }
        guard refused else { return "no bond needed" }
        do {
            _ = try await client.call(path, BlueZ.device, "Pair", timeout: timeout)
        } catch {
            if error.code == .closed { throw error }
            return "not bonded: \(error.message)"
        }
        return "bonded"
    }

    /// Subscribes to a characteristic and releases it at once; false when bluetoothd refused it as not permitted or
    /// not authorised (the sensor wants an encrypted link), true otherwise.
    private func trySubscribing(_ path: String) async throws(BlueZError) -> Bool {
        do {
            let reply = try await client.call(path, BlueZ.characteristic, "AcquireNotify", [.properties([])])
            for case .unixFD(let descriptor) in reply { Glibc.close(descriptor.take()) }
            return true
        } catch {
            if error.code == .closed { throw error }
            if error.code == .permissionDenied { return false }
        }
        do {
            _ = try await client.call(path, BlueZ.characteristic, "StartNotify")
            _ = try? await client.call(path, BlueZ.characteristic, "StopNotify", timeout: .seconds(5))
            return true
        } catch {
            if error.code == .closed { throw error }
            return error.code != .permissionDenied
        }
    }
}

extension DBusSensor {
    /// Finds and connects the device as a session would, and waits for its services; returns its path and whether
    /// the connection was made here.
    func connectForPairing(client: BlueZClient, clock: some Clock<Duration>) async throws -> (String, Bool) {
        let located = try await locate(client: client, clock: clock)
        defer { located.end() }
        let (watch, path) = (located.watch, located.path)
        var connectedHere = false
        // Three times at most: a link that was going down as this began (a recording that just ended disconnecting
        // it), or one that dropped while its services were resolved (the previous program's link to the sensor still
        // being torn down under the new one: the kernel keeps an unused LE link 2 s before it disconnects), is
        // connected again here, a second after the drop so that the old link is gone by then; so is a connection
        // attempt the kernel gave up (le-connection-abort-by-local: "in many cases, retrying will connect", bleak).
        for attempt in 1 ... 3 {
            if attempt > 1 { try await clock.sleep(for: .seconds(1)) }
            if !watch.state.withLock(\.connected) {
                do {
                    try await connect(path, client: client, watch: watch, clock: clock)
                } catch let error as BlueZError where error.code == .linkLost && attempt < 3 {
                    continue
                }
                connectedHere = true
            }
            try await waitForServices(watch, clock: clock)
            if watch.state.withLock(\.connected) { break }
            guard attempt < 3 else {
                throw BlueZError(
                    .connectionFailed,
                    "\(SensorAddress.bluetooth(address)) disconnected while its services were resolved, three times.")
            }
        }
        return (path, connectedHere)
    }
}
