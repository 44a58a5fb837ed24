import ArgumentParser
import BlueZDBus
import BlueZTransport
import BluetoothLE
import Foundation

extension Workout {
    struct Scan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Scan for fitness sensors nearby: straps, trainers, power meters, speed/cadence, foot pods.",
            discussion: """
                Where bluetoothd runs (every desktop, Raspberry Pi OS) the scan goes through it and \
                needs no capability: a user in the bluetooth group, or at the console, may scan. \
                OPENHEALTHKIT_BLUETOOTH=raw or =dbus forces either path.

                Without bluetoothd the scan goes through the kernel's management channel \
                (Start Discovery), which needs CAP_NET_ADMIN: run it as root, or grant it to \
                the real binary (`workout doctor` prints the exact line). The kernel keeps \
                its own background scan for pending connections. Ctrl-C ends the scan early \
                and lists what was heard.

                A sensor is known by the services or the appearance it advertises; other \
                devices heard are only counted, unless --all.

                Examples:
                  workout scan --timeout 5
                  workout scan --adapter hci1
                """
        )

        @Option(help: ArgumentHelp("How long to listen, in seconds.", valueName: "S"))
        var timeout: Double = 10
        @Option(
            help: ArgumentHelp(
                "The adapter to scan with (default: $OPENHEALTHKIT_ADAPTER, else every one powered through bluetoothd, the first one up without it).",
                valueName: "hciN")
        )
        var adapter: String?
        @Flag(help: "List every Bluetooth LE device heard, not only fitness sensors.")
        var all = false

        func validate() throws {
            guard timeout > 0, timeout <= 3600 else {
                throw ValidationError("--timeout must be between 0 and 3600 seconds, not \(timeout).")
            }
        }

        func run() async throws {
            try await reportingErrors {
                do {
                    let scan = try await scanNearby(seconds: timeout, adapter: adapter)
                    printDevices(scan.devices, adapter: adapter, all: all, everyAdapter: scan.everyAdapter)
                } catch let interrupted as ScanInterrupted {
                    printDevices(interrupted.devices, adapter: adapter, all: all)
                    throw interrupted.reason
                }
            }
        }
    }

    struct Adapters: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the Bluetooth adapters udev knows (hci0, hci1, …).",
            discussion: "Example:\n  workout adapters"
        )

        func run() throws {
            try reportingErrors {
                let adapters = try BluetoothAdapters.list()
                guard !adapters.isEmpty else {
                    throw CommandFailure(
                        "No Bluetooth adapter is present; plug one in or unblock it with `rfkill unblock bluetooth`.")
                }
                print(pad("Adapter", 10) + pad("Address", 19) + "Driver")
                for adapter in adapters {
                    print(pad(adapter.name, 10) + pad(adapter.address ?? "unknown", 19) + (adapter.driver ?? "-"))
                }
            }
        }
    }
}

/// Scans with `adapter`, else `$OPENHEALTHKIT_ADAPTER`, else the first adapter that is up (``AdapterSelection``), through
/// the kernel's management channel where bluetoothd does not run; Ctrl-C (or SIGTERM) ends the scan early, stops discovery and returns what was heard.
///
/// Through bluetoothd's D-Bus API when it runs (``BluetoothBackend``): no capability needed, its discovery stopped
/// at the end or on Ctrl-C.
///
/// With no adapter chosen (by `adapter` or `$OPENHEALTHKIT_ADAPTER`), every powered adapter (through bluetoothd), or
/// every one that is up (without it), listens at once and each device says which heard it
/// (``DiscoveredDevice/adapters``); `everyAdapter` says so.
func scanNearby(
    seconds: Double, adapter: String? = nil
) async throws -> (devices: [DiscoveredDevice], everyAdapter: Bool) {
    let duration = Duration.milliseconds(Int64(seconds * 1000))
    let scan: Task<[DiscoveredDevice], any Error>
    var everyAdapter = false
    if try await BluetoothBackend.current().kind == .dbus {
        let client = BlueZClient(connection: try SystemBus.shared())
        let adapters =
            adapter == nil && AdapterSelection.adapterFromEnvironment() == nil
            ? client.poweredAdapters(in: try await client.managedObjects()) : []
        if adapters.count > 1 {
            // Every powered adapter listens at once: a sensor out of one's reach may be in another's.
            everyAdapter = true
            scan = Task { try await DBusScanner.scan(adapters, client: client, for: duration) }
        } else {
            let scanner = DBusScanner(client: client, adapter: adapter)
            scan = Task { try await scanner.scan(for: duration) }
        }
    } else if let scanners = try await ManagementScanner.openEvery(adapter: adapter) {
        // Without bluetoothd too, every adapter that is up listens at once.
        everyAdapter = true
        scan = Task { try await ManagementScanner.scan(scanners, for: duration) }
    } else {
        let scanner = try await ManagementScanner.open(adapter: adapter)
        scan = Task { try await scanner.scan(for: duration) }
    }
    let watcher = Task {
        await interrupted()
        scan.cancel()
    }
    defer { watcher.cancel() }
    let devices = try await withTaskCancellationHandler {
        try await scan.value
    } onCancel: {
        scan.cancel()
    }
    return (devices, everyAdapter)
}

/// Prints what a scan heard (``scanLines(_:all:otherAdapters:)``); after a scan of one adapter that heard nothing, the
/// machine's other adapters are named.
func printDevices(_ heard: [DiscoveredDevice], adapter: String? = nil, all: Bool = false, everyAdapter: Bool = false) {
    let note = { everyAdapter ? nil : otherAdaptersNote(named: adapter) }
    for line in scanLines(heard, all: all, otherAdapters: note) { print(line) }
}

/// What a scan prints: the fitness sensors heard (every device, with `all`) strongest first within each kind, and how
/// many others were heard; when none, one sentence with what to do, and `otherAdapters`' note.
func scanLines(_ heard: [DiscoveredDevice], all: Bool, otherAdapters: () -> String?) -> [String] {
    let devices = all ? heard : heard.filter { $0.kind != .other }
    let others = heard.count - devices.count
    let plural = others == 1 ? "" : "s"
    guard !devices.isEmpty else {
        let counted = others == 0 ? "" : " (\(others) other Bluetooth LE device\(plural) heard; --all lists them)"
        return [
            "No \(all ? "Bluetooth LE device" : "fitness sensor") heard\(counted); wake the sensor (wet a strap's contacts, spin the cranks) and scan again."
        ] + [otherAdapters()].compactMap { $0 }
    }
    // Which adapter heard each, when several listened (the strongest signal's first).
    let byAdapter = heard.contains { !$0.adapters.isEmpty }
    var lines = [
        pad("Name", 22) + pad("Address", 26) + pad("RSSI", 6) + pad("Kind", 17) + (byAdapter ? pad("Heard by", 12) : "")
            + "Services"
    ]
    for device in devices {
        let services = device.services.map { $0.shortValue.map { String(format: "0x%04X", $0) } ?? "\($0)" }.joined(
            separator: ",")
        lines.append(
            pad(device.name ?? "(no name)", 22) + pad(device.addressSpelling, 26)
                + pad(device.rssi.map(String.init) ?? "-", 6) + pad(device.kind.description, 17)
                + (byAdapter ? pad(device.adapters.joined(separator: ","), 12) : "")
                + (services.isEmpty ? "-" : services))
    }
    if others > 0 { lines.append("\(others) other Bluetooth LE device\(plural) heard; --all lists them.") }
    return lines
}

/// With several adapters and none named (by `--adapter` or `$OPENHEALTHKIT_ADAPTER`), which ones there are and how to
/// scan with another: a sensor out of one adapter's reach may be in another's.
func otherAdaptersNote(
    named adapter: String?, adapters: [String]? = (try? BluetoothAdapters.list())?.map(\.name),
    environment: [String: String] = ProcessInfo.processInfo.environment
) -> String? {
    guard adapter == nil, AdapterSelection.adapterFromEnvironment(environment) == nil, let adapters, adapters.count > 1
    else { return nil }
    return "This machine has \(adapters.count) adapters (\(adapters.joined(separator: ", "))) and the scan used one; "
        + "scan with another with --adapter \(adapters.last ?? "hci1")."
}
