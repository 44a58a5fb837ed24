import BluetoothLE
import ByteCoding
import TestSupport
import Testing

@Suite struct HCITests {
    // LE Set Scan Parameters and Enable from a public Android btsnoop, as quoted in the project's
    // BLE research notes (the project's BLE reference, §4.3):
    // active scan, interval 0x0012, window 0x0012 (11.25 ms), own address random, accept all.
    @Test func legacyScanCommands() throws {
        let parameters = bytes("01 0B 20 07 01 12 00 12 00 01 00")
        let command = HCILESetScanParameters(
            scanType: .active, interval: 0x12, window: 0x12,
            ownAddressType: .random, filterPolicy: .acceptAll)
        #expect(command.encode() == parameters)
        #expect(try HCILESetScanParameters(packet: parameters) == command)
        let enable = bytes("01 0C 20 02 01 00")
        #expect(HCILESetScanEnable(isEnabled: true).encode() == enable)
        #expect(try HCILESetScanEnable(packet: enable) == HCILESetScanEnable(isEnabled: true, filterDuplicates: false))
        #expect(HCILESetScanEnable(isEnabled: false).encode() == bytes("01 0C 20 02 00 00"))
        expectEveryTruncationThrows(parameters) { b throws(DecodeError) in _ = try HCILESetScanParameters(packet: b) }
        expectEveryTruncationThrows(enable) { b throws(DecodeError) in _ = try HCILESetScanEnable(packet: b) }
        #expect(throws: DecodeError("LE_Scan_Enable 0x02 is neither 0x00 nor 0x01", at: 4)) {
            try HCILESetScanEnable(packet: bytes("01 0C 20 02 02 00"))
        }
        #expect(throws: DecodeError.self) { try HCILESetScanEnable(packet: bytes("01 0B 20 02 01 00")) }
        #expect(throws: DecodeError.self) { try HCILESetScanEnable(packet: bytes("01 0C 20 03 01 00")) }
    }

    // Extended scanning, laid out per Core 5.3 Vol 4 Part E §7.8.64/§7.8.65.
    @Test func extendedScanCommands() throws {
        // own public, accept all, PHYs 1M + Coded: {active, 0x0012, 0x0012}, {passive, 0x0036, 0x0012}
        let wire = bytes("01 41 20 0D 00 00 05 01 12 00 12 00 00 36 00 12 00")
        let command = HCILESetExtendedScanParameters(
            le1M: .init(scanType: .active, interval: 0x12, window: 0x12),
            leCoded: .init(scanType: .passive, interval: 0x36, window: 0x12))
        #expect(command.encode() == wire)
        #expect(try HCILESetExtendedScanParameters(packet: wire) == command)
        let only1M = HCILESetExtendedScanParameters()
        #expect(only1M.encode() == bytes("01 41 20 08 00 00 01 01 10 00 10 00"))
        expectEveryTruncationThrows(wire) { b throws(DecodeError) in _ = try HCILESetExtendedScanParameters(packet: b) }
        #expect(throws: DecodeError("Scanning_PHYs 0x02 sets a reserved bit", at: 6)) {
            try HCILESetExtendedScanParameters(packet: bytes("01 41 20 03 00 00 02"))
        }

        let enable = bytes("01 42 20 06 01 00 00 00 00 00")
        #expect(HCILESetExtendedScanEnable(isEnabled: true).encode() == enable)
        #expect(try HCILESetExtendedScanEnable(packet: enable).isEnabled)
        expectEveryTruncationThrows(enable) { b throws(DecodeError) in _ = try HCILESetExtendedScanEnable(packet: b) }
    }

    @Test func opcodes() {
        #expect(HCIOpcode.leSetScanParameters.ogf == 0x08)
        #expect(HCIOpcode.leSetScanParameters.ocf == 0x000B)
        #expect(HCIOpcode(ogf: 0x08, ocf: 0x42) == .leSetExtendedScanEnable)
        #expect(HCIOpcode.reset.ogf == 0x03)
    }

    @Test func commandCompleteAndStatus() throws {
        // Command Complete for LE Set Scan Parameters, status Success
        let complete = try HCIEvent.decode(h4Packet: bytes("04 0E 04 01 0B 20 00"))
        guard case .commandComplete(let event) = complete else {
            Issue.record("\(complete)")
            return
        }
        #expect(event.opcode == .leSetScanParameters)
        #expect(event.status == .success)
        #expect(event.numberOfAllowedCommandPackets == 1)
        #expect(complete.encodeH4Packet() == bytes("04 0E 04 01 0B 20 00"))

        // Command Complete for LE Set Scan Enable refused: Command Disallowed (bluetoothd scanning)
        let disallowed = try HCIEvent.decode(bytes("0E 04 01 0C 20 0C"))
        #expect(disallowed == .commandComplete(HCICommandComplete(opcode: .leSetScanEnable, returnParameters: [0x0C])))
        if case .commandComplete(let event) = disallowed { #expect(event.status == .commandDisallowed) }

        // Command Status for LE Create Connection: pending (success)
        let status = bytes("0F 04 00 01 0D 20")
        #expect(
            try HCIEvent.decode(status)
                == .commandStatus(HCICommandStatus(status: .success, opcode: .leCreateConnection)))
        #expect(try HCIEvent.decode(status).encode() == status)

        // Disconnection Complete, handle 0x0040, reason Unacceptable Connection Parameters
        let disconnection = bytes("05 04 00 40 00 3B")
        #expect(
            try HCIEvent.decode(disconnection)
                == .disconnectionComplete(
                    HCIDisconnectionComplete(connectionHandle: 0x40, reason: .unacceptableConnectionParameters)))
        expectEveryTruncationThrows(disconnection) { b throws(DecodeError) in _ = try HCIEvent.decode(b) }
        expectEveryTruncationThrows(status) { b throws(DecodeError) in _ = try HCIEvent.decode(b) }
        #expect(HCIStatus.commandDisallowed.description == "Command Disallowed (0x0C)")
        #expect(HCIStatus(0x77).description == "HCI error (0x77)")
    }

    // A legacy LE Advertising Report captured with hcidump, from StackOverflow q. 25713995
    // ("How to decode a Bluetooth LE package / frame (beacon) of a FreeTec PX-1737-919"):
    // ADV_NONCONN_IND from random D9:4C:5D:C0:AB:B8; Flags 0x04; name "8BBAC49D";
    // service data 1809 (thermometer) 47 08 00 FE; service data 180F (battery) 5B; RSSI −77.
    static let thermometerReport = bytes(
        """
        04 3E 26 02 01 03 01 B8 AB C0 5D 4C D9 1A 02 01 04 09 09 38 42 42 41 43 34 39 44
        07 16 09 18 47 08 00 FE 04 16 0F 18 5B B3
        """)

    @Test func legacyAdvertisingReport() throws {
        let event = try HCIEvent.decode(h4Packet: Self.thermometerReport)
        guard case .leAdvertisingReport(let reports) = event else {
            Issue.record("\(event)")
            return
        }
        #expect(reports.count == 1)
        let report = reports[0]
        #expect(report.eventType == .nonConnectableUndirected)
        #expect(!report.eventType.isConnectable)
        #expect(report.address == BluetoothAddress("D9:4C:5D:C0:AB:B8", type: .random))
        #expect(report.address.randomKind == .staticAddress)
        #expect(report.rssi == -77)
        let ad = try report.advertisingData
        #expect(ad.flags == .brEDRNotSupported)
        #expect(ad.localName == "8BBAC49D")
        #expect(ad.serviceData(for: BluetoothUUID(0x1809)) == bytes("47 08 00 FE"))
        #expect(ad.serviceData(for: .battery) == [0x5B])
        #expect(event.encodeH4Packet() == Self.thermometerReport)
        expectEveryTruncationThrows(Self.thermometerReport) { b throws(DecodeError) in
            _ = try HCIEvent.decode(h4Packet: b)
        }
    }

    // A Polar H7 as one event with two reports: its ADV_IND (flags 06, 16-bit UUIDs 180D,
    // manufacturer data for Polar 0x006B, TX power 0) and its SCAN_RSP (complete name
    // "Polar H7 D7904C14"). AD layout from the project's research notes (ble.md §4.3); the
    // manufacturer bytes 6B 00 2B 0B B6 AC from the Polar BLE SDK's BleAdvertisementContentTest.kt
    // ("SAGRFC31 format"). Address and RSSI values are illustrative: 00:22:D0:90:4C:14, −60 / 127.
    static let polarReports = bytes(
        """
        04 3E 3B 02 02
        00 00 14 4C 90 D0 22 00 12 02 01 06 03 02 0D 18 07 FF 6B 00 2B 0B B6 AC 02 0A 00 C4
        04 00 14 4C 90 D0 22 00 13 12 09 50 6F 6C 61 72 20 48 37 20 44 37 39 30 34 43 31 34 7F
        """)

    @Test func severalReportsInOneEvent() throws {
        let event = try HCIEvent.decode(h4Packet: Self.polarReports)
        guard case .leAdvertisingReport(let reports) = event else {
            Issue.record("\(event)")
            return
        }
        #expect(reports.map(\.eventType) == [.connectableUndirected, .scanResponse])
        #expect(reports.map(\.address.description) == ["00:22:D0:90:4C:14", "00:22:D0:90:4C:14"])
        #expect(reports.map(\.address.type) == [.public, .public])
        #expect(reports.map(\.rssi) == [-60, nil])
        let advert = try reports[0].advertingDataOrFail()
        #expect(advert.flags == [.leGeneralDiscoverable, .brEDRNotSupported])
        #expect(advert.serviceUUIDs == [.heartRate])
        #expect(advert.manufacturerData?.companyIdentifier == 0x006B)
        #expect(advert.manufacturerData?.data == bytes("2B 0B B6 AC"))
        #expect(advert.txPowerLevel == 0)
        #expect(try reports[1].advertisingData.localName == "Polar H7 D7904C14")
        #expect(event.encodeH4Packet() == Self.polarReports)
        expectEveryTruncationThrows(Self.polarReports) { b throws(DecodeError) in _ = try HCIEvent.decode(h4Packet: b) }
    }

    // An LE Extended Advertising Report laid out per Core 5.3 Vol 4 Part E §7.7.65.13: a legacy
    // ADV_IND (event type 0x0013) from random F1:22:33:44:55:66 on LE 1M, no SID, TX power not
    // available, RSSI −70, advertising appearance 0x0484 (cycling power sensor) and UUID 1818.
    static let extendedReport = bytes(
        """
        04 3E 25 0D 01 13 00 01 66 55 44 33 22 F1 01 00 FF 7F BA 00 00 00 00 00 00 00 00 00
        0B 02 01 06 03 19 84 04 03 03 18 18
        """)

    @Test func extendedAdvertisingReport() throws {
        let event = try HCIEvent.decode(h4Packet: Self.extendedReport)
        guard case .leExtendedAdvertisingReport(let reports) = event, let report = reports.first else {
            Issue.record("\(event)")
            return
        }
        #expect(report.eventType == [.connectable, .scannable, .legacy])
        #expect(report.eventType.dataStatus == .complete)
        #expect(report.address == BluetoothAddress("F1:22:33:44:55:66", type: .random))
        #expect(report.rssi == -70)
        #expect(report.txPower == nil)
        #expect(report.advertisingSID == 0xFF)
        let ad = try report.advertisingData
        #expect(ad.appearance == .cyclingPowerSensor)
        #expect(ad.serviceUUIDs == [.cyclingPower])
        #expect(event.encodeH4Packet() == Self.extendedReport)
        expectEveryTruncationThrows(Self.extendedReport) { b throws(DecodeError) in _ = try HCIEvent.decode(h4Packet: b)
        }
        #expect(HCILEExtendedAdvertisingEventType(rawValue: 0x0020).dataStatus == .incompleteMoreToCome)
    }

    @Test func malformedEvents() throws {
        // Num_Reports of 0
        #expect(throws: DecodeError("Num_Reports is 0", at: 4)) {
            try HCIEvent.decode(h4Packet: bytes("04 3E 02 02 00"))
        }
        // parameter length larger than what follows
        #expect(throws: DecodeError("event parameter length 5, but 4 bytes follow", at: 2)) {
            try HCIEvent.decode(h4Packet: bytes("04 0E 05 01 0B 20 00"))
        }
        // an ACL packet is not an event
        #expect(throws: DecodeError.self) { try HCIEvent.decode(h4Packet: bytes("02 40 00 00 00")) }
        // unknown events and subevents are kept
        #expect(try HCIEvent.decode(bytes("13 01 00")) == .unknown(code: 0x13, parameters: [0]))
        #expect(try HCIEvent.decode(bytes("3E 02 01 00")) == .leMeta(subevent: 0x01, parameters: [0]))
    }

    /// 100 000 seeded random event packets never trap; whatever decodes re-encodes identically.
    @Test func randomEventsNeverTrap() {
        var rng = SeededGenerator(seed: 7)
        var decoded = 0
        for _ in 0 ..< 100_000 {
            var packet = (0 ..< Int.random(in: 0 ... 40, using: &rng)).map { _ in
                UInt8.random(in: 0 ... 255, using: &rng)
            }
            if packet.count >= 3 {
                packet[0] = [0x0E, 0x0F, 0x05, 0x3E, 0x3E][Int.random(in: 0 ..< 5, using: &rng)]
                packet[1] = UInt8(packet.count - 2)
                if packet[0] == 0x3E { packet[2] = Bool.random(using: &rng) ? 0x02 : 0x0D }
            }
            if let event = try? HCIEvent.decode(packet) {
                decoded += 1
                #expect(event.encode() == packet)
            }
        }
        #expect(decoded > 1_000)
    }
}

extension HCILEAdvertisingReport {
    func advertingDataOrFail() throws -> AdvertisingData { try advertisingData }
}
