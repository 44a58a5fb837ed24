import BluetoothLE
import CBlueZ
import Foundation
import Glibc

/// What `workout doctor` looks at, gathered once: the kernel's Bluetooth support, the adapters
/// and their state, this process's capabilities, bluetoothd and the `[LE]` connection parameters
/// of its `main.conf`, the paired sensors' connections and the store path. A plain value, so that ``DoctorReport/init(_:)`` is a pure function of it.
public struct SystemSnapshot: Hashable, Sendable {
    /// One adapter as udev, `HCIGETDEVINFO`, the management channel and rfkill describe it.
    public struct Adapter: Hashable, Sendable {
        public var name: String
        public var address: String?
        public var driver: String?
        public var isUp: Bool
        /// LE enabled on the host side; `nil` when the management channel could not say.
        public var lowEnergyEnabled: Bool?
        public var softBlocked: Bool
        public var hardBlocked: Bool
        /// The peers it is connected to now.
        public var connections: [BluetoothAddress]
        /// The LE roles bluetoothd says the adapter can take (`central`, `peripheral`, `central-peripheral`: its
        /// `Roles`); nil when bluetoothd was not asked or has no such property.
        public var roles: [String]?

        public init(
            name: String, address: String? = nil, driver: String? = nil, isUp: Bool, lowEnergyEnabled: Bool?,
            softBlocked: Bool = false, hardBlocked: Bool = false, connections: [BluetoothAddress] = [],
            roles: [String]? = nil
        ) {
            self.roles = roles
            self.name = name
            self.address = address
            self.driver = driver
            self.isUp = isUp
            self.lowEnergyEnabled = lowEnergyEnabled
            self.softBlocked = softBlocked
            self.hardBlocked = hardBlocked
            self.connections = connections
        }

        /// Whether an LE connection can go through it.
        public var isUsable: Bool { isUp && lowEnergyEnabled != false && !softBlocked && !hardBlocked }
    }

    /// Why `socket(AF_BLUETOOTH, …)` failed; `nil` when the kernel has Bluetooth.
    public var kernelProblem: String?
    public var adapters: [Adapter]
    /// Whether this process holds CAP_NET_ADMIN (effective), which scanning without bluetoothd (the
    /// kernel's management channel: Start Discovery) needs. Connecting and recording need none.
    public var canScan: Bool
    /// This program's real path, for the `setcap` line (a symlink cannot carry capabilities).
    public var executablePath: String
    public var bluetoothdRunning: Bool
    /// bluetoothd's configuration file, and its `[LE]` connection parameters (empty when it is missing).
    public var mainConfigurationPath: String
    public var leConnection: LEConnectionConfiguration
    /// The paired Bluetooth sensors (identifier and address).
    public var pairedSensors: [PairedAddress]
    public var storePath: String
    /// Why the store cannot be written; `nil` when it can.
    public var storeProblem: String?
    /// BlueZ's version (`5.66`), from `bluetoothd --version` or `bluetoothctl --version`; nil when neither runs.
    public var bluezVersion: String?

    /// A paired sensor's identifier and address.
    public struct PairedAddress: Hashable, Sendable {
        public var identifier: String
        public var address: BluetoothAddress
        public init(identifier: String, address: BluetoothAddress) {
            self.identifier = identifier
            self.address = address
        }
    }

    public init(
        kernelProblem: String? = nil, adapters: [Adapter], canScan: Bool, executablePath: String,
        bluetoothdRunning: Bool, mainConfigurationPath: String = "/etc/bluetooth/main.conf",
        leConnection: LEConnectionConfiguration = LEConnectionConfiguration(),
        pairedSensors: [PairedAddress] = [], storePath: String, storeProblem: String? = nil,
        bluezVersion: String? = nil
    ) {
        self.kernelProblem = kernelProblem
        self.adapters = adapters
        self.canScan = canScan
        self.executablePath = executablePath
        self.bluetoothdRunning = bluetoothdRunning
        self.mainConfigurationPath = mainConfigurationPath
        self.leConnection = leConnection
        self.pairedSensors = pairedSensors
        self.storePath = storePath
        self.storeProblem = storeProblem
        self.bluezVersion = bluezVersion
    }
}

extension SystemSnapshot {
    /// Looks at this machine.
    ///
    /// - Parameters:
    ///   - storePath: the store file `workout` would use.
    ///   - pairedIdentifiers: the paired sensors' identifiers (`ble:…`; others are ignored).
    ///   - mainConfigurationPath: bluetoothd's configuration file; a missing one is its defaults.
    public static func gather(
        storePath: String, pairedIdentifiers: [String],
        mainConfigurationPath: String = "/etc/bluetooth/main.conf"
    ) -> SystemSnapshot {
        var kernelProblem: String?
        do {
            let fd = try Sys.socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue), BTPROTO_HCI)
            Sys.close(fd)
        } catch {
            kernelProblem = "\(error)"
        }
        let listed = (try? BluetoothAdapters.list()) ?? []
        let adapters = listed.map { listed -> Adapter in
            let status = listed.deviceID.flatMap(AdapterSelection.status(of:))
            let information = listed.deviceID.flatMap {
                try? ManagementChannel.controllerInformation(index: UInt16($0))
            }
            let (soft, hard) = rfkill(under: listed.sysPath)
            return Adapter(
                name: listed.name, address: status?.address?.description ?? listed.address, driver: listed.driver,
                isUp: status?.isUp ?? false,
                lowEnergyEnabled: information.map { $0.currentSettings.contains(.lowEnergy) },
                softBlocked: soft, hardBlocked: hard,
                connections: listed.deviceID.map(ManagementChannel.connections(of:)) ?? [])
        }
        let paired = pairedIdentifiers.compactMap { identifier -> PairedAddress? in
            guard case .bluetooth(let address) = try? SensorAddress(parsing: identifier) else { return nil }
            return PairedAddress(identifier: identifier, address: address)
        }
        let configuration = (try? String(contentsOfFile: mainConfigurationPath, encoding: .utf8)) ?? ""
        return SystemSnapshot(
            kernelProblem: kernelProblem, adapters: adapters, canScan: hasScanCapabilities(),
            executablePath: executablePath(), bluetoothdRunning: processRuns("bluetoothd"),
            mainConfigurationPath: mainConfigurationPath,
            leConnection: LEConnectionConfiguration(parsing: configuration), pairedSensors: paired,
            storePath: storePath, storeProblem: storeProblem(storePath), bluezVersion: bluezVersion())
    }

    /// BlueZ's version as its daemon or its shell prints it (`5.66`, `bluetoothctl: 5.66`), from the first of them
    /// found; each asked with a deadline of 2 s.
    static func bluezVersion() -> String? {
        let daemons = ["/usr/libexec/bluetooth/bluetoothd", "/usr/lib/bluetooth/bluetoothd", "/usr/sbin/bluetoothd"]
        let shells = ["/usr/bin/bluetoothctl", "/bin/bluetoothctl"]
        for path in daemons + shells where FileManager.default.isExecutableFile(atPath: path) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = ["--version"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            guard (try? process.run()) != nil else { continue }
            let deadline = ContinuousClock.now.advanced(by: .seconds(2))
            while process.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
            if process.isRunning {
                process.terminate()
                continue
            }
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            if let version = parseBluezVersion(text) { return version }
        }
        return nil
    }

    /// The last `N.N` in what a BlueZ program printed of its version.
    static func parseBluezVersion(_ text: String) -> String? {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" }).last { token in
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
        }.map(String.init)
    }

    /// rfkill switches of an adapter: `…/hciN/rfkillM/soft` and `hard` (1 = blocked).
    static func rfkill(under sysPath: String) -> (soft: Bool, hard: Bool) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: sysPath)) ?? []
        var soft = false, hard = false
        for entry in entries where entry.hasPrefix("rfkill") {
            soft = soft || read("\(sysPath)/\(entry)/soft") == "1"
            hard = hard || read("\(sysPath)/\(entry)/hard") == "1"
        }
        return (soft, hard)
    }

    /// CAP_NET_ADMIN is bit 12 of `CapEff` in `/proc/self/status` (`linux/capability.h`); the
    /// management channel trusts a socket whose process holds it (`hci_sock_bind`).
    static func hasScanCapabilities(status: String? = read("/proc/self/status")) -> Bool {
        guard let line = status?.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
            let mask = UInt64(line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        let needed: UInt64 = 1 << 12
        return mask & needed == needed
    }

    public static func executablePath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first
            ?? "workout"
    }

    static func processRuns(_ name: String) -> Bool {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.contains { $0.allSatisfy(\.isNumber) && read("/proc/\($0)/comm") == name }
    }

    /// Why the store cannot be written: the file (and its folder, for SQLite's journal) must be
    /// writable, or, before it exists, the nearest existing folder above it.
    public static func storeProblem(_ path: String) -> String? {
        let manager = FileManager.default
        let url = URL(fileURLWithPath: path)
        if manager.fileExists(atPath: path) {
            if !manager.isWritableFile(atPath: path) { return "\(path) is not writable" }
            let folder = url.deletingLastPathComponent().path
            return manager.isWritableFile(atPath: folder) ? nil : "its folder \(folder) is not writable"
        }
        var folder = url.deletingLastPathComponent()
        while !manager.fileExists(atPath: folder.path), folder.path != "/" {
            folder = folder.deletingLastPathComponent()
        }
        return manager.isWritableFile(atPath: folder.path)
            ? nil : "\(folder.path) is not writable, so \(path) cannot be created"
    }

    static func read(_ path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
