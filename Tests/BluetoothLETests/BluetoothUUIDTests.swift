import BluetoothLE
import ByteCoding
import Testing

@Suite struct BluetoothUUIDTests {
    @Test func shortAndLongFormsAreEqual() throws {
        let short = BluetoothUUID(0x180D)
        let long = try #require(BluetoothUUID("0000180D-0000-1000-8000-00805F9B34FB"))
        #expect(short == long)
        #expect(short.hashValue == long.hashValue)
        #expect(long.shortValue == 0x180D)
        #expect(short.description == "180D")
        #expect(long.description == "0000180D-0000-1000-8000-00805F9B34FB")
        #expect(short.littleEndianBytes == [0x0D, 0x18])
        #expect(long.littleEndianBytes == bytes("FB 34 9B 5F 80 00 00 80 00 10 00 00 0D 18 00 00"))
        #expect(short.longForm.byteCount == 16)
    }

    @Test func parsing() throws {
        #expect(BluetoothUUID("0x2a37") == BluetoothUUID(0x2A37))
        #expect(BluetoothUUID("2A37") == .heartRateMeasurement)
        #expect(
            BluetoothUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e")?.description == "6E400001-B5A3-F393-E0A9-E50E24DCCA9E"
        )
        #expect(BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9") == nil)
        #expect(BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9G") == nil)
        #expect(BluetoothUUID("18") == nil)
        #expect(BluetoothUUID("") == nil)
        let vendor = try #require(BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E"))
        #expect(vendor.shortValue == nil)
    }

    @Test func wireDecoding() throws {
        #expect(try BluetoothUUID(littleEndianBytes: [0x37, 0x2A]) == .heartRateMeasurement)
        let long = try BluetoothUUID(littleEndianBytes: bytes("9E CA DC 24 0E E5 A9 E0 93 F3 A3 B5 01 00 40 6E"))
        #expect(long.description == "6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
        #expect(long.littleEndianBytes == bytes("9E CA DC 24 0E E5 A9 E0 93 F3 A3 B5 01 00 40 6E"))
        #expect(throws: DecodeError.self) { try BluetoothUUID(littleEndianBytes: [1, 2, 3]) }
        #expect(throws: DecodeError.self) { try BluetoothUUID(littleEndianBytes: []) }
    }
}
