import BluetoothLE
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import BlueZTransport

/// Adapter state as `HCIGETDEVINFO` reports it, and the connection gate.
@Suite(.timeLimit(.minutes(1))) struct AdapterStateTests {
    final class Log: Sendable { let lines = Mutex<[String]>([]) }
    final class Counter: Sendable { let count = Mutex(0) }

    /// `hci_dev_info.bdaddr` is least significant byte first; flags bit 0 is HCI_UP.
    @Test func devInfoIsInterpretedWithAnAllZeroAddressAsUnknown() {
        let up = AdapterStatus.from(id: 1, littleEndianAddress: [0x66, 0x55, 0x44, 0x33, 0x22, 0x11], flags: 0b101)
        #expect(up == AdapterStatus(id: 1, address: BluetoothAddress("11:22:33:44:55:66"), isUp: true))
        #expect(up.name == "hci1")
        let fresh = AdapterStatus.from(id: 0, littleEndianAddress: [0, 0, 0, 0, 0, 0], flags: 0b100)
        #expect(fresh.address == nil)
        #expect(!fresh.isUp)
    }

    /// The identity an L2CAP socket is bound to (kernel `hci_copy_identity_address`): the public
    /// address unless Current_Settings bit 15 (Static Address) says the static one is in use.
    @Test func theSocketIsBoundToTheAdaptersIdentityAndItsType() throws {
        let publicAddress = BluetoothAddress("00:1A:7D:DA:71:13")!
        let staticAddress = BluetoothAddress("C4:55:66:77:88:99", type: .random)!
        var information = MGMTControllerInformation(
            address: publicAddress, supportedSettings: [.powered, .lowEnergy, .bredr],
            currentSettings: [.powered, .lowEnergy, .bredr])
        let plain = AdapterIdentity.resolve(information: information, deviceAddress: publicAddress, staticAddress: nil)
        #expect(plain.address == publicAddress && plain.address?.type == .public)
        #expect(plain.bdaddrType == 1, "BDADDR_LE_PUBLIC")
        #expect(plain.littleEndianBytes == [0x13, 0x71, 0xDA, 0x7D, 0x1A, 0x00])

        // BR/EDR off with a static address set (the kernel's identity is then the static one).
        information.currentSettings = [.powered, .lowEnergy, .staticAddress]
        let known = AdapterIdentity.resolve(
            information: information, deviceAddress: publicAddress, staticAddress: staticAddress)
        #expect(known.address == staticAddress && known.bdaddrType == 2, "BDADDR_LE_RANDOM")
        #expect(known.description == "C4:55:66:77:88:99 (static random)")
        let unknown = AdapterIdentity.resolve(
            information: information, deviceAddress: publicAddress, staticAddress: nil)
        #expect(unknown.isAny, "not the public address, which the kernel's route would not match")
        #expect(unknown.littleEndianBytes == [0, 0, 0, 0, 0, 0] && unknown.bdaddrType == 1)
    }

    /// An LE-only controller with no public address (bluetoothd gives it a static one): no wait,
    /// no "unplug and replug"; bound to its static address when it can be read, else BDADDR_ANY.
    @Test func anAdapterWithoutAPublicAddressIsUsedAtOnce() {
        let leOnly = MGMTControllerInformation(
            address: BluetoothAddress(rawValue: 0), supportedSettings: [.powered, .lowEnergy],
            currentSettings: [.powered, .lowEnergy, .staticAddress])
        #expect(AdapterIdentity.resolve(information: leOnly, deviceAddress: nil, staticAddress: nil).isAny)
        let bound = AdapterIdentity.resolve(
            information: leOnly, deviceAddress: nil,
            staticAddress: BluetoothAddress("C0:FF:EE:00:00:01", type: .random))
        #expect(bound.address?.description == "C0:FF:EE:00:00:01" && bound.bdaddrType == 2)
        // Without the management channel's answer: HCIGETDEVINFO's address, else BDADDR_ANY.
        #expect(AdapterIdentity.resolve(information: nil, deviceAddress: nil, staticAddress: nil).isAny)
        #expect(
            AdapterIdentity.resolve(
                information: nil, deviceAddress: BluetoothAddress("00:1A:7D:DA:71:13"),
                staticAddress: nil
            ).bdaddrType == 1)
    }

    /// debugfs prints the static address with `%pMR`, lower case, one line.
    @Test func theStaticAddressIsReadFromDebugfs() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("debugfs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("hci3"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try "c4:55:66:77:88:99\n".write(
            to: root.appendingPathComponent("hci3/static_address"), atomically: true, encoding: .utf8)
        #expect(
            AdapterIdentity.staticAddress(of: 3, root: root.path)
                == BluetoothAddress("C4:55:66:77:88:99", type: .random))
        #expect(AdapterIdentity.staticAddress(of: 4, root: root.path) == nil)
    }

    /// An adapter that is down (no bluetoothd to power it, or `hciconfig hci0 down`) is named with
    /// the fix, not "plug one in".
    @Test func anAdapterThatIsDownIsNamedWithTheFix() {
        let error = BlueZError.adapterDown("hci0")
        #expect(error.code == .adapterDown)
        #expect(
            error.message
                == "hci0 is down, or LE is off: run `bluetoothctl power on` (or `sudo btmgmt --index 0 power on` and `sudo btmgmt --index 0 le on`)."
        )
    }

    @Test func theEnvironmentNamesTheAdapterWhenTheCallerDoesNot() {
        #expect(AdapterSelection.adapterFromEnvironment(["OPENHEALTHKIT_ADAPTER": "hci1"]) == "hci1")
        #expect(AdapterSelection.adapterFromEnvironment(["OPENHEALTHKIT_ADAPTER": ""]) == nil)
        #expect(AdapterSelection.adapterFromEnvironment([:]) == nil)
    }

    @Test func adapterNamesParse() throws {
        #expect(try AdapterSelection.deviceID("hci1") == 1)
        #expect(try AdapterSelection.deviceID("0") == 0)
        #expect(throws: BlueZError.self) { try AdapterSelection.deviceID("usb0") }
    }

    /// Two sensors connecting at once through one adapter: Linux refuses a second pending LE
    /// connection with EBUSY, so the second attempt must start only when the first has ended.
    /// Another adapter is not held up.
    @Test func connectionAttemptsOnOneAdapterTakeTurns() async throws {
        let gate = ConnectionGate()
        let log = Log()
        let (firstMayFinish, release) = AsyncStream<Void>.makeStream()
        let (firstStarted, started) = AsyncStream<Void>.makeStream()
        let first = Task {
            try await gate.withPermit(for: "hci0") {
                log.lines.withLock { $0.append("first begins") }
                started.yield()
                for await _ in firstMayFinish { break }
                log.lines.withLock { $0.append("first ends") }
            }
        }
        for await _ in firstStarted { break }
        let second = Task { try await gate.withPermit(for: "hci0") { log.lines.withLock { $0.append("second") } } }
        // A connection on another adapter goes ahead while hci0's first attempt is pending.
        try await gate.withPermit(for: "hci1") { log.lines.withLock { $0.append("other adapter") } }
        release.yield()
        try await first.value
        try await second.value
        #expect(log.lines.withLock { $0 } == ["first begins", "other adapter", "first ends", "second"])
    }

    @Test func aFailedAttemptPassesThePermitOn() async throws {
        let gate = ConnectionGate()
        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await gate.withPermit(for: "hci0") { throw Refused() } }
        #expect(try await gate.withPermit(for: "hci0") { 42 } == 42)
    }
}
