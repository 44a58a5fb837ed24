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
/// (bluetoothd's, which makes ours fail with EBUSY) and a writable store. Scanning also needs
/// CAP_NET_RAW and CAP_NET_ADMIN; recording over L2CAP needs none, so that check never blocks.
public struct DoctorReport: Hashable, Sendable, Codable {
    public var checks: [DoctorCheck]
    /// Whether recording can work: no failing check blocks it.
    public var canRecord: Bool

    public init(_ system: SystemSnapshot) {
        var checks: [DoctorCheck] = []
        checks.append(DoctorCheck(
            id: "kernel", title: "Kernel Bluetooth support", passed: system.kernelProblem == nil,
            detail: system.kernelProblem.map { "AF_BLUETOOTH sockets cannot be opened (\($0))" } ?? "AF_BLUETOOTH sockets open",
            fix: "sudo modprobe bluetooth (or use a kernel built with CONFIG_BT)", blocksRecording: true))

        let usable = system.adapters.contains(where: \.isUsable)
        if system.adapters.isEmpty {
            checks.append(DoctorCheck(id: "adapters", title: "Bluetooth adapter", passed: false, detail: "udev lists none",
                                      fix: "plug one in, or unblock it with `rfkill unblock bluetooth`", blocksRecording: true))
        }
        for adapter in system.adapters {
            let index = adapter.name.dropFirst(3)
            let description = [adapter.address, adapter.driver].compactMap { $0 }.joined(separator: ", ")
            checks.append(DoctorCheck(
                id: "adapter.\(adapter.name).up", title: "\(adapter.name) is up", passed: adapter.isUp,
                detail: (adapter.isUp ? "up" : "down") + (description.isEmpty ? "" : " (\(description))"),
                fix: "bluetoothctl power on (or `sudo btmgmt --index \(index) power on`)", blocksRecording: !usable))
            checks.append(DoctorCheck(
                id: "adapter.\(adapter.name).le", title: "\(adapter.name) has LE enabled", passed: adapter.lowEnergyEnabled == true,
                detail: adapter.lowEnergyEnabled.map { $0 ? "enabled" : "disabled on the host side" }
                    ?? "unknown (the kernel's management channel did not answer)",
                fix: "sudo btmgmt --index \(index) le on", blocksRecording: !usable && adapter.lowEnergyEnabled == false))
            let blocked = adapter.softBlocked || adapter.hardBlocked
            checks.append(DoctorCheck(
                id: "adapter.\(adapter.name).rfkill", title: "\(adapter.name) is not blocked", passed: !blocked,
                detail: adapter.hardBlocked ? "blocked by a hardware switch" : adapter.softBlocked ? "blocked by rfkill" : "not blocked",
                fix: adapter.hardBlocked ? "turn the wireless switch (or airplane mode key) on" : "rfkill unblock bluetooth",
                blocksRecording: !usable))
        }

        checks.append(DoctorCheck(
            id: "scan-permission", title: "This binary can scan", passed: system.canScan,
            detail: system.canScan ? "it holds CAP_NET_RAW and CAP_NET_ADMIN"
                : "it lacks CAP_NET_RAW and CAP_NET_ADMIN, so `workout scan` is refused (recording needs neither)",
            fix: "sudo setcap 'cap_net_raw,cap_net_admin+eip' \(system.executablePath)", blocksRecording: false))

        checks.append(DoctorCheck(
            id: "bluetoothd", title: "bluetoothd runs", passed: system.bluetoothdRunning,
            detail: system.bluetoothdRunning ? "running: it keeps adapters powered, and auto-connects sensors paired or trusted in it"
                : "not running: the kernel powers adapters off after setup",
            fix: "sudo systemctl start bluetooth (or power the adapter by hand with `sudo btmgmt power on`)", blocksRecording: false))

        let connected = Set(system.adapters.flatMap(\.connections))
        let held = system.pairedSensors.filter { connected.contains($0.address) }
        if held.isEmpty {
            checks.append(DoctorCheck(
                id: "paired-sensors", title: "Paired sensors are free", passed: true,
                detail: system.pairedSensors.isEmpty ? "no Bluetooth sensor is paired yet"
                    : "none of the \(system.pairedSensors.count) paired is connected elsewhere",
                blocksRecording: false))
        }
        for sensor in held {
            let spelling = SensorAddress.spelling(sensor.address)
            checks.append(DoctorCheck(
                id: "paired-sensors.\(sensor.identifier)", title: "\(sensor.identifier) is free", passed: false,
                detail: "another program holds a connection to it (bluetoothd, when it is paired or trusted there), so ours fails with EBUSY",
                fix: "bluetoothctl disconnect \(spelling) (and `bluetoothctl remove \(spelling)` so it stops auto-connecting)",
                blocksRecording: true))
        }

        checks.append(DoctorCheck(
            id: "store", title: "The store is writable", passed: system.storeProblem == nil,
            detail: system.storeProblem ?? system.storePath,
            fix: "choose another file with --store PATH, or make the folder writable", blocksRecording: true))

        self.checks = checks
        canRecord = !checks.contains { !$0.passed && $0.blocksRecording }
    }
}
