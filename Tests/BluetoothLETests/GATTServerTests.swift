import BluetoothLE
import ByteCoding
import Testing

/// A heart-rate strap database: Heart Rate (2A37 notify + CCCD, 2A38 read, 2A39 write),
/// Battery (2A19 read + notify), Device Information (2A29 read).
func heartRateStrapDatabase() -> GATTDatabase {
    GATTDatabase(services: [
        GATTServiceDefinition(
            uuid: .heartRate,
            characteristics: [
                GATTCharacteristicDefinition(uuid: .heartRateMeasurement, properties: .notify),
                GATTCharacteristicDefinition(uuid: .bodySensorLocation, properties: .read, value: [0x01]),
                GATTCharacteristicDefinition(
                    uuid: .heartRateControlPoint, properties: .write,
                    validateWrite: { value in
                        value == [0x01] ? nil : ATTErrorCode(0x80)  // HRS 1.0 §3.3.1: only "reset energy expended"
                    }),
            ]),
        GATTServiceDefinition(
            uuid: .battery,
            characteristics: [
                GATTCharacteristicDefinition(uuid: .batteryLevel, properties: [.read, .notify], value: [0x5A])
            ]),
        GATTServiceDefinition(
            uuid: .deviceInformation,
            characteristics: [
                GATTCharacteristicDefinition(
                    uuid: .manufacturerNameString, properties: .read,
                    value: Array("Polar Electro Oy".utf8))
            ]),
    ])
}

@Suite struct GATTServerTests {
    // Layout: 0x0001 «180D»; 0x0002 decl, 0x0003 2A37, 0x0004 CCCD; 0x0005 decl, 0x0006 2A38;
    // 0x0007 decl, 0x0008 2A39; 0x0009 «180F»; 0x000A decl, 0x000B 2A19, 0x000C CCCD;
    // 0x000D «180A»; 0x000E decl, 0x000F 2A29.
    @Test func databaseLayout() {
        let database = heartRateStrapDatabase()
        #expect(database.attributes.count == 15)
        #expect(database.services.map(\.startHandle) == [0x01, 0x09, 0x0D])
        #expect(database.services.map(\.endHandle) == [0x08, 0x0C, 0x0F])
        #expect(database.characteristic(.heartRateMeasurement)?.cccdHandle == 0x04)
        #expect(database.characteristic(.bodySensorLocation)?.cccdHandle == nil)
        #expect(database.attribute(at: 0x0002)?.value == bytes("10 03 00 37 2A"))
    }

    @Test func answersDiscovery() {
        let server = ServerHarness(database: heartRateStrapDatabase())
        // Exchange MTU: client 23 → we answer 517; the bearer stays at 23
        #expect(server.handle(bytes("02 17 00")) == bytes("03 05 02"))
        #expect(server.mtu == 23)
        // primary services, one page at MTU 23
        #expect(
            server.handle(bytes("10 01 00 FF FF 00 28"))
                == bytes("11 06 01 00 08 00 0D 18 09 00 0C 00 0F 18 0D 00 0F 00 0A 18"))
        #expect(server.handle(bytes("10 10 00 FF FF 00 28")) == bytes("01 10 10 00 0A"))
        // characteristics of 180D: three 7-byte entries fit 23 bytes (2 + 3 × 7)
        #expect(
            server.handle(bytes("08 01 00 08 00 03 28"))
                == bytes("09 07 02 00 10 03 00 37 2A 05 00 02 06 00 38 2A 07 00 08 08 00 39 2A"))
        // descriptors of 2A37
        #expect(server.handle(bytes("04 04 00 04 00")) == bytes("05 01 04 00 02 29"))
        #expect(server.handle(bytes("04 10 00 FF FF")) == bytes("01 04 10 00 0A"))
        // read by type of a value type: Device Name is absent, Battery Level is there
        #expect(server.handle(bytes("08 01 00 FF FF 19 2A")) == bytes("09 03 0B 00 5A"))
    }

    @Test func rejectsBadRequests() {
        let server = ServerHarness(database: heartRateStrapDatabase())
        // start handle 0 and start > end: Invalid Handle (Core 5.3 Vol 3 Part F §3.4.3.1)
        #expect(server.handle(bytes("04 00 00 FF FF")) == bytes("01 04 00 00 01"))
        #expect(server.handle(bytes("08 05 00 04 00 03 28")) == bytes("01 08 05 00 01"))
        // grouping by something other than a service
        #expect(server.handle(bytes("10 01 00 FF FF 03 28")) == bytes("01 10 01 00 10"))
        // reading a notify-only value, an unknown handle, past the end of a value
        #expect(server.handle(bytes("0A 03 00")) == bytes("01 0A 03 00 02"))
        #expect(server.handle(bytes("0A 99 00")) == bytes("01 0A 99 00 01"))
        #expect(server.handle(bytes("0C 06 00 05 00")) == bytes("01 0C 06 00 07"))
        // writes: not permitted, bad CCCD length, application error from the control point
        #expect(server.handle(bytes("12 06 00 02")) == bytes("01 12 06 00 03"))
        #expect(server.handle(bytes("12 04 00 01")) == bytes("01 12 04 00 0D"))
        #expect(server.handle(bytes("12 08 00 02")) == bytes("01 12 08 00 80"))
        #expect(server.handle(bytes("12 08 00 01")) == bytes("13"))
        // malformed and unsupported requests; ignored commands and stray responses
        #expect(server.handle(bytes("0A 03")) == bytes("01 0A 00 00 04"))
        #expect(server.handle(bytes("06 01 00 FF FF 00 28 0D 18")) == bytes("01 06 00 00 06"))
        #expect(server.handle(bytes("30 01")) == bytes("01 30 00 00 06"))
        #expect(server.handle(bytes("52 06 00 01")) == nil)
        #expect(server.handle(bytes("0B 01")) == nil)
        #expect(server.handle([]) == nil)
    }

    @Test func notifiesOnlySubscribedCharacteristics() {
        let server = ServerHarness(database: heartRateStrapDatabase())
        #expect(server.update([0x06, 0x3C], of: .heartRateMeasurement) == nil)
        #expect(server.handle(bytes("12 04 00 01 00")) == bytes("13"))
        #expect(server.configuration(of: .heartRateMeasurement) == .notification)
        #expect(server.update([0x06, 0x3C], of: .heartRateMeasurement) == bytes("1B 03 00 06 3C"))
        #expect(server.value(of: .heartRateMeasurement) == [0x06, 0x3C])
        // a long value is cut to ATT_MTU − 3
        let long = Array(repeating: UInt8(0x10), count: 30)
        #expect(server.update(long, of: .heartRateMeasurement)?.count == 23)
        #expect(server.update([1], of: BluetoothUUID(0x1234)) == nil)
    }

    @Test func indicationsWaitForConfirmation() {
        let database = GATTDatabase(services: [
            GATTServiceDefinition(
                uuid: .genericAttribute,
                characteristics: [
                    GATTCharacteristicDefinition(
                        uuid: BluetoothUUID(0x2A05), properties: .indicate, value: [0, 0, 0, 0])
                ])
        ])
        let server = ServerHarness(database: database)
        #expect(server.handle(bytes("12 04 00 02 00")) == bytes("13"))
        #expect(server.update(bytes("01 00 FF FF"), of: BluetoothUUID(0x2A05)) == bytes("1D 03 00 01 00 FF FF"))
        #expect(server.isIndicationPending)
        #expect(server.update(bytes("01 00 FF FF"), of: BluetoothUUID(0x2A05)) == nil)
        #expect(server.handle(bytes("1E")) == nil)
        #expect(!server.isIndicationPending)
        #expect(server.update(bytes("01 00 FF FF"), of: BluetoothUUID(0x2A05)) != nil)
    }

    @Test func longValuesAndMixedUUIDWidths() {
        let vendor = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!
        let database = GATTDatabase(services: [
            GATTServiceDefinition(
                uuid: .genericAccess,
                characteristics: [
                    GATTCharacteristicDefinition(
                        uuid: .deviceName, properties: .read,
                        value: Array("Polar H7 D7904C14 with a long name".utf8))
                ]),
            GATTServiceDefinition(
                uuid: vendor,
                characteristics: [
                    GATTCharacteristicDefinition(uuid: vendor, properties: [.write, .writeWithoutResponse])
                ]),
        ])
        let server = ServerHarness(database: database)
        let read = server.handle(bytes("0A 03 00"))
        #expect(read?.count == 23)
        #expect(server.handle(bytes("0C 03 00 16 00")) == [0x0D] + Array("with a long name".utf8).suffix(12))
        // 16-bit and 128-bit services come in separate pages
        #expect(server.handle(bytes("10 01 00 FF FF 00 28")) == bytes("11 06 01 00 03 00 00 18"))
        let page = server.handle(bytes("10 04 00 FF FF 00 28"))
        #expect(page?.count == 22)
        #expect(page?.prefix(6) == bytes("11 14 04 00 06 00")[...])
        // Find Information switches format at the first 128-bit type
        #expect(
            server.handle(bytes("04 01 00 FF FF"))
                == bytes("05 01 01 00 00 28 02 00 03 28 03 00 00 2A 04 00 00 28 05 00 03 28"))
        #expect(server.handle(bytes("04 06 00 FF FF"))?.prefix(4) == bytes("05 02 06 00")[...])
        // a Write Command is applied silently
        #expect(server.handle(bytes("52 06 00 AA")) == nil)
        #expect(server.value(of: vendor) == [0xAA])
    }
}

/// A reference wrapper so the mutating server can be called inside `#expect`.
final class ServerHarness {
    var server: GATTServer
    init(database: GATTDatabase) { server = GATTServer(database: database) }
    func handle(_ request: [UInt8]) -> [UInt8]? { server.handle(request: request) }
    func update(_ value: [UInt8], of uuid: BluetoothUUID) -> [UInt8]? { server.updateValue(value, of: uuid) }
    func value(of uuid: BluetoothUUID) -> [UInt8]? { server.value(of: uuid) }
    func configuration(of uuid: BluetoothUUID) -> GATTClientCharacteristicConfiguration {
        server.configuration(of: uuid)
    }
    var mtu: UInt16 { server.mtu }
    var isIndicationPending: Bool { server.isIndicationPending }
}
