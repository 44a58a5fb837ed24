import BluetoothLE
@testable import BlueZTransport
import Foundation
import Testing

/// `workout doctor`'s verdicts from system snapshots written out here.
@Suite struct DoctorReportTests {
    static let strap = BluetoothAddress("C7:3A:10:5E:22:F1", type: .random)!
    static let working = SystemSnapshot(
        adapters: [.init(name: "hci0", address: "00:1A:7D:DA:71:13", driver: "btusb", isUp: true, lowEnergyEnabled: true)],
        canScan: true, executablePath: "/usr/local/bin/workout", bluetoothdRunning: true,
        pairedSensors: [.init(identifier: "ble:C7:3A:10:5E:22:F1/random", address: strap)],
        storePath: "/home/ada/.local/share/openhealthkit/health.sqlite")

    func failing(_ report: DoctorReport) -> [String] { report.checks.filter { !$0.passed }.map(\.id) }

    @Test func aWorkingSetupPassesEveryCheck() {
        let report = DoctorReport(Self.working)
        #expect(report.canRecord)
        #expect(failing(report) == [])
        #expect(report.checks.map(\.id) == ["kernel", "adapter.hci0.up", "adapter.hci0.le", "adapter.hci0.rfkill",
                                            "scan-permission", "bluetoothd", "paired-sensors", "store"])
    }

    @Test func withoutScanCapabilitiesRecordingStillWorksAndTheSetcapLineNamesThisBinary() {
        var system = Self.working
        system.canScan = false
        let report = DoctorReport(system)
        #expect(report.canRecord)
        #expect(failing(report) == ["scan-permission"])
        #expect(report.checks.first { $0.id == "scan-permission" }?.fix == "sudo setcap 'cap_net_raw,cap_net_admin+eip' /usr/local/bin/workout")
    }

    @Test func anAdapterDownOrWithLEOffOrBlockedStopsRecordingWithItsFix() {
        var system = Self.working
        system.adapters[0].isUp = false
        var report = DoctorReport(system)
        #expect(!report.canRecord)
        #expect(report.checks.first { $0.id == "adapter.hci0.up" }?.fix == "bluetoothctl power on (or `sudo btmgmt --index 0 power on`)")

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
        system.adapters[0].connections = [Self.strap]
        let report = DoctorReport(system)
        #expect(!report.canRecord)
        let held = report.checks.first { $0.id == "paired-sensors.ble:C7:3A:10:5E:22:F1/random" }
        #expect(held?.fix == "bluetoothctl disconnect C7:3A:10:5E:22:F1/random (and `bluetoothctl remove C7:3A:10:5E:22:F1/random` so it stops auto-connecting)")
    }

    @Test func noKernelSupportNoAdapterAndAnUnwritableStoreEachFail() {
        let system = SystemSnapshot(kernelProblem: "Address family not supported by protocol", adapters: [], canScan: false,
                                    executablePath: "/x/workout", bluetoothdRunning: false, storePath: "/proc/health.sqlite",
                                    storeProblem: "/proc is not writable, so /proc/health.sqlite cannot be created")
        let report = DoctorReport(system)
        #expect(!report.canRecord)
        #expect(failing(report) == ["kernel", "adapters", "scan-permission", "bluetoothd", "store"])
    }

    @Test func capabilitiesAreReadFromCapEff() {
        // CapEff 0x3000 = bits 12 (CAP_NET_ADMIN) and 13 (CAP_NET_RAW); 0x2000 = CAP_NET_RAW only.
        #expect(SystemSnapshot.hasScanCapabilities(status: "Name:\tworkout\nCapEff:\t0000000000003000\n"))
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
