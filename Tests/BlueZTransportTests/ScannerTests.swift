import BluetoothLE
@testable import BlueZTransport
import FitnessSensors
import Foundation
import TestSupport
import Testing

/// The scan path over the HCI event seam: H4 event packets in a socket pair, as a raw HCI socket
/// delivers them (one packet per read), through the real decoder and merge.
@Suite(.timeLimit(.minutes(1))) struct ScannerTests {
    /// The Polar H7 advertising data from the reference notes (§4.3): flags, 0x180D, manufacturer
    /// data and TX power in ADV_IND, the complete name in the scan response (37 bytes do not fit
    /// one 31-byte PDU); and a power meter known by appearance 0x0484, named in a scan response.
    static let polar = BluetoothAddress("00:22:D0:90:4C:14")!
    static let polarAdvert: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x02, 0x0D, 0x18, 0x07, 0xFF, 0x6B, 0x00, 0x02, 0x00, 0x00, 0x00,
                                       0x02, 0x0A, 0x00]
    static let polarScanResponse: [UInt8] = [0x12, 0x09] + Array("Polar H7 D7904C14".utf8)
    static let meter = BluetoothAddress("D1:22:33:44:55:66", type: .random)!
    static let speaker = BluetoothAddress("10:20:30:40:50:60")!

    func reports() -> [HCIEvent] {
        [
            .leAdvertisingReport([
                HCILEAdvertisingReport(eventType: .connectableUndirected, address: Self.speaker,
                                       data: [0x05, 0x09] + Array("Loud".utf8), rssi: -40),
                HCILEAdvertisingReport(eventType: .connectableUndirected, address: Self.polar,
                                       data: Self.polarAdvert, rssi: -71),
                HCILEAdvertisingReport(eventType: .scanResponse, address: Self.polar, data: Self.polarScanResponse, rssi: -72),
            ]),
            .leExtendedAdvertisingReport([
                HCILEExtendedAdvertisingReport(eventType: [.connectable, .scannable, .legacy], address: Self.meter,
                                               rssi: -60, data: [0x02, 0x01, 0x06, 0x03, 0x19, 0x84, 0x04]),
            ]),
            .leAdvertisingReport([
                HCILEAdvertisingReport(eventType: .scanResponse, address: Self.meter,
                                       data: [0x0A, 0x09] + Array("ASSIOMA42".utf8), rssi: -58),
            ]),
            .commandComplete(HCICommandComplete(opcode: .leSetScanEnable, returnParameters: [0x00])),
        ]
    }

    @Test func mergesReportsAndPutsFitnessSensorsFirst() async throws {
        let (controller, host) = try SocketBearer.pair()
        for event in reports() { try await controller.send(event.encodeH4Packet()) }
        try await controller.send([0x04, 0x3E, 0x05])  // truncated: skipped
        controller.close()
        let devices = try await HCIScanner(events: host.socket).scan(for: .seconds(10), clock: ManualClock())
        #expect(devices.map(\.address) == [Self.polar, Self.meter, Self.speaker])
        #expect(devices.map(\.kind) == [.heartRate, .cyclingPower, .other])
        #expect(devices[0].services == [BluetoothUUID(0x180D)])
        #expect(devices[0].name == "Polar H7 D7904C14")
        #expect(devices[1].name == "ASSIOMA42")
        #expect(devices[1].rssi == -58)
        #expect(devices[1].addressSpelling == "D1:22:33:44:55:66/random")
        #expect(devices[2].name == "Loud")
    }

    @Test func scanEndsWhenTheTimeoutPassesOnTheClock() async throws {
        let (controller, host) = try SocketBearer.pair()
        let clock = ManualClock()
        let scan = Task { try await HCIScanner(events: host.socket).scan(for: .seconds(5), clock: clock) }
        try await controller.send(reports()[0].encodeH4Packet())
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        let devices = try await scan.value
        #expect(devices.count <= 2, "whatever arrived before the timeout")
        withExtendedLifetime(controller) {}
    }

    @Test func reportsMergeByAddressAndKeepTheLatestRSSI() {
        var results = ScanResults()
        results.add(address: Self.meter, data: [0x03, 0x03, 0x18, 0x18], rssi: -80)
        results.add(address: Self.meter, data: [0x03, 0x03, 0x18, 0x18], rssi: -70)
        results.add(address: Self.speaker, data: [0xFF], rssi: -30)  // malformed data: kept, unnamed
        #expect(results.devices.map(\.address) == [Self.meter, Self.speaker])
        #expect(results.devices[0].rssi == -70 && results.devices[0].services == [BluetoothUUID(0x1818)])
        #expect(results.devices[1].name == nil)
    }
}

@Suite(.timeLimit(.minutes(1))) struct ContinuityTests {
    @Test func duplicatesWithinTheWindowOrResentAfterReconnectAreDropped() {
        var deduplicator = NotificationDeduplicator(window: 0.1)
        let beat: [UInt8] = [0x16, 0x46, 0x38, 0x03]
        func check(_ characteristic: UInt16, _ bytes: [UInt8], _ at: Double) -> Bool {
            deduplicator.isDuplicate(characteristic: characteristic, bytes: bytes, at: at)
        }
        var verdicts: [Bool] = []
        verdicts.append(check(0x2A37, beat, 1.0))
        verdicts.append(check(0x2A37, beat, 1.05))          // re-delivered
        verdicts.append(check(0x2A37, beat, 2.0))           // a new sample with the same value
        verdicts.append(check(0x2A63, beat, 2.01))          // another characteristic
        deduplicator.linkRestarted()
        verdicts.append(check(0x2A37, beat, 9.0))           // re-sent on re-subscription
        verdicts.append(check(0x2A37, beat, 10.0))
        deduplicator.linkRestarted()
        verdicts.append(check(0x2A37, [0x06, 0x50], 20.0))  // a different value after reconnect
        #expect(verdicts == [false, true, false, false, true, false, false])
    }

    @Test func backoffDoublesUpToTheMaximumAndResets() {
        var backoff = ReconnectBackoff(initial: .milliseconds(250), maximum: .seconds(2))
        #expect((0 ..< 6).map { _ in backoff.next() }
            == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(2), .seconds(2)])
        backoff.reset()
        #expect(backoff.next() == .milliseconds(250))
    }

    @Test func signalsStayPlausible() {
        var strap = HeartRateSignal()
        let beats = (0 ..< 300).map { _ in strap.next() }
        #expect(beats.allSatisfy { (110 ... 150).contains($0.heartRate) && $0.sensorContact == .detected })
        #expect(beats.allSatisfy { !$0.rrIntervals.isEmpty && $0.rrIntervals.count <= 3 })
        #expect(beats.filter { $0.energyExpended != nil }.count == 30)
        var meter = CyclingPowerSignal()
        let samples = (0 ..< 400).map { _ in meter.next() }
        #expect(samples.allSatisfy { (150 ... 250).contains($0.instantaneousPower) })
    }
}
