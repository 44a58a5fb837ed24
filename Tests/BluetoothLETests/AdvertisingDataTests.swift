import BluetoothLE
import ByteCoding
import TestSupport
import Testing

@Suite struct AdvertisingDataTests {
    @Test func everyKnownTypeRoundTrips() throws {
        let vendor = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!
        // 16-bit UUIDs 180D and FEEE as in the Polar BLE SDK's BleAdvertisementContentTest.kt
        let wire =
            bytes("02 01 06  05 02 0D 18 EE FE  03 03 0D 18  11 06") + vendor.littleEndianBytes
            + bytes(
                "05 08 50 6F 6C 61  03 09 48 37  02 0A F4  03 19 41 03  05 16 0F 18 5A 00  05 FF 6B 00 72 08  03 2A 01 02"
            )
        let ad = try AdvertisingData(bytes: wire)
        let expected: [AdvertisingDataStructure] = [
            .flags([.leGeneralDiscoverable, .brEDRNotSupported]),
            .serviceUUIDs16([BluetoothUUID(0x180D), BluetoothUUID(0xFEEE)], isComplete: false),
            .serviceUUIDs16([.heartRate], isComplete: true),
            .serviceUUIDs128([vendor], isComplete: false),
            .localName(Array("Pola".utf8), isComplete: false),
            .localName(Array("H7".utf8), isComplete: true),
            .txPowerLevel(-12),
            .appearance(.heartRateBelt),
            .serviceData16(.battery, [0x5A, 0x00]),
            .manufacturerData(companyIdentifier: 0x006B, data: [0x72, 0x08]),
            .unknown(AdvertisingDataType(0x2A), [0x01, 0x02]),
        ]
        #expect(ad.structures == expected)
        #expect(ad.encode() == wire)
        #expect(ad.serviceUUIDs == [BluetoothUUID(0x180D), BluetoothUUID(0xFEEE), .heartRate, vendor])
        #expect(ad.localName == "H7")  // the complete name wins
        #expect(ad.txPowerLevel == -12)
        #expect(ad.appearance == .heartRateBelt)
        #expect(ad.appearance?.category == 0x0D)
        #expect(ad.serviceData(for: .battery) == [0x5A, 0x00])
    }

    @Test func zeroLengthTerminates() throws {
        // significant part, then a zero length and padding that would not parse
        let ad = try AdvertisingData(bytes: bytes("02 01 06 00 FF FF 07"))
        #expect(ad.structures == [.flags([.leGeneralDiscoverable, .brEDRNotSupported])])
        #expect(try AdvertisingData(bytes: []).structures == [])
        #expect(try AdvertisingData(bytes: [0]).structures == [])
    }

    @Test func lengthPastTheEndThrowsAtTheLengthByte() {
        #expect(throws: DecodeError("AD structure of 9 bytes runs past the end (8 left)", at: 3)) {
            try AdvertisingData(bytes: bytes("02 01 06 09 09 50 6F 6C 61 72 20 48"))
        }
        expectEveryTruncationThrows(bytes("02 01 06 03 02 0D 18"), except: [0, 3]) { b throws(DecodeError) in
            _ = try AdvertisingData(bytes: b)
        }
    }

    @Test func wrongSizesForKnownTypesThrow() {
        #expect(throws: DecodeError("AD type 0x03 holds 3 bytes, not a multiple of 2", at: 2)) {
            try AdvertisingData(bytes: bytes("04 03 0D 18 0F"))
        }
        #expect(throws: DecodeError("Flags hold 2 bytes, not 1", at: 5)) {
            try AdvertisingData(bytes: bytes("02 0A 00 03 01 06 00"))
        }
        #expect(throws: DecodeError.self) { try AdvertisingData(bytes: bytes("02 19 41")) }
        #expect(throws: DecodeError.self) { try AdvertisingData(bytes: bytes("02 FF 6B")) }
        #expect(throws: DecodeError.self) {
            try AdvertisingData(bytes: bytes("11 07 00 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E"))
        }
    }

    @Test func shortenedNameCutMidCharacter() throws {
        // "Pulsómetro" shortened after the first byte of "ó" (C3 B3)
        let ad = try AdvertisingData(bytes: [0x05, 0x08] + Array("Pul".utf8) + [0xC3])
        #expect(ad.localName == "Pul\u{FFFD}")
        #expect(ad.encode() == [0x05, 0x08] + Array("Pul".utf8) + [0xC3])
    }

    /// 100 000 seeded random payloads through the parser: none traps, and every accepted one
    /// re-encodes to its bytes up to the first zero length.
    @Test func randomDataNeverTraps() {
        var rng = SeededGenerator(seed: 31)
        var accepted = 0
        for _ in 0 ..< 100_000 {
            var data: [UInt8] = []
            // mostly well-framed structures of random types, sometimes raw noise
            if Bool.random(using: &rng) {
                for _ in 0 ..< Int.random(in: 0 ... 4, using: &rng) {
                    let length = Int.random(in: 1 ... 6, using: &rng)
                    data.append(UInt8(length))
                    data.append(
                        [0x01, 0x02, 0x03, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x16, 0x19, 0xFF, 0x33][
                            Int.random(in: 0 ..< 12, using: &rng)])
                    data += (1 ..< length).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
                }
            } else {
                data = (0 ..< Int.random(in: 0 ... 31, using: &rng)).map { _ in UInt8.random(in: 0 ... 255, using: &rng)
                }
            }
            if let ad = try? AdvertisingData(bytes: data) {
                accepted += 1
                let encoded = ad.encode()
                #expect(Array(data.prefix(encoded.count)) == encoded)
            }
        }
        #expect(accepted > 10_000)
    }
}

@Suite struct BluetoothAddressTests {
    @Test func printingAndParsing() throws {
        let address = try #require(BluetoothAddress("d9:4c:5d:c0:ab:b8", type: .random))
        #expect(address.description == "D9:4C:5D:C0:AB:B8")
        #expect(address.bytes == bytes("D9 4C 5D C0 AB B8"))
        #expect(address.littleEndianBytes == bytes("B8 AB C0 5D 4C D9"))
        #expect(address.rawValue == 0xD94C_5DC0_ABB8)
        #expect(address.type.isRandom)
        #expect(BluetoothAddress("00:22:D0:90:4C:14")?.type == .public)
        #expect(BluetoothAddress("00:22:D0:90:4C:14")?.randomKind == nil)
        for bad in [
            "", "00:22:D0:90:4C", "00:22:D0:90:4C:14:00", "0:22:D0:90:4C:14", "00-22-D0-90-4C-14", "GG:22:D0:90:4C:14",
        ] {
            #expect(BluetoothAddress(bad) == nil, "\(bad)")
        }
        #expect(BluetoothAddress(bytes: [1, 2, 3]) == nil)
    }

    @Test func typeIsPartOfIdentity() {
        #expect(
            BluetoothAddress("D9:4C:5D:C0:AB:B8", type: .random) != BluetoothAddress("D9:4C:5D:C0:AB:B8", type: .public)
        )
    }

    @Test func randomKinds() {
        #expect(BluetoothAddress("C0:00:00:00:00:01", type: .random)?.randomKind == .staticAddress)
        #expect(BluetoothAddress("40:00:00:00:00:01", type: .random)?.randomKind == .resolvablePrivate)
        #expect(BluetoothAddress("00:00:00:00:00:01", type: .random)?.randomKind == .nonResolvablePrivate)
        #expect(BluetoothAddress("80:00:00:00:00:01", type: .random)?.randomKind == .reserved)
    }
}
