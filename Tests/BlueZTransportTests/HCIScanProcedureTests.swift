import BluetoothLE
@testable import BlueZTransport
import TestSupport
import Testing

/// The scanner against a scripted controller at the socket boundary: the H4 command packets it
/// writes are compared byte for byte with the ones written out here, and the controller's answers
/// are H4 event packets written out here too.
///
/// Commands (Core 5.3 Vol 4 Part E; H4 `01 · opcode LE · length · parameters`):
/// * `01 02 10 00` Read Local Supported Commands (0x1002, §7.4.2);
/// * `01 0C 20 02 EE DD` LE Set Scan Enable (0x200C, §7.8.11): enable EE, filter duplicates DD;
/// * `01 0B 20 07 01 10 00 10 00 00 00` LE Set Scan Parameters (0x200B, §7.8.10): active,
///   interval 0x0010 and window 0x0010 (10 ms), own address public, accept all;
/// * `01 42 20 06 EE DD 00 00 00 00` LE Set Extended Scan Enable (0x2042, §7.8.65): enable,
///   filter duplicates, duration 0, period 0;
/// * `01 41 20 08 00 00 01 01 10 00 10 00` LE Set Extended Scan Parameters (0x2041, §7.8.64):
///   own public, accept all, PHYs = LE 1M only, then active, interval 0x0010, window 0x0010.
@Suite(.timeLimit(.minutes(1))) struct HCIScanProcedureTests {
    typealias Step = ScriptedController.Step
    static let readSupported: [UInt8] = [0x01, 0x02, 0x10, 0x00]
    static let legacyDisable: [UInt8] = [0x01, 0x0C, 0x20, 0x02, 0x00, 0x00]
    static let legacyParameters: [UInt8] = [0x01, 0x0B, 0x20, 0x07, 0x01, 0x10, 0x00, 0x10, 0x00, 0x00, 0x00]
    static let legacyEnable: [UInt8] = [0x01, 0x0C, 0x20, 0x02, 0x01, 0x01]
    static let extendedDisable: [UInt8] = [0x01, 0x42, 0x20, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
    static let extendedParameters: [UInt8] = [0x01, 0x41, 0x20, 0x08, 0x00, 0x00, 0x01, 0x01, 0x10, 0x00, 0x10, 0x00]
    static let extendedEnable: [UInt8] = [0x01, 0x42, 0x20, 0x06, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00]
    /// Command Complete with status success (0x00) or Command Disallowed (0x0C).
    static func ok(_ opcode: UInt16) -> [UInt8] { ScriptedController.complete(opcode, [0x00]) }
    static func disallowed(_ opcode: UInt16) -> [UInt8] { ScriptedController.complete(opcode, [0x0C]) }

    /// "OHK Strap" advertising heart rate: flags 06, complete 16-bit UUIDs 0x180D, complete name.
    static let strapData: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18, 0x0A, 0x09] + Array("OHK Strap".utf8)
    static let strap = BluetoothAddress("C0:11:22:33:44:55", type: .random)!

    /// An LE Extended Advertising Report (subevent 0x0D, §7.7.65.13) from the strap: event type
    /// 0x0003 (connectable, scannable, not legacy), random address (LSB first), LE 1M primary, no
    /// secondary PHY, no SID (0xFF), no TX power (0x7F), RSSI −60 (0xC4), no periodic interval, no
    /// direct address, 18 bytes of data. Parameter length = 2 + 24 + 18 = 44 (0x2C).
    static let extendedReport: [UInt8] = [0x04, 0x3E, 0x2C, 0x0D, 0x01, 0x03, 0x00, 0x01, 0x55, 0x44, 0x33, 0x22, 0x11, 0xC0,
                                          0x01, 0x00, 0xFF, 0x7F, 0xC4, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0x12] + strapData

    /// An LE Advertising Report (subevent 0x02, §7.7.65.2) of the same advertisement: ADV_IND
    /// (0x00), random address, 18 bytes of data, RSSI −70 (0xBA). Parameter length = 2 + 9 + 18 + 1 = 30.
    static let legacyReport: [UInt8] = [0x04, 0x3E, 0x1E, 0x02, 0x01, 0x00, 0x01, 0x55, 0x44, 0x33, 0x22, 0x11, 0xC0, 0x12]
        + strapData + [0xBA]

    let clock = ManualClock()

    /// Starts a scan against the controller, plays `script`, and returns the scanner (or the error).
    func start(_ controller: ScriptedController, _ script: [Step]) async throws -> (HCIScanner, Task<Int, any Error>) {
        let player = Task { try await controller.play(script) }
        let scanner = try await HCIScanner.start(channel: controller.channel, openStopChannel: controller.openChannel)
        return (scanner, player)
    }

    /// Runs the scan for 5 s on the manual clock.
    func scanFiveSeconds(_ scanner: HCIScanner) -> Task<[DiscoveredDevice], any Error> {
        Task { try await scanner.scan(for: .seconds(5), clock: clock) }
    }

    @Test func aControllerWithExtendedScanCommandsIsScannedWithThemAsTheKernelDoes() async throws {
        let controller = try ScriptedController(clock: clock)
        let (scanner, player) = try await start(controller, [
            Step(socket: 0, command: Self.readSupported, events: [ScriptedController.supportedCommands(octet37: 0x60)]),
            Step(socket: 0, command: Self.extendedDisable, events: [Self.ok(0x2042)]),
            Step(socket: 0, command: Self.extendedParameters, events: [Self.ok(0x2041)]),
            Step(socket: 0, command: Self.extendedEnable, events: [Self.ok(0x2042)] + [Self.extendedReport]),
            Step(socket: 1, command: Self.extendedDisable, events: [Self.ok(0x2042)]),
        ])
        #expect(scanner.commandSet == .extended)
        let scan = scanFiveSeconds(scanner)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        let devices = try await scan.value
        #expect(try await player.value == 0, "the script was used up")
        #expect(devices.map(\.address) == [Self.strap])
        #expect(devices.first?.name == "OHK Strap")
        #expect(devices.first?.services == [BluetoothUUID(0x180D)])
        #expect(devices.first?.rssi == -60)
    }

    @Test func aControllerWithoutThemIsScannedWithTheLegacyCommands() async throws {
        let controller = try ScriptedController(clock: clock)
        // Octet 37 = 0x20: only Set Extended Scan Parameters, not Enable; the kernel needs both.
        let (scanner, player) = try await start(controller, [
            Step(socket: 0, command: Self.readSupported, events: [ScriptedController.supportedCommands(octet37: 0x20)]),
            Step(socket: 0, command: Self.legacyDisable, events: [Self.ok(0x200C)]),
            Step(socket: 0, command: Self.legacyParameters, events: [Self.ok(0x200B)]),
            // A report that arrives before the enable is answered is kept, not lost in the wait.
            Step(socket: 0, command: Self.legacyEnable, events: [Self.legacyReport, Self.ok(0x200C)]),
            Step(socket: 1, command: Self.legacyDisable, events: [Self.ok(0x200C)]),
        ])
        #expect(scanner.commandSet == .legacy)
        let scan = scanFiveSeconds(scanner)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        let devices = try await scan.value
        #expect(try await player.value == 0)
        #expect(devices.map(\.name) == ["OHK Strap"])
        #expect(devices.first?.rssi == -70)
    }

    @Test func commandDisallowedSaysAnotherScanIsRunning() async throws {
        let controller = try ScriptedController(clock: clock)
        let player = Task { try await controller.play([
            Step(socket: 0, command: Self.readSupported, events: [ScriptedController.supportedCommands(octet37: 0x00)]),
            Step(socket: 0, command: Self.legacyDisable, events: [Self.disallowed(0x200C)]),  // ignored
            Step(socket: 0, command: Self.legacyParameters, events: [Self.disallowed(0x200B)]),
        ]) }
        await #expect(throws: BlueZError(.commandRefused,
                                         "hci0 refused to scan (Command Disallowed): another scan is running on it, by bluetoothd (`bluetoothctl scan on`, or a background scan for a paired device); run `bluetoothctl scan off` and try again.")) {
            try await HCIScanner.start(channel: controller.channel, openStopChannel: controller.openChannel)
        }
        #expect(try await player.value == 0)
    }

    @Test func theStopIsConfirmedUnderAFloodOfReports() async throws {
        let controller = try ScriptedController(clock: clock)
        let flood = [[UInt8]](repeating: Self.legacyReport, count: 300)
        let (scanner, player) = try await start(controller, [
            Step(socket: 0, command: Self.readSupported, events: [ScriptedController.supportedCommands(octet37: 0x00)]),
            Step(socket: 0, command: Self.legacyDisable, events: [Self.ok(0x200C)]),
            Step(socket: 0, command: Self.legacyParameters, events: [Self.ok(0x200B)]),
            Step(socket: 0, command: Self.legacyEnable, events: [Self.ok(0x200C)] + flood),
            // libbluetooth's hci_send_req gives up after 10 events; 300 reports come before this
            // answer, on the fresh socket too, and the stop still sees it.
            Step(socket: 1, command: Self.legacyDisable, events: flood + [Self.ok(0x200C)]),
        ])
        let scan = scanFiveSeconds(scanner)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        let devices = try await scan.value
        #expect(try await player.value == 0)
        #expect(devices.count == 1)
    }

    @Test func aStopTheControllerRefusesIsReported() async throws {
        let controller = try ScriptedController(clock: clock)
        let (scanner, player) = try await start(controller, [
            Step(socket: 0, command: Self.readSupported, events: [ScriptedController.supportedCommands(octet37: 0x60)]),
            Step(socket: 0, command: Self.extendedDisable, events: [Self.ok(0x2042)]),
            Step(socket: 0, command: Self.extendedParameters, events: [Self.ok(0x2041)]),
            Step(socket: 0, command: Self.extendedEnable, events: [Self.ok(0x2042)]),
            Step(socket: 1, command: Self.extendedDisable, events: [Self.disallowed(0x2042)]),
        ])
        let scan = scanFiveSeconds(scanner)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        await #expect(throws: BlueZError(.commandRefused,
                                         "hci0 may still be scanning: it refused stopping the scan on hci0 (Command Disallowed (0x0C)); run `sudo btmgmt --index 0 power off` and `power on`.")) {
            try await scan.value
        }
        #expect(try await player.value == 0)
    }

    @Test func aStopTheControllerNeverAnswersTimesOut() async throws {
        let controller = try ScriptedController(clock: clock)
        let (scanner, player) = try await start(controller, [
            Step(socket: 0, command: Self.readSupported, events: [ScriptedController.supportedCommands(octet37: 0x00)]),
            Step(socket: 0, command: Self.legacyDisable, events: [Self.ok(0x200C)]),
            Step(socket: 0, command: Self.legacyParameters, events: [Self.ok(0x200B)]),
            Step(socket: 0, command: Self.legacyEnable, events: [Self.ok(0x200C)]),
            Step(socket: 1, command: Self.legacyDisable, events: [], answers: false),
        ])
        let scan = scanFiveSeconds(scanner)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        #expect(try await player.value == 0)
        await clock.waitForSleepers(1)  // the stop's 2 s limit
        clock.advance(by: .seconds(2))
        let error = await #expect(throws: BlueZError.self) { try await scan.value }
        #expect(error?.code == .timedOut)
        #expect(error?.message.hasPrefix("hci0 may still be scanning: hci0 did not answer stopping the scan on hci0 within 2 s") == true)
    }

    @Test func withoutCAP_NET_RAWTheKernelRefusesTheCommandAndTheFixIsSaid() {
        // hci_sock_sendmsg answers EPERM for a command outside hci_sec_filter without CAP_NET_RAW.
        let error = BlueZError.permission("starting a scan on hci0", .notPermitted)
        #expect(error.code == .permissionDenied)
        #expect(error.message.contains("sudo setcap 'cap_net_raw,cap_net_admin+eip'"))
    }
}
