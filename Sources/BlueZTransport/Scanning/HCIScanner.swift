import BluetoothLE
import CBlueZ
import Glibc
import Synchronization
import SystemPackage

/// LE scanning through a raw HCI socket: HCI commands written by this package, advertising
/// reports decoded by the BluetoothLE module.
///
/// ``start(channel:openStopChannel:)`` follows the kernel rather than `hcitool lescan`:
/// 1. HCI_Read_Local_Supported_Commands, and the kernel's own choice (`use_ext_scan`: octet 37,
///    bits 5 and 6) between the extended commands (0x2041/0x2042, extended reports) and the legacy
///    ones (0x200B/0x200C). A controller the kernel drives with extended commands answers legacy
///    ones with Command Disallowed (Intel AX2xx, Realtek), and an advertisement set up with
///    extended commands reaches a legacy scanner without its data.
/// 2. Disable any running scan (its status is ignored), set the parameters (active, 10 ms
///    interval and window), enable with duplicate filtering on (as `hcitool` does: far fewer
///    reports to read).
///
/// Commands wait for their own Command Complete past any number of advertising reports
/// (``HCICommandChannel``). The stop goes out on a fresh socket whose filter passes no reports at
/// all, so a full queue of reports cannot hide its answer, and a stop the controller does not
/// confirm is reported (``scan(for:clock:onDevice:)`` throws) instead of leaving it scanning.
///
/// The commands need CAP_NET_RAW (the kernel's `hci_sec_filter` lets unprivileged sockets send
/// none of the LE scan commands); without it, or on a kernel without Bluetooth, or with no
/// adapter up, opening throws a ``BlueZError`` that says what to do.
///
/// Core 5.3 Vol 4 Part E §7.4.2, §7.8.10–11, §7.8.64–65 (commands), §7.7.65.2 and §7.7.65.13
/// (reports); Linux `include/net/bluetooth/hci_core.h` (`use_ext_scan`).
public final class HCIScanner: Sendable {
    /// Which command set a scan uses.
    public enum CommandSet: Hashable, Sendable {
        case legacy, extended
    }

    private let events: SocketDescriptor
    private let adapterName: String
    private let leftovers: Mutex<[HCIEvent]>
    private let stopChannel: (@Sendable () throws -> HCICommandChannel)?
    /// The command set the scan was started with; `nil` for a bare event source.
    public let commandSet: CommandSet?

    /// Scans from a bare source of H4 event packets, sending no commands (tests, replays).
    public init(events: SocketDescriptor) {
        self.events = events
        adapterName = "the event source"
        leftovers = Mutex([])
        stopChannel = nil
        commandSet = nil
    }

    private init(channel: HCICommandChannel, commandSet: CommandSet,
                 stopChannel: @escaping @Sendable () throws -> HCICommandChannel) {
        events = channel.socket
        adapterName = channel.adapterName
        leftovers = Mutex(channel.takeSkipped())
        self.stopChannel = stopChannel
        self.commandSet = commandSet
    }

    /// Opens an adapter (the first one that is up by default) and starts an active LE scan.
    ///
    /// - Parameter adapter: `hciN`, or `nil` for the first adapter that is up.
    public static func open(adapter: String? = nil, clock: any Clock<Duration> = ContinuousClock()) async throws -> HCIScanner {
        let chosen = try AdapterSelection.choose(adapter)
        let channel = HCICommandChannel(socket: try openDevice(chosen.id, reports: true), adapterName: chosen.name, clock: clock)
        return try await start(channel: channel) {
            HCICommandChannel(socket: try openDevice(chosen.id, reports: false), adapterName: chosen.name, clock: clock)
        }
    }

    /// Starts a scan over `channel` (a raw HCI socket, or a socket pair to a scripted controller).
    ///
    /// - Parameter openStopChannel: opens the fresh channel the stop is sent on.
    public static func start(
        channel: HCICommandChannel, openStopChannel: @escaping @Sendable () throws -> HCICommandChannel
    ) async throws -> HCIScanner {
        let name = channel.adapterName
        let supported = try await channel.send(HCIReadLocalSupportedCommands(), "reading the supported commands of \(name)")
        let commandSet = Self.commandSet(from: supported)
        switch commandSet {
        case .extended:
            _ = try await channel.send(HCILESetExtendedScanEnable(isEnabled: false), "stopping a running scan on \(name)")
            try await channel.perform(HCILESetExtendedScanParameters(le1M: .init(scanType: .active, interval: 0x0010, window: 0x0010)),
                                      "setting extended scan parameters on \(name)") { refusal($0, name) }
            try await channel.perform(HCILESetExtendedScanEnable(isEnabled: true, filterDuplicates: 1),
                                      "starting an extended scan on \(name)") { refusal($0, name) }
        case .legacy:
            _ = try await channel.send(HCILESetScanEnable(isEnabled: false), "stopping a running scan on \(name)")
            try await channel.perform(HCILESetScanParameters(scanType: .active, interval: 0x0010, window: 0x0010),
                                      "setting scan parameters on \(name)") { refusal($0, name) }
            try await channel.perform(HCILESetScanEnable(isEnabled: true, filterDuplicates: true),
                                      "starting a scan on \(name)") { refusal($0, name) }
        }
        return HCIScanner(channel: channel, commandSet: commandSet, stopChannel: openStopChannel)
    }

    /// The kernel's choice: extended when both extended scan commands are supported; legacy when
    /// they are not, or when the controller did not say (a failed or malformed answer).
    static func commandSet(from answer: HCICommandChannel.Answer) -> CommandSet {
        guard case .complete(let parameters) = answer,
              let commands = try? HCILocalSupportedCommands(returnParameters: parameters) else { return .legacy }
        return commands.supportsExtendedScanning ? .extended : .legacy
    }

    private static func refusal(_ status: HCIStatus, _ name: String) -> BlueZError {
        if status == .commandDisallowed {
            return BlueZError(.commandRefused,
                              "\(name) refused to scan (Command Disallowed): another scan is running on it, by bluetoothd (`bluetoothctl scan on`, or a background scan for a paired device); run `bluetoothctl scan off` and try again.")
        }
        return BlueZError(.commandRefused, "\(name) refused to scan (\(status)); reset it with `sudo btmgmt --index \(name.dropFirst(3)) power off` and `power on`.")
    }

    /// An HCI device socket passing Command Complete, Command Status and (`reports`) LE Meta events.
    private static func openDevice(_ id: Int32, reports: Bool) throws -> SocketDescriptor {
        let dd = hci_open_dev(id)
        if dd < 0 { throw BlueZError.opening("hci\(id)", Errno(rawValue: Glibc.errno)) }
        let socket: SocketDescriptor
        do { socket = try SocketDescriptor(taking: dd) } catch {
            throw BlueZError(.system, "Preparing hci\(id) failed: \(error).", errno: error)
        }
        do { _ = try valueOrErrno { CBlueZ_filter_command_events(dd, reports ? 1 : 0) } } catch {
            throw BlueZError.opening("an HCI event filter on hci\(id)", error)
        }
        return socket
    }

    /// Collects advertising reports until `duration` has passed on `clock` (or the event source
    /// ends), then stops the scan.
    ///
    /// - Returns: the devices heard, fitness sensors first (see ``ScanResults/devices``).
    /// - Throws: ``BlueZError/Code/commandRefused`` when the controller does not confirm the stop
    ///   (it may still be scanning, and the next scan would be refused).
    public func scan(for duration: Duration, clock: any Clock<Duration> = ContinuousClock(),
                     onDevice: @escaping @Sendable (DiscoveredDevice) -> Void = { _ in }) async throws -> [DiscoveredDevice] {
        let results = SharedResults()
        var failure: (any Error)?
        do { try await collect(into: results, for: duration, clock: clock, onDevice: onDevice) } catch { failure = error }
        // A task of its own, so that a cancelled scan (Ctrl-C) still stops the controller.
        try await Task { try await self.stop() }.value
        if let failure { throw failure }
        return results.value.withLock { $0.devices }
    }

    private func collect(into results: SharedResults, for duration: Duration, clock: any Clock<Duration>,
                         onDevice: @escaping @Sendable (DiscoveredDevice) -> Void) async throws {
        let events = self.events
        let early = leftovers.withLock { leftovers in
            defer { leftovers.removeAll() }
            return leftovers
        }
        @Sendable func take(_ event: HCIEvent) {
            let device = results.value.withLock { results -> DiscoveredDevice? in
                results.add(event)
                return results.devices.first { Self.mentions(event, $0.address) }
            }
            if let device { onDevice(device) }
        }
        for event in early { take(event) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while true {
                    let packet: [UInt8]
                    do { packet = try await events.nextMessage() } catch let error as BlueZError where error.code == .linkLost {
                        return  // the event source ended
                    }
                    guard let event = try? HCIEvent.decode(h4Packet: packet) else { continue }
                    take(event)
                }
            }
            group.addTask { try await clock.sleep(for: duration) }
            defer { group.cancelAll() }
            try await group.next()
        }
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

    /// Sends the disable on a fresh channel and checks that the controller confirmed it.
    private func stop() async throws {
        guard let stopChannel, let commandSet else { return }
        events.shutdown()
        let what = "stopping the scan on \(adapterName)"
        let answer: HCICommandChannel.Answer
        do {
            let channel = try stopChannel()
            defer { channel.socket.shutdown() }
            switch commandSet {
            case .extended: answer = try await channel.send(HCILESetExtendedScanEnable(isEnabled: false), what)
            case .legacy: answer = try await channel.send(HCILESetScanEnable(isEnabled: false), what)
            }
        } catch let error as BlueZError {
            throw BlueZError(error.code, "\(adapterName) may still be scanning: \(error.message)", errno: error.errno)
        }
        guard answer.status == .success else {
            throw BlueZError(.commandRefused,
                             "\(adapterName) may still be scanning: it refused \(what) (\(answer.status)); run `sudo btmgmt --index \(adapterName.dropFirst(3)) power off` and `power on`.")
        }
    }
}
