import BluetoothLE
import Synchronization

/// LE scanning through the kernel's management channel, as `btmgmt find -l` does, with no HCI
/// command of its own: Start Discovery for LE, Device Found events, Stop Discovery at the end.
///
/// The kernel runs the scan: it chooses between legacy and extended scan commands (and honours
/// the quirks of controllers whose extended scanning is broken, `HCI_QUIRK_BROKEN_EXT_SCAN`),
/// pauses its own background passive scan (the one that serves pending LE connections, such as a
/// mouse's or a keyboard's) only while discovering, and restores it afterwards. A raw HCI scan
/// could do none of that and left the passive scan off.
///
/// The kernel also ends an LE discovery by itself: after about 10 s, or to make a connection.
/// Discovering (0) then arrives and the scan starts discovery again at once (``restarts`` counts
/// these); when the kernel refuses the new start the scan ends early with ``ScanInterrupted``,
/// which carries the devices heard so far and why. A cancelled scan (Ctrl-C) returns the devices
/// heard so far. Either way Stop Discovery goes out on a fresh socket (a cancelled wait leaves
/// the first one interrupted), and a stop the kernel refuses, other than because discovery had
/// already ended, is reported.
///
/// Start Discovery needs CAP_NET_ADMIN: the kernel answers it on other sockets with Permission
/// Denied (0x14). With bluetoothd running, scanning through its D-Bus API needs no capability.
///
/// BlueZ `doc/mgmt-api.txt` ("Start Discovery", "Stop Discovery", "Device Found", "Discovering");
/// Linux `net/bluetooth/mgmt.c` (`start_discovery_internal`, untrusted commands) and `hci_sync.c`
/// (`hci_start_discovery_sync`: `DISCOV_LE_TIMEOUT`, 10.24 s).
public final class ManagementScanner: Sendable {
    /// The adapter's name for messages (`hci0`).
    public let adapterName: String
    /// The controller index (the `N` of `hciN`).
    public let index: UInt16
    /// How long one command may take to be answered.
    public let timeLimit: Duration
    private let socket: SocketDescriptor
    private let clock: any Clock<Duration>
    private let openStopSocket: @Sendable () throws -> SocketDescriptor
    private let early: Mutex<[MGMTDeviceFound]>
    private let restartCount = Atomic<Int>(0)

    private init(
        socket: SocketDescriptor, index: UInt16, adapterName: String, timeLimit: Duration,
        clock: any Clock<Duration>, openStopSocket: @escaping @Sendable () throws -> SocketDescriptor,
        early: [MGMTDeviceFound]
    ) {
        self.socket = socket
        self.index = index
        self.adapterName = adapterName
        self.timeLimit = timeLimit
        self.clock = clock
        self.openStopSocket = openStopSocket
        self.early = Mutex(early)
    }

    /// How many times the kernel ended the discovery and the scan started it again.
    public var restarts: Int { restartCount.load(ordering: .relaxed) }

    /// The Start Discovery command for LE (public and random addresses) on `index`.
    static func startCommand(_ index: UInt16) -> MGMTPacket {
        MGMTPacket(code: MGMTPacket.startDiscovery, controllerIndex: index, parameters: [MGMTDiscovering.lowEnergy])
    }

    /// The Stop Discovery command matching ``startCommand(_:)``.
    static func stopCommand(_ index: UInt16) -> MGMTPacket {
        MGMTPacket(code: MGMTPacket.stopDiscovery, controllerIndex: index, parameters: [MGMTDiscovering.lowEnergy])
    }

    /// Opens the management channel and starts discovering on an adapter (the one named, else
    /// `$OPENHEALTHKIT_ADAPTER`, else the first one up).
    public static func open(
        adapter: String? = nil, clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> ManagementScanner {
        let chosen = try AdapterSelection.choose(adapter)
        return try await start(
            socket: try ManagementChannel.openSocket(), index: UInt16(chosen.id), adapterName: chosen.name,
            clock: clock, openStopSocket: ManagementChannel.openSocket)
    }

    /// Starts discovery over `socket` (a management socket, or one end of a socket pair to a
    /// scripted kernel).
    ///
    /// - Parameter openStopSocket: opens the fresh socket the stop is sent on.
    /// - Throws: ``BlueZError``: ``BlueZError/Code/permissionDenied`` without CAP_NET_ADMIN,
    ///   ``BlueZError/Code/busy`` when another program is discovering, ``BlueZError/Code/adapterDown``
    ///   when the adapter is off, blocked or has LE off, ``BlueZError/Code/timedOut`` when the
    ///   kernel does not answer within `timeLimit`.
    public static func start(
        socket: SocketDescriptor, index: UInt16, adapterName: String, timeLimit: Duration = .seconds(2),
        clock: any Clock<Duration> = ContinuousClock(),
        openStopSocket: @escaping @Sendable () throws -> SocketDescriptor
    ) async throws -> ManagementScanner {
        let exchange = try await ManagementExchange.perform(
            startCommand(index), on: socket, what: "starting discovery on \(adapterName)", timeLimit: timeLimit,
            clock: clock)
        guard exchange.status == .success else { throw refusal(exchange.status, adapterName, index: index) }
        let early = exchange.skipped.compactMap { packet -> MGMTDeviceFound? in
            guard packet.code == MGMTPacket.deviceFound, packet.controllerIndex == index else { return nil }
            return try? MGMTDeviceFound(parameters: packet.parameters)
        }
        return ManagementScanner(
            socket: socket, index: index, adapterName: adapterName, timeLimit: timeLimit, clock: clock,
            openStopSocket: openStopSocket, early: early)
    }

    /// The error for a Start Discovery the kernel refused.
    static func refusal(_ status: MGMTStatus, _ name: String, index: UInt16) -> BlueZError {
        switch status {
        case .permissionDenied:
            BlueZError(
                .permissionDenied,
                "Scanning without bluetoothd needs the CAP_NET_ADMIN capability: the kernel's management channel refused to start discovery on \(name) (\(status)). Run `workout scan` as root, or grant it with `sudo setcap cap_net_admin+eip \(SystemSnapshot.executablePath())`; through a running bluetoothd scanning needs none."
            )
        case .busy:
            BlueZError(
                .busy,
                "\(name) is already discovering for another program (\(status)), bluetoothd's `bluetoothctl scan on` perhaps; run `bluetoothctl scan off` or wait until it ends, and try again."
            )
        case .notPowered:
            BlueZError.adapterDown(name)
        case .rfKilled:
            BlueZError(.adapterDown, "\(name) is blocked by rfkill (\(status)); run `rfkill unblock bluetooth`.")
        case .notSupported:
            BlueZError(
                .adapterDown,
                "\(name) cannot discover LE devices (\(status)): LE is off on it; run `sudo btmgmt --index \(index) le on`."
            )
        case .invalidIndex:
            BlueZError(
                .noAdapter, "There is no adapter \(name) (\(status)); `workout adapters` lists the ones present.")
        default:
            BlueZError(.commandRefused, "\(name) refused to start discovery (\(status)).")
        }
    }

    /// Collects Device Found events until `duration` has passed on `clock`, or the task is
    /// cancelled, then stops discovery.
    ///
    /// - Returns: the devices heard, fitness sensors first (see ``ScanResults/devices``).
    /// - Throws: ``ScanInterrupted`` when the kernel ended discovery and refused to start it again,
    ///   or the adapter went away; ``BlueZError`` when the kernel does not confirm the stop.
    public func scan(
        for duration: Duration, clock: any Clock<Duration> = ContinuousClock(),
        onDevice: @escaping @Sendable (DiscoveredDevice) -> Void = { _ in }
    ) async throws -> [DiscoveredDevice] {
        let results = SharedResults()
        var interruption: BlueZError?
        do {
            try await collect(into: results, for: duration, clock: clock, onDevice: onDevice)
        } catch let error as Interruption {
            interruption = error.reason
        } catch  where Task.isCancelled {
            // Ctrl-C: end early with what was heard.
        }
        socket.shutdown()
        // A task of its own, so that a cancelled scan still stops discovery.
        let stopped = await Task { try await self.stop() }.result
        let devices = results.value.withLock { $0.devices }
        // An interruption says more than the stop's failure (an adapter that went away refuses it too).
        if let interruption { throw ScanInterrupted(devices: devices, reason: interruption) }
        try stopped.get()
        return devices
    }

    private struct Interruption: Error {
        var reason: BlueZError
    }

    private final class SharedResults: Sendable {
        let value = Mutex(ScanResults())
    }

    private func collect(
        into results: SharedResults, for duration: Duration, clock: any Clock<Duration>,
        onDevice: @escaping @Sendable (DiscoveredDevice) -> Void
    ) async throws {
        @Sendable func take(_ found: MGMTDeviceFound) {
            guard found.isLowEnergy else { return }
            let device = results.value.withLock { results -> DiscoveredDevice? in
                results.add(found)
                return results.devices.first { $0.address == found.address }
            }
            if let device { onDevice(device) }
        }
        for found in early.withLock({ early in
            defer { early.removeAll() }
            return early
        }) { take(found) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.follow(take) }
            group.addTask { try await clock.sleep(for: duration) }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Reads the channel: devices found, discovery ended by the kernel (started again), the
    /// answer to such a restart, the adapter going away.
    private func follow(_ take: @Sendable (MGMTDeviceFound) -> Void) async throws {
        var restartPending = false
        while true {
            let bytes = try await socket.nextMessage()
            guard let packet = try? MGMTPacket(bytes: bytes), packet.controllerIndex == index else { continue }
            switch packet.code {
            case MGMTPacket.deviceFound:
                if let found = try? MGMTDeviceFound(parameters: packet.parameters) { take(found) }
            case MGMTPacket.discovering:
                guard let event = try? MGMTDiscovering(parameters: packet.parameters), !event.isDiscovering,
                    !restartPending
                else { continue }
                restartPending = true
                restartCount.add(1, ordering: .relaxed)
                try await ManagementExchange.send(Self.startCommand(index), on: socket)
            case MGMTPacket.commandComplete, MGMTPacket.commandStatus:
                guard restartPending, let result = try? packet.commandResult(),
                    result.opcode == MGMTPacket.startDiscovery
                else { continue }
                restartPending = false
                let status = MGMTStatus(rawValue: result.status)
                guard status == .success else {
                    let refused = Self.refusal(status, adapterName, index: index)
                    throw Interruption(
                        reason: BlueZError(
                            refused.code,
                            "The kernel ended the scan on \(adapterName) and refused to start it again: \(refused.message)",
                            errno: refused.errno))
                }
            case MGMTPacket.indexRemoved:
                throw Interruption(
                    reason: BlueZError(
                        .noAdapter,
                        "\(adapterName) went away during the scan; `workout adapters` lists the adapters present."))
            default:
                continue
            }
        }
    }

    /// Sends Stop Discovery on a fresh socket and checks the kernel's answer. Rejected means
    /// discovery was no longer running (the kernel had ended it): nothing to stop.
    private func stop() async throws {
        let what = "stopping discovery on \(adapterName)"
        let status: MGMTStatus
        do {
            let stopSocket = try openStopSocket()
            defer { stopSocket.shutdown() }
            status = try await ManagementExchange.perform(
                Self.stopCommand(index), on: stopSocket, what: what, timeLimit: timeLimit, clock: clock
            ).status
        } catch let error as BlueZError {
            throw BlueZError(
                error.code,
                "\(adapterName) may still be discovering (the kernel ends it within about 10 s): \(error.message)",
                errno: error.errno)
        }
        guard status == .success || status == .rejected else {
            throw BlueZError(
                .commandRefused,
                "\(adapterName) may still be discovering (the kernel ends it within about 10 s): it refused \(what) (\(status))."
            )
        }
    }
}

extension ManagementScanner {
    /// Opens a scanner on every adapter that is up, when no adapter is chosen (by name or
    /// `$OPENHEALTHKIT_ADAPTER`) and more than one is up: a sensor out of one adapter's reach may be in another's.
    /// An adapter that refuses to discover (busy with another program's discovery, off, blocked) is left out; the
    /// first refusal is thrown when every one refused, a missing capability at once. Nil when one adapter scans, as
    /// ``open(adapter:clock:)`` chooses it.
    public static func openEvery(
        adapter: String?, clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> [ManagementScanner]? {
        guard adapter == nil, AdapterSelection.adapterFromEnvironment() == nil else { return nil }
        let up = ((try? BluetoothAdapters.list()) ?? []).compactMap(\.deviceID).filter {
            AdapterSelection.status(of: $0)?.isUp == true
        }
        guard up.count > 1 else { return nil }
        var scanners: [ManagementScanner] = []
        var refusals: [any Error] = []
        for id in up {
            do {
                scanners.append(try await open(adapter: "hci\(id)", clock: clock))
            } catch let error as BlueZError where error.code == .permissionDenied {
                // No adapter will do better: those already discovering stop again, and the capability is named.
                for scanner in scanners { try? await scanner.stop() }
                throw error
            } catch {
                refusals.append(error)  // busy with another program's discovery, off, blocked: the others listen
            }
        }
        if scanners.isEmpty, let first = refusals.first { throw first }
        return scanners
    }

    /// Scans with every scanner at once for `duration` on `clock` and merges what they heard: each device once, with
    /// the adapters that heard it, the strongest signal's first (``ScanResults/merging(_:)``, as through bluetoothd).
    public static func scan(
        _ scanners: [ManagementScanner], for duration: Duration, clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> [DiscoveredDevice] {
        try await ScanResults.together(
            scanners.map { scanner in (scanner.adapterName, { try await scanner.scan(for: duration, clock: clock) }) })
    }
}

/// A scan the kernel ended early: the devices heard until then, and why it could not go on.
public struct ScanInterrupted: Error, CustomStringConvertible {
    public var devices: [DiscoveredDevice]
    public var reason: BlueZError

    public var description: String { reason.message }
}
