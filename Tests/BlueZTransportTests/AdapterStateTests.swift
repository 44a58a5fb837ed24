import BluetoothLE
@testable import BlueZTransport
import Synchronization
import TestSupport
import Testing

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

    /// A freshly plugged adapter reports 00:00:00:00:00:00 until the kernel has read its address:
    /// the address is read again, 200 ms apart on the clock, until it is known.
    @Test func anAllZeroAddressIsReadAgainUntilKnown() async throws {
        let clock = ManualClock()
        let reads = Counter()
        let real = BluetoothAddress("11:22:33:44:55:66")!
        let lookup = Task {
            try await AdapterSelection.address(of: 0, clock: clock) { id in
                let count = reads.count.withLock { $0 += 1; return $0 }
                return AdapterStatus(id: id, address: count < 3 ? nil : real, isUp: true)
            }
        }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(200))
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(200))
        #expect(try await lookup.value == real)
        #expect(reads.count.withLock { $0 } == 3)
    }

    @Test func anAddressThatStaysZeroIsReportedNotUsed() async throws {
        let error = await #expect(throws: BlueZError.self) {
            try await AdapterSelection.address(of: 2, attempts: 1, clock: ManualClock()) { AdapterStatus(id: $0, address: nil, isUp: true) }
        }
        #expect(error?.message == "Adapter hci2 still reports the address 00:00:00:00:00:00; unplug and replug it, or wait until `workout adapters` shows its address.")
    }

    /// An adapter that is down (no bluetoothd to power it, or `hciconfig hci0 down`) is named with
    /// the fix, not "plug one in".
    @Test func anAdapterThatIsDownIsNamedWithTheFix() async throws {
        let error = await #expect(throws: BlueZError.self) {
            try await AdapterSelection.address(of: 0, clock: ManualClock()) { AdapterStatus(id: $0, address: nil, isUp: false) }
        }
        #expect(error?.code == .adapterDown)
        #expect(error?.message == "hci0 is down, or LE is off: run `bluetoothctl power on` (or `sudo btmgmt --index 0 power on` and `sudo btmgmt --index 0 le on`).")
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
