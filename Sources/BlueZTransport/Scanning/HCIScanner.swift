import BluetoothLE
import CBlueZ
import Glibc
import Synchronization
import SystemPackage

/// LE scanning through a raw HCI socket, with libbluetooth setting the controller up and the
/// BluetoothLE module parsing what comes back.
///
/// ``open(adapter:)`` follows BlueZ's `hcitool lescan`: stop any running scan, LE Set Scan
/// Parameters (active, 10 ms interval and window), LE Set Scan Enable (no duplicate filter), and
/// an HCI filter that passes LE Meta events. Each read is then one H4 event packet, decoded with
/// ``HCIEvent/decode(h4Packet:)`` into advertising reports (legacy 0x02 and extended 0x0D).
///
/// Those commands need CAP_NET_RAW (the kernel's `hci_sec_filter` lets unprivileged sockets send
/// none of them); without it, or on a kernel without Bluetooth, or with no adapter, opening
/// throws a ``BlueZError`` that says what to do. Tests feed H4 packets over a socket pair with
/// ``init(events:)``.
///
/// Core 5.3 Vol 4 Part E §7.8.10–11 (scan commands), §7.7.65.2 and §7.7.65.13 (reports).
public final class HCIScanner: Sendable {
    private let events: SocketDescriptor
    private let device: Int32?

    /// Scans from a source of H4 event packets (tests: one end of a socket pair).
    public init(events: SocketDescriptor) {
        self.events = events
        device = nil
    }

    private init(device: Int32, socket: SocketDescriptor) {
        events = socket
        self.device = device
    }

    /// Opens an adapter (the first one that is up by default) and starts an active LE scan.
    public static func open(adapter: Int32? = nil) throws -> HCIScanner {
        let id = adapter ?? hci_get_route(nil)
        if id < 0 { throw BlueZError.opening("the Bluetooth adapter", Errno(rawValue: Glibc.errno == 0 ? ENODEV : Glibc.errno)) }
        let dd = hci_open_dev(id)
        if dd < 0 { throw BlueZError.opening("hci\(id)", Errno(rawValue: Glibc.errno)) }
        let socket: SocketDescriptor
        do { socket = try SocketDescriptor(taking: dd) } catch {
            throw BlueZError(.system, "Preparing hci\(id) failed: \(error).", errno: error)
        }
        _ = hci_le_set_scan_enable(dd, 0x00, 0x00, 1000)
        try command("setting LE scan parameters on hci\(id)") {
            hci_le_set_scan_parameters(dd, 0x01, 0x0010, 0x0010, 0x00, 0x00, 1000)
        }
        try command("enabling LE scanning on hci\(id)") { hci_le_set_scan_enable(dd, 0x01, 0x00, 1000) }
        try command("filtering HCI events on hci\(id)") { CBlueZ_filter_le_meta(dd) }
        return HCIScanner(device: id, socket: socket)
    }

    private static func command(_ what: String, _ call: () -> Int32) throws {
        guard call() < 0 else { return }
        let errno = Errno(rawValue: Glibc.errno)
        switch errno {
        case .notPermitted, .permissionDenied:
            throw BlueZError.permission(what, errno)
        case .ioError:
            throw BlueZError(.commandRefused,
                             "The controller refused \(what) (Command Disallowed: bluetoothd is probably scanning already); run `bluetoothctl scan off` and try again.",
                             errno: errno)
        case .timedOut:
            throw BlueZError(.commandRefused, "The controller did not answer \(what); reset it with `sudo hciconfig \(what.split(separator: " ").last ?? "hci0") reset`.", errno: errno)
        default:
            throw BlueZError.opening(what, errno)
        }
    }

    /// Collects advertising reports until `duration` has passed on `clock` (or the event source
    /// ends), then stops the scan.
    ///
    /// - Returns: the devices heard, fitness sensors first (see ``ScanResults/devices``).
    public func scan(for duration: Duration, clock: any Clock<Duration> = ContinuousClock(),
                     onDevice: @escaping @Sendable (DiscoveredDevice) -> Void = { _ in }) async throws -> [DiscoveredDevice] {
        let results = SharedResults()
        let events = self.events
        defer { stop() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while true {
                    let packet: [UInt8]
                    do { packet = try await events.nextMessage() } catch let error as BlueZError where error.code == .linkLost {
                        return  // the event source ended
                    }
                    guard let event = try? HCIEvent.decode(h4Packet: packet) else { continue }
                    let device = results.value.withLock { results -> DiscoveredDevice? in
                        results.add(event)
                        return results.devices.first { Self.mentions(event, $0.address) }
                    }
                    if let device { onDevice(device) }
                }
            }
            group.addTask { try await clock.sleep(for: duration) }
            defer { group.cancelAll() }
            try await group.next()
        }
        return results.value.withLock { $0.devices }
    }

    private final class SharedResults: Sendable {
        let value = Mutex(ScanResults())
    }

    private static func mentions(_ event: HCIEvent, _ address: BluetoothAddress) -> Bool {
        switch event {
        case .leAdvertisingReport(let reports): reports.contains { $0.address == address }
        case .leExtendedAdvertisingReport(let reports): reports.contains { $0.address == address }
        default: false
        }
    }

    private func stop() {
        if device != nil { _ = hci_le_set_scan_enable(events.rawValue, 0x00, 0x00, 1000) }
    }
}
