import BlueZTransport
import BluetoothLE
import FitnessSensors
import Foundation
import Synchronization

/// Scans through bluetoothd: a discovery filter for LE (``discoveryFilter``), `StartDiscovery`, the devices bluetoothd
/// reports while it runs, `StopDiscovery`. Needs no capability: a user bluetoothd's D-Bus policy lets in (the
/// `bluetooth` group, or the console seat) is enough.
///
/// Discovery is stopped however the scan ends: its time is up, it is cancelled (Ctrl-C), or a call fails. Should
/// the process die first, bluetoothd stops the discovery itself when this client leaves the bus.
///
/// BlueZ `doc/org.bluez.Adapter.rst` (SetDiscoveryFilter, StartDiscovery, StopDiscovery).
public struct DBusScanner: Sendable {
    public let client: BlueZClient
    public let adapter: String?

    /// - Parameter adapter: `hciN`; nil: `$OPENHEALTHKIT_ADAPTER`, else the first powered adapter.
    public init(client: BlueZClient, adapter: String? = nil) {
        self.client = client
        self.adapter = adapter
    }

    /// The discovery filter: LE only. Not by service: bluetoothd fills in a device's name, signal strength and
    /// appearance only for advertisers that match the filter, and a sensor that advertises its appearance and no
    /// service (some power meters) would be a bare address; what was heard is told apart by
    /// ``DiscoveredDevice/kind`` instead (bleak filters after the fact too).
    public static var discoveryFilter: DBusValue {
        .properties([("Transport", .string("le"))])
    }

    /// Scans with every adapter of `adapters` (`hci0`, …) at once and returns what they heard, one device per address
    /// with the adapters that heard it, the strongest signal's first (``ScanResults/merging(_:)``).
    public static func scan(
        _ adapters: [String], client: BlueZClient, for duration: Duration,
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> [DiscoveredDevice] {
        try await ScanResults.together(
            adapters.map { adapter in
                let scanner = DBusScanner(client: client, adapter: adapter)
                return (adapter, { try await scanner.scan(for: duration, clock: clock) })
            })
    }

    /// Scans for `duration` on `clock` (or until cancelled) and returns what was heard, in ``ScanResults``'
    /// order: heart rate, power, speed and cadence first, strongest first.
    public func scan(
        for duration: Duration, clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> [DiscoveredDevice] {
        let heard = Locked(Heard())
        // Subscribed before the first look, so nothing bluetoothd announces in between is missed.
        let added = try await subscribe(
            "type='signal',sender='\(BlueZ.service)',interface='\(BlueZ.objectManager)'", heard)
        defer { added.cancel() }
        var objects = try await client.managedObjects()
        let adapterPath = try client.adapter(named: adapter, in: objects)
        let changed = try await subscribe(
            "type='signal',sender='\(BlueZ.service)',interface='\(BlueZ.properties)',member='PropertiesChanged',path_namespace='\(adapterPath)'",
            heard)
        defer { changed.cancel() }
        heard.withLock { state in
            for (path, interfaces) in objects.objects where interfaces[BlueZ.device]?["RSSI"] != nil {
                state.paths.insert(path)
            }
        }
        _ = try await client.call(adapterPath, BlueZ.adapter, "SetDiscoveryFilter", [Self.discoveryFilter])
        _ = try await client.call(adapterPath, BlueZ.adapter, "StartDiscovery")
        do {
            try await clock.sleep(for: duration)
        } catch {
            // Cancelled: stop below, then report what was heard.
        }
        // What was heard is taken before discovery stops: stopping, bluetoothd invalidates every found device's RSSI
        // and removes the temporary ones (`discovery_cleanup` in src/adapter.c), and those signals would empty the
        // list (bleak stops listening before StopDiscovery for the same reason).
        let (paths, events) = heard.withLock { ($0.paths, $0.events) }
        // A fresh task: a cancelled one's calls would still go out, but stop what was started whatever happens.
        let stopping = Task { [client] in
            try? await client.call(adapterPath, BlueZ.adapter, "StopDiscovery", timeout: .seconds(5))
        }
        _ = await stopping.value
        for event in events {
            switch event {
            case .added(let body): _ = try? objects.interfacesAdded(body)
            case .removed(let body): _ = try? objects.interfacesRemoved(body)
            case .changed(let path, let body): _ = try? objects.propertiesChanged(at: path, body)
            }
        }
        var results = ScanResults()
        for device in objects.devices(under: adapterPath) where paths.contains(device.path) {
            // The bare objects of advertisers that do not match the scan's filter are not listed.
            if let discovered = device.discovered, discovered.isDescribed { results.add(discovered) }
        }
        return results.devices
    }

    private struct Heard: Sendable {
        var paths: Set<String> = []
        var events: [Event] = []
    }

    private enum Event: Sendable {
        case added([DBusValue])
        case removed([DBusValue])
        case changed(String, [DBusValue])
    }

    private func subscribe(
        _ rule: String, _ heard: Locked<Heard>
    ) async throws(BlueZError) -> BusConnection.Subscription {
        do throws(DBusError) {
            return try await client.connection.addMatch(rule) { signal in
                heard.withLock { state in
                    switch signal.member {
                    case "InterfacesAdded":
                        state.events.append(Event.added(signal.body))
                        if case .objectPath(let path)? = signal.body.first { state.paths.insert(path) }
                    case "InterfacesRemoved":
                        state.events.append(.removed(signal.body))
                    case "PropertiesChanged":
                        state.events.append(.changed(signal.path, signal.body))
                        if case .string(BlueZ.device)? = signal.body.first { state.paths.insert(signal.path) }
                    default: break
                    }
                }
            }
        } catch {
            throw BlueZClient.sentence(for: error, calling: "AddMatch", at: rule)
        }
    }
}
