import Foundation

/// One line of `workout doctor`: what was checked, whether it passed, and the exact fix.
public struct DoctorCheck: Hashable, Sendable, Codable {
    /// A stable key for scripts (`kernel`, `adapter.hci0.up`, `store`, …).
    public var id: String
    public var title: String
    public var passed: Bool
    /// What was found.
    public var detail: String
    /// The command or step that fixes a failure.
    public var fix: String?
    /// Whether this failure stops recording (scanning permission, for one, does not).
    public var blocksRecording: Bool

    public init(id: String, title: String, passed: Bool, detail: String, fix: String? = nil, blocksRecording: Bool) {
        self.id = id
        self.title = title
        self.passed = passed
        self.detail = detail
        self.fix = passed ? nil : fix
        self.blocksRecording = blocksRecording
    }
}

/// The verdict on whether this machine can record from a Bluetooth LE sensor, check by check.
///
/// Pure: built from a ``SystemSnapshot``. Recording needs the kernel's Bluetooth, one adapter
/// that is up with LE enabled and not blocked, no paired sensor held by another connection
/// (bluetoothd's, which makes ours fail with EBUSY) and a writable store. Scanning without
/// bluetoothd needs CAP_NET_ADMIN (the management channel); recording over L2CAP needs no
/// capability, so that check never blocks. Neither do the `[LE]` connection parameters of
/// bluetoothd's `main.conf`, which decide whether straps stay connected.
public struct DoctorReport: Hashable, Sendable, Codable {
    public var checks: [DoctorCheck]
    /// Whether recording can work: no failing check blocks it.
    public var canRecord: Bool

    /// - Parameter path: the way this process reaches Bluetooth (bluetoothd's D-Bus API or raw sockets), when
    ///   known: through bluetoothd, scanning needs no capability and a sensor bluetoothd holds is simply used.
    public init(_ system: SystemSnapshot, path: BluetoothPath? = nil) {
        var checks: [DoctorCheck] = []
        let throughBluetoothd = path?.throughBluetoothd == true
        checks.append(
            DoctorCheck(
                id: "kernel", title: "Kernel Bluetooth support", passed: system.kernelProblem == nil,
                detail: system.kernelProblem.map { "AF_BLUETOOTH sockets cannot be opened (\($0))" }
                    ?? "AF_BLUETOOTH sockets open",
                fix: "sudo modprobe bluetooth (or use a kernel built with CONFIG_BT)", blocksRecording: true))

        let usable = system.adapters.contains(where: \.isUsable)
        if system.adapters.isEmpty {
            checks.append(
                DoctorCheck(
                    id: "adapters", title: "Bluetooth adapter", passed: false, detail: "udev lists none",
                    fix: "plug one in, or unblock it with `rfkill unblock bluetooth`", blocksRecording: true))
        }
        for adapter in system.adapters {
            let index = adapter.name.dropFirst(3)
            let description = [adapter.address, adapter.driver].compactMap { $0 }.joined(separator: ", ")
            checks.append(
                DoctorCheck(
                    id: "adapter.\(adapter.name).up", title: "\(adapter.name) is up", passed: adapter.isUp,
                    detail: (adapter.isUp ? "up" : "down") + (description.isEmpty ? "" : " (\(description))"),
                    fix: "bluetoothctl power on (or `sudo btmgmt --index \(index) power on`)", blocksRecording: !usable)
            )
            checks.append(
                DoctorCheck(
                    id: "adapter.\(adapter.name).le", title: "\(adapter.name) has LE enabled",
                    passed: adapter.lowEnergyEnabled == true,
                    detail: adapter.lowEnergyEnabled.map { $0 ? "enabled" : "disabled on the host side" }
                        ?? "unknown (the kernel's management channel did not answer)",
                    fix: "sudo btmgmt --index \(index) le on",
                    blocksRecording: !usable && adapter.lowEnergyEnabled == false))
            let blocked = adapter.softBlocked || adapter.hardBlocked
            checks.append(
                DoctorCheck(
                    id: "adapter.\(adapter.name).rfkill", title: "\(adapter.name) is not blocked", passed: !blocked,
                    detail: adapter.hardBlocked
                        ? "blocked by a hardware switch" : adapter.softBlocked ? "blocked by rfkill" : "not blocked",
                    fix: adapter.hardBlocked
                        ? "turn the wireless switch (or airplane mode key) on" : "rfkill unblock bluetooth",
                    blocksRecording: !usable))
            if let roles = adapter.roles {
                // Through bluetoothd an adapter without the central role is never used to connect (as bleak).
                let central = roles.contains("central")
                checks.append(
                    DoctorCheck(
                        id: "adapter.\(adapter.name).central", title: "\(adapter.name) can connect to sensors",
                        passed: central,
                        detail: "bluetoothd says its LE roles are "
                            + (roles.isEmpty ? "none" : roles.joined(separator: ", "))
                            + (central ? "" : ": it cannot be the central a sensor connects to"),
                        fix: "use an adapter that can (--adapter, or OPENHEALTHKIT_ADAPTER)",
                        blocksRecording: !central
                            && system.adapters.allSatisfy {
                                $0.roles?.contains("central") == false
                            }))
            }
        }

        if let path {
            checks.append(
                DoctorCheck(
                    id: "bluetooth-path", title: "Bluetooth path", passed: path.problem == nil,
                    detail: path.problem ?? path.description,
                    fix: "unset OPENHEALTHKIT_BLUETOOTH, or set it to dbus or raw", blocksRecording: true))
        }

        checks.append(
            DoctorCheck(
                id: "scan-permission", title: "This binary can scan without bluetoothd",
                passed: system.canScan || throughBluetoothd,
                detail: throughBluetoothd && !system.canScan
                    ? "not needed: scans go through bluetoothd, which asks no capability of a user in the bluetooth group or at the console"
                    : system.canScan
                        ? "it holds CAP_NET_ADMIN, which the kernel's management channel asks of a program that discovers"
                        : "it lacks CAP_NET_ADMIN, which scanning through the kernel's management channel (without bluetoothd) needs; connecting and recording need no capability",
                fix: "run `workout scan` as root, or `sudo setcap cap_net_admin+eip \(system.executablePath)`",
                blocksRecording: false))

        checks.append(
            DoctorCheck(
                id: "bluetoothd", title: "bluetoothd runs", passed: system.bluetoothdRunning,
                detail: system.bluetoothdRunning
                    ? "running: it keeps adapters powered, and auto-connects sensors paired or trusted in it"
                    : "not running: the kernel powers adapters off after setup",
                fix: "sudo systemctl start bluetooth (or power the adapter by hand with `sudo btmgmt power on`)",
                blocksRecording: false))

        checks.append(Self.bluezVersionCheck(system.bluezVersion))

        // By the 48-bit value alone: the kernel's connection list carries no address type, and a
        // strap paired as /random is the same device.
        let connected = Set(system.adapters.flatMap(\.connections).map(\.rawValue))
        // Through bluetoothd, a sensor it holds is simply used: only the raw path needs the link free.
        let held = throughBluetoothd ? [] : system.pairedSensors.filter { connected.contains($0.address.rawValue) }
        if throughBluetoothd {
            let shared = system.pairedSensors.filter { connected.contains($0.address.rawValue) }.count
            checks.append(
                DoctorCheck(
                    id: "paired-sensors", title: "Paired sensors are free", passed: true,
                    detail: system.pairedSensors.isEmpty
                        ? "no Bluetooth sensor is paired yet"
                        : shared == 0
                            ? "none of the \(system.pairedSensors.count) paired is connected now"
                            : "\(shared) of the \(system.pairedSensors.count) paired connected through bluetoothd, which workout shares",
                    blocksRecording: false))
        } else if held.isEmpty {
            checks.append(
                DoctorCheck(
                    id: "paired-sensors", title: "Paired sensors are free", passed: true,
                    detail: system.pairedSensors.isEmpty
                        ? "no Bluetooth sensor is paired yet"
                        : "none of the \(system.pairedSensors.count) paired is connected elsewhere",
                    blocksRecording: false))
        }
        for sensor in held {
            let plain = sensor.address.description  // bluetoothctl takes the address alone, never "/random"
            checks.append(
                DoctorCheck(
                    id: "paired-sensors.\(sensor.identifier)", title: "\(sensor.identifier) is free", passed: false,
                    detail:
                        "another program holds a connection to it (bluetoothd, when it is paired or trusted there), so ours fails with EBUSY",
                    fix:
                        "bluetoothctl disconnect \(plain) (and `bluetoothctl remove \(plain)` so it stops auto-connecting)",
                    blocksRecording: true))
        }

        checks += Self.connectionParameterChecks(system)

        checks.append(
            DoctorCheck(
                id: "store", title: "The store is writable", passed: system.storeProblem == nil,
                detail: system.storeProblem ?? system.storePath,
                fix: "choose another file with --store PATH, or make the folder writable", blocksRecording: true))

        self.checks = checks
        canRecord = !checks.contains { !$0.passed && $0.blocksRecording }
    }

    /// BlueZ's version and what it changes for recording through bluetoothd (never a failure: every version from
    /// 5.51 works). Before 5.80 bluetoothd keeps the Device Information service to itself (it claims it and does not
    /// export claimed services), so a sensor recorded through it has no maker or model; before 5.83 it gives no
    /// reason when a link ends.
    static func bluezVersionCheck(_ version: String?) -> DoctorCheck {
        guard let version else {
            return DoctorCheck(
                id: "bluez-version", title: "BlueZ's version", passed: true,
                detail: "unknown: neither bluetoothd nor bluetoothctl answered --version", blocksRecording: false)
        }
        let parts = version.split(separator: ".").compactMap { Int($0) }
        let (major, minor) = (parts.first ?? 0, parts.dropFirst().first ?? 0)
        let before: (Int) -> Bool = { major < 5 || (major == 5 && minor < $0) }
        var notes: [String] = []
        if before(80) {
            notes.append(
                "before 5.80 bluetoothd keeps Device Information to itself, so sensors recorded through it have no maker or model (the raw path reads them)"
            )
        }
        if before(83) { notes.append("before 5.83 it gives no reason when a link ends") }
        return DoctorCheck(
            id: "bluez-version", title: "BlueZ's version", passed: true,
            detail: "BlueZ \(version)" + (notes.isEmpty ? "" : ": " + notes.joined(separator: "; ")),
            blocksRecording: false)
    }

    /// Whether straps stay connected with bluetoothd's `[LE]` settings, with the lines to add.
    static func connectionParameterChecks(_ system: SystemSnapshot) -> [DoctorCheck] {
        typealias C = LEConnectionConfiguration
        let le = system.leConnection
        let path = system.mainConfigurationPath
        let afterwards =
            system.bluetoothdRunning
            ? "then `sudo systemctl restart bluetooth`"
            : "then start bluetoothd once (`sudo systemctl restart bluetooth`): it hands them to the kernel, which keeps them while the adapter stays"
        let ignored = le.problems.isEmpty ? "" : " (\(le.problems.joined(separator: "; ")))"
        let interval = le.effectiveMaximumInterval
        let timeout = le.effectiveSupervisionTimeout
        return [
            DoctorCheck(
                id: "le.connection-interval", title: "Straps may choose their connection interval",
                passed: le.acceptsStrapIntervals,
                detail: (le.acceptsStrapIntervals
                    ? "MaxConnectionInterval=\(interval) (\(C.intervalMilliseconds(interval))) accepts the up to 650 ms straps ask for"
                    : "the kernel refuses connection-parameter requests above \(C.intervalMilliseconds(interval)) (MaxConnectionInterval \(le.maximumInterval.map(String.init) ?? "unset, the kernel's 0x0028")), so straps built on Nordic's SDK template drop with 0x3B about 65 s after each connection")
                    + ignored,
                fix:
                    "add `MaxConnectionInterval=\(C.recommendedMaximumInterval)` (650 ms, in 1.25 ms units) under [LE] in \(path), \(afterwards)",
                blocksRecording: false),
            DoctorCheck(
                id: "le.supervision-timeout", title: "A short fade does not drop the link",
                passed: le.hasPhoneLikeSupervisionTimeout,
                detail: (le.hasPhoneLikeSupervisionTimeout
                    ? "ConnectionSupervisionTimeout=\(timeout) (\(C.timeoutMilliseconds(timeout)))"
                    : "the supervision timeout is \(C.timeoutMilliseconds(timeout)) (ConnectionSupervisionTimeout \(le.supervisionTimeout.map(String.init) ?? "unset, the kernel's 0x002A")) where phones use about 5 s: a strap that fades for longer drops")
                    + ignored,
                fix:
                    "add `ConnectionSupervisionTimeout=\(C.recommendedSupervisionTimeout)` (5 s, in 10 ms units) under [LE] in \(path), \(afterwards)",
                blocksRecording: false),
        ]
    }
}

/// How this process reaches Bluetooth, as `workout doctor` reports it: through bluetoothd's D-Bus API, or raw
/// sockets, and why (the decision itself is BlueZDBus's `BluetoothBackend`).
public struct BluetoothPath: Hashable, Sendable {
    public var throughBluetoothd: Bool
    /// "bluetoothd's D-Bus API (bluetoothd owns org.bluez on the system bus)".
    public var description: String
    /// Why no path could be chosen (an `OPENHEALTHKIT_BLUETOOTH` of another value), nil when one was.
    public var problem: String?

    public init(throughBluetoothd: Bool, description: String, problem: String? = nil) {
        self.throughBluetoothd = throughBluetoothd
        self.description = description
        self.problem = problem
    }
}
