import BluetoothLE
import FitnessSensors
import Foundation
import TestSupport
import Testing

@testable import BlueZTransport

/// Merging what the kernel found while discovering (Device Found events) into one entry per device.
@Suite(.timeLimit(.minutes(1))) struct ScannerTests {
    /// The Polar H7 advertising data from the reference notes (§4.3): flags, 0x180D, manufacturer
    /// data and TX power in ADV_IND, the complete name in the scan response (37 bytes do not fit
    /// one 31-byte PDU); the kernel hands both in one Device Found, scan response after the
    /// advertisement. A power meter known by appearance 0x0484, named in a later event.
    static let polar = BluetoothAddress("00:22:D0:90:4C:14")!
    static let polarAdvert: [UInt8] = [
        0x02, 0x01, 0x06, 0x03, 0x02, 0x0D, 0x18, 0x07, 0xFF, 0x6B, 0x00, 0x02, 0x00, 0x00, 0x00,
        0x02, 0x0A, 0x00,
    ]
    static let polarScanResponse: [UInt8] = [0x12, 0x09] + Array("Polar H7 D7904C14".utf8)
    static let meter = BluetoothAddress("D1:22:33:44:55:66", type: .random)!
    static let speaker = BluetoothAddress("10:20:30:40:50:60")!

    @Test func mergesWhatWasFoundAndPutsFitnessSensorsFirst() {
        var results = ScanResults()
        results.add(MGMTDeviceFound(address: Self.speaker, rssi: -40, data: [0x05, 0x09] + Array("Loud".utf8)))
        results.add(MGMTDeviceFound(address: Self.polar, rssi: -71, data: Self.polarAdvert + Self.polarScanResponse))
        results.add(MGMTDeviceFound(address: Self.meter, rssi: -60, data: [0x02, 0x01, 0x06, 0x03, 0x19, 0x84, 0x04]))
        results.add(MGMTDeviceFound(address: Self.meter, rssi: -58, data: [0x0A, 0x09] + Array("ASSIOMA42".utf8)))
        // A BR/EDR device (address type 0) is not an LE sensor: ignored.
        results.add(
            MGMTDeviceFound(address: BluetoothAddress("AA:BB:CC:DD:EE:FF")!, isLowEnergy: false, rssi: -30, data: []))
        let devices = results.devices
        #expect(devices.map(\.address) == [Self.polar, Self.meter, Self.speaker])
        #expect(devices.map(\.kind) == [.heartRate, .cyclingPower, .other])
        #expect(devices[0].services == [BluetoothUUID(0x180D)])
        #expect(devices[0].name == "Polar H7 D7904C14")
        #expect(devices[1].name == "ASSIOMA42")
        #expect(devices[1].rssi == -58)
        #expect(devices[1].addressSpelling == "D1:22:33:44:55:66/random")
        #expect(devices[2].name == "Loud")
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

    /// 127 is "RSSI is not available" (Core 5.3 Vol 4 Part E §7.7.65.2): no figure, never the strongest signal.
    @Test func anUnavailableRSSIIsNoFigure() {
        var results = ScanResults()
        results.add(address: Self.meter, data: [0x03, 0x03, 0x18, 0x18], rssi: 127)
        results.add(DiscoveredDevice(address: Self.polar, rssi: 127, services: [BluetoothUUID(0x180D)]))
        #expect(results.devices.map(\.rssi) == [nil, nil])
        results.add(address: Self.meter, data: [], rssi: -61)
        #expect(results.devices.map(\.rssi) == [nil, -61])
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
        verdicts.append(check(0x2A37, beat, 1.05))  // re-delivered
        verdicts.append(check(0x2A37, beat, 2.0))  // a new sample with the same value
        verdicts.append(check(0x2A63, beat, 2.01))  // another characteristic
        deduplicator.linkRestarted()
        verdicts.append(check(0x2A37, beat, 9.0))  // re-sent on re-subscription
        verdicts.append(check(0x2A37, beat, 10.0))
        deduplicator.linkRestarted()
        verdicts.append(check(0x2A37, [0x06, 0x50], 20.0))  // a different value after reconnect
        #expect(verdicts == [false, true, false, false, true, false, false])
    }

    @Test func backoffDoublesUpToTheMaximumAndResets() {
        var backoff = ReconnectBackoff(initial: .milliseconds(250), maximum: .seconds(2))
        #expect(
            (0 ..< 6).map { _ in backoff.next() }
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
