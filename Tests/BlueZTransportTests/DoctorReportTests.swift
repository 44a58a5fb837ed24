import BluetoothLE
import Foundation
import Testing

@testable import BlueZTransport

/// `workout doctor`'s verdicts from system snapshots written out here.
@Suite struct DoctorReportTests {
    static let strap = BluetoothAddress("C7:3A:10:5E:22:F1", type: .random)!
    static let working = SystemSnapshot(
        adapters: [
            .init(name: "hci0", address: "00:1A:7D:DA:71:13", driver: "btusb", isUp: true, lowEnergyEnabled: true)
        ],
        canScan: true, executablePath: "/usr/local/bin/workout", bluetoothdRunning: true,
        leConnection: LEConnectionConfiguration(maximumInterval: 520, supervisionTimeout: 500),
        pairedSensors: [.init(identifier: "ble:C7:3A:10:5E:22:F1/random", address: strap)],
        storePath: "/home/ada/.local/share/openhealthkit/health.sqlite")

    func failing(_ report: DoctorReport) -> [String] { report.checks.filter { !$0.passed }.map(\.id) }

    @Test func aWorkingSetupPassesEveryCheck() {
        let report = DoctorReport(Self.working)
        #expect(report.canRecord)
        #expect(failing(report) == [])
        #expect(
            report.checks.map(\.id) == [
                "kernel", "adapter.hci0.up", "adapter.hci0.le", "adapter.hci0.rfkill",
                "scan-permission", "bluetoothd", "bluez-version", "paired-sensors",
                "le.connection-interval", "le.supervision-timeout", "store",
            ])
    }

    /// bluetoothd's roles of each adapter, when it said them: one that cannot be a central is a ✘ that blocks
    /// recording only when no adapter can; an older bluetoothd (no roles) adds no check.
    @Test func anAdapterThatCannotBeCentralIsSaid() {
        var system = Self.working
        system.adapters.append(.init(name: "hci1", isUp: true, lowEnergyEnabled: true, roles: ["peripheral"]))
        system.adapters[0].roles = ["central", "peripheral", "central-peripheral"]
        var report = DoctorReport(system)
        #expect(report.canRecord)
        #expect(failing(report) == ["adapter.hci1.central"])
        let check = report.checks.first { $0.id == "adapter.hci1.central" }
        #expect(
            check?.detail
                == "bluetoothd says its LE roles are peripheral: it cannot be the central a sensor connects to")
        #expect(check?.blocksRecording == false)
        #expect(
            report.checks.first { $0.id == "adapter.hci0.central" }?.detail
                == "bluetoothd says its LE roles are central, peripheral, central-peripheral")
        system.adapters[0].roles = ["peripheral"]
        report = DoctorReport(system)
        #expect(!report.canRecord)
        system.adapters = system.adapters.map { adapter in
            var adapter = adapter
            adapter.roles = nil
            return adapter
        }
        #expect(!DoctorReport(system).checks.contains { $0.id.hasSuffix(".central") })
    }

    @Test func withoutCapNetAdminRecordingStillWorksAndOnlyThatCapabilityIsAskedFor() {
        var system = Self.working
        system.canScan = false
        let report = DoctorReport(system)
        #expect(report.canRecord)
        #expect(failing(report) == ["scan-permission"])
        let check = report.checks.first { $0.id == "scan-permission" }
        #expect(check?.fix == "run `workout scan` as root, or `sudo setcap cap_net_admin+eip /usr/local/bin/workout`")
        #expect(check?.detail.contains("CAP_NET_RAW") == false)
    }

    @Test func anAdapterDownOrWithLEOffOrBlockedStopsRecordingWithItsFix() {
        var system = Self.working
        system.adapters[0].isUp = false
        var report = DoctorReport(system)
        #expect(!report.canRecord)
        #expect(
            report.checks.first { $0.id == "adapter.hci0.up" }?.fix
                == "bluetoothctl power on (or `sudo btmgmt --index 0 power on`)")

        system = Self.working
        system.adapters[0].lowEnergyEnabled = false
        report = DoctorReport(system)
        #expect(!report.canRecord)
        #expect(report.checks.first { $0.id == "adapter.hci0.le" }?.fix == "sudo btmgmt --index 0 le on")

        system = Self.working
        system.adapters[0].softBlocked = true
        report = DoctorReport(system)
        #expect(!report.canRecord)
        #expect(failing(report) == ["adapter.hci0.rfkill"])

        // A second adapter that works is enough: the first one's failures do not block.
        system.adapters.append(.init(name: "hci1", isUp: true, lowEnergyEnabled: true))
        report = DoctorReport(system)
        #expect(report.canRecord)
    }

    @Test func aPairedSensorHeldByAnotherConnectionIsNamed() {
        var system = Self.working
        // HCIGETCONNLIST gives addresses without a type: the strap paired as /random is matched by
        // its 48-bit value (it used to be reported free).
        system.adapters[0].connections = [BluetoothAddress("C7:3A:10:5E:22:F1")!]
        #expect(system.adapters[0].connections[0].type == .public)
        let report = DoctorReport(system)
        #expect(!report.canRecord)
        let held = report.checks.first { $0.id == "paired-sensors.ble:C7:3A:10:5E:22:F1/random" }
        #expect(
            held?.fix
                == "bluetoothctl disconnect C7:3A:10:5E:22:F1 (and `bluetoothctl remove C7:3A:10:5E:22:F1` so it stops auto-connecting)"
        )
    }

    @Test func theKernelsConnectionParameterDefaultsAreNamedWithTheLinesToAdd() {
        var system = Self.working
        system.leConnection = LEConnectionConfiguration(parsing: "")
        system.bluetoothdRunning = false
        let report = DoctorReport(system)
        #expect(report.canRecord, "warnings: they do not stop recording")
        #expect(failing(report) == ["bluetoothd", "le.connection-interval", "le.supervision-timeout"])
        let interval = report.checks.first { $0.id == "le.connection-interval" }
        #expect(
            interval?.detail
                == "the kernel refuses connection-parameter requests above 50 ms (MaxConnectionInterval unset, the kernel's 0x0028), so straps built on Nordic's SDK template drop with 0x3B about 65 s after each connection"
        )
        #expect(
            interval?.fix
                == "add `MaxConnectionInterval=520` (650 ms, in 1.25 ms units) under [LE] in /etc/bluetooth/main.conf, then start bluetoothd once (`sudo systemctl restart bluetooth`): it hands them to the kernel, which keeps them while the adapter stays"
        )
        let timeout = report.checks.first { $0.id == "le.supervision-timeout" }
        #expect(
            timeout?.detail
                == "the supervision timeout is 420 ms (ConnectionSupervisionTimeout unset, the kernel's 0x002A) where phones use about 5 s: a strap that fades for longer drops"
        )
        #expect(
            timeout?.fix?.hasPrefix(
                "add `ConnectionSupervisionTimeout=500` (5 s, in 10 ms units) under [LE] in /etc/bluetooth/main.conf")
                == true)
    }

    @Test func noKernelSupportNoAdapterAndAnUnwritableStoreEachFail() {
        let system = SystemSnapshot(
            kernelProblem: "Address family not supported by protocol", adapters: [], canScan: false,
            executablePath: "/x/workout", bluetoothdRunning: false, storePath: "/proc/health.sqlite",
            storeProblem: "/proc is not writable, so /proc/health.sqlite cannot be created")
        let report = DoctorReport(system)
        #expect(!report.canRecord)
        #expect(
            failing(report) == [
                "kernel", "adapters", "scan-permission", "bluetoothd", "le.connection-interval",
                "le.supervision-timeout", "store",
            ])
    }

    @Test func capabilitiesAreReadFromCapEff() {
        // CapEff 0x1000 = bit 12 (CAP_NET_ADMIN) alone, enough; 0x2000 = CAP_NET_RAW (bit 13) only, not.
        #expect(SystemSnapshot.hasScanCapabilities(status: "Name:\tworkout\nCapEff:\t0000000000001000\n"))
        #expect(!SystemSnapshot.hasScanCapabilities(status: "CapEff:\t0000000000002000\n"))
        #expect(SystemSnapshot.hasScanCapabilities(status: "CapEff:\t000001ffffffffff\n"))
        #expect(!SystemSnapshot.hasScanCapabilities(status: "garbage"))
    }

    @Test func aStoreUnderAFolderThatCannotBeWrittenIsReported() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(SystemSnapshot.storeProblem(folder.appendingPathComponent("a/b/health.sqlite").path) == nil)
        #expect(SystemSnapshot.storeProblem("/proc/1/health.sqlite") != nil)
    }
}

/// BlueZ's version in `workout doctor`: what it changes, never a failure; parsed from what its programs print.
@Suite struct BluezVersionCheckTests {
    @Test func whatTheVersionChanges() {
        let old = DoctorReport.bluezVersionCheck("5.72")
        #expect(old.passed && !old.blocksRecording)
        #expect(
            old.detail
                == "BlueZ 5.72: before 5.80 bluetoothd keeps Device Information to itself, so sensors recorded through it have no maker or model (the raw path reads them); before 5.83 it gives no reason when a link ends"
        )
        #expect(
            DoctorReport.bluezVersionCheck("5.82").detail
                == "BlueZ 5.82: before 5.83 it gives no reason when a link ends")
        #expect(DoctorReport.bluezVersionCheck("5.85").detail == "BlueZ 5.85")
        #expect(DoctorReport.bluezVersionCheck(nil).detail.hasPrefix("unknown"))
    }

    @Test func theVersionAsBlueZsProgramsPrintIt() {
        #expect(SystemSnapshot.parseBluezVersion("5.66\n") == "5.66")
        #expect(SystemSnapshot.parseBluezVersion("bluetoothctl: 5.72\n") == "5.72")
        #expect(SystemSnapshot.parseBluezVersion("no version here") == nil)
    }
}
