import ByteCoding
import FITFile
import Foundation
import Testing

/// Record-level features: compressed timestamps, architectures, base types and their invalid values, arrays,
/// developer fields, the profile's scales and offsets, and the streaming reader.
@Suite struct FITRecordTests {
    @Test func compressedTimestampRollsOver() {
        // Last timestamp 1000 = 0b1111101000: low 5 bits 8. Offset 10 ≥ 8: 992 + 10 = 1002.
        #expect(FITRecordHeader.timestamp(offset: 10, after: 1000) == 1002)
        // Offset 3 < 8: the 32-second window rolled over, 992 + 32 + 3 = 1027.
        #expect(FITRecordHeader.timestamp(offset: 3, after: 1000) == 1027)
        #expect(FITRecordHeader(byte: 0xA3) == .compressedTimestamp(localType: 1, timeOffset: 3))
        #expect(FITRecordHeader.compressedTimestamp(localType: 1, timeOffset: 3).byte == 0xA3)
        #expect(FITRecordHeader(byte: 0x62) == .definition(localType: 2, hasDeveloperData: true))
    }

    @Test func compressedTimestampRecordsInAFile() throws {
        var file = FITFileBuilder()
        file.define(FITFileLayoutTests.recordDefinition, localType: 0)
        let heartRateOnly = FITMessageDefinition(
            globalMessageNumber: FITMessageNumber.record,
            fields: [
                FITFieldDefinition(number: 3, size: 1, baseType: .uint8)
            ])
        file.define(heartRateOnly, localType: 1)
        file.write([.unsigned(1000), .unsigned(120), .invalid], localType: 0)  // low 5 bits: 8
        file.write([.unsigned(121)], localType: 1, timeOffset: 10)  // 1002
        file.write([.unsigned(122)], localType: 1, timeOffset: 3)  // rolled over: 1027
        file.write([.unsigned(123)], localType: 1, timeOffset: 4)  // 1028
        let messages = try FITDecoder.messages(file.finish())
        #expect(messages.map(\.timestamp) == [1000, 1002, 1027, 1028])
        #expect(messages.map { $0.value(3) } == [120, 121, 122, 123])
    }

    @Test func compressedTimestampWithoutAnyTimestampIsAnError() {
        var file = FITFileBuilder()
        file.define(
            FITMessageDefinition(
                globalMessageNumber: 20, fields: [FITFieldDefinition(number: 3, size: 1, baseType: .uint8)]),
            localType: 0)
        file.write([.unsigned(1)], localType: 0, timeOffset: 1)
        #expect(throws: DecodeError("a compressed-timestamp record before any timestamp", at: 14 + 9)) {
            try FITDecoder.messages(file.finish())
        }
    }

    @Test func bigEndianDefinitionsReadTheirFieldsBigEndian() throws {
        var file = FITFileBuilder()
        let definition = FITMessageDefinition(
            globalMessageNumber: FITMessageNumber.record,
            fields: [
                FITFieldDefinition(number: 253, size: 4, baseType: .uint32),
                FITFieldDefinition(number: 7, size: 2, baseType: .uint16),
                FITFieldDefinition(number: 9, size: 2, baseType: .sint16),
            ], architecture: .bigEndian)
        file.define(definition, localType: 0)
        file.write([.unsigned(0x3B9A_CA00), .unsigned(0x0123), .signed(-250)], localType: 0)
        let bytes = file.finish()
        // Definition at 14: header, reserved, architecture 1, global number 20 big-endian (0x00 0x14).
        #expect(Array(bytes[14 ..< 19]) == [0x40, 0, 1, 0x00, 0x14])
        // Data at 14 + 15: header, then 0x3B9ACA00 most significant byte first.
        #expect(Array(bytes[30 ..< 36]) == [0x3B, 0x9A, 0xCA, 0x00, 0x01, 0x23])
        let message = try #require(try FITDecoder.messages(bytes).first)
        #expect(message.globalMessageNumber == 20)
        #expect(message.timestamp == 1_000_000_000)
        #expect(message.value(7) == 0x123)
        #expect(message.value(9) == -2.5)  // grade: sint16, scale 100, %
    }

    @Test func everyBaseTypesInvalidValueIsInvalid() throws {
        // One field per base type, each holding its sentinel from the protocol's table (written byte by byte
        // here, not through the encoder), plus one valid neighbour per type.
        let sentinels: [(FITBaseType, [UInt8])] = [
            (.enum, [0xFF]), (.sint8, [0x7F]), (.uint8, [0xFF]), (.sint16, [0xFF, 0x7F]), (.uint16, [0xFF, 0xFF]),
            (.sint32, [0xFF, 0xFF, 0xFF, 0x7F]), (.uint32, [0xFF, 0xFF, 0xFF, 0xFF]), (.string, [0x00, 0x00]),
            (.float32, [0xFF, 0xFF, 0xFF, 0xFF]), (.float64, [UInt8](repeating: 0xFF, count: 8)), (.uint8z, [0]),
            (.uint16z, [0, 0]), (.uint32z, [0, 0, 0, 0]), (.byte, [0xFF, 0xFF]),
            (.sint64, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]), (.uint64, [UInt8](repeating: 0xFF, count: 8)),
            (.uint64z, [UInt8](repeating: 0, count: 8)),
        ]
        let definition = FITMessageDefinition(
            globalMessageNumber: 0xFF00,
            fields: sentinels.enumerated().map {
                FITFieldDefinition(number: UInt8($0.offset), size: UInt8($0.element.1.count), baseType: $0.element.0)
            })
        var file = FITFileBuilder()
        file.define(definition, localType: 0)
        file.appendRaw([0x00] + sentinels.flatMap(\.1))
        let message = try #require(try FITDecoder.messages(file.finish()).first)
        #expect(message.fields.count == sentinels.count)
        for field in message.fields { #expect(field.value == .invalid, "\(field.baseType)") }
        // One below/beside each sentinel is valid: sint8 0x7E = 126, uint16z 1, float32 1.5, sint16 -1.
        var valid = FITFileBuilder()
        valid.define(
            FITMessageDefinition(
                globalMessageNumber: 0xFF00,
                fields: [
                    FITFieldDefinition(number: 0, size: 1, baseType: .sint8),
                    FITFieldDefinition(number: 1, size: 2, baseType: .uint16z),
                    FITFieldDefinition(number: 2, size: 4, baseType: .float32),
                    FITFieldDefinition(number: 3, size: 2, baseType: .sint16),
                    FITFieldDefinition(number: 4, size: 6, baseType: .string),
                ]), localType: 0)
        valid.appendRaw([0x00, 0x7E, 0x01, 0x00, 0x00, 0x00, 0xC0, 0x3F, 0xFF, 0xFF] + Array("Zwift".utf8) + [0])
        let values = try #require(try FITDecoder.messages(valid.finish()).first).fields.map(\.value)
        #expect(values == [.signed(126), .unsigned(1), .float(1.5), .signed(-1), .string("Zwift")])
    }

    @Test func arraysKeepInvalidElementsInPlace() throws {
        // hrv.time: uint16 array, scale 1000 s. 800 ms, invalid, 810 ms.
        var file = FITFileBuilder()
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.hrv,
                fields: [
                    FITFieldDefinition(number: 0, size: 6, baseType: .uint16)
                ]), localType: 0)
        file.appendRaw([0x00, 0x20, 0x03, 0xFF, 0xFF, 0x2A, 0x03])
        let message = try #require(try FITDecoder.messages(file.finish()).first)
        #expect(message[0] == .array([.unsigned(800), .invalid, .unsigned(810)]))
        #expect(message.values(0) == [0.8, nil, 0.81])
    }

    @Test func developerFieldsAreKeptWithOrWithoutADescription() throws {
        var file = FITFileBuilder()
        // developer_data_id, then a field_description: index 0, field 1, uint16, "core_temp", scale 100, units "C".
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.developerDataId,
                fields: [
                    FITFieldDefinition(number: 3, size: 1, baseType: .uint8)
                ]), localType: 0)
        file.write([.unsigned(0)], localType: 0)
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.fieldDescription,
                fields: [
                    FITFieldDefinition(number: 0, size: 1, baseType: .uint8),
                    FITFieldDefinition(number: 1, size: 1, baseType: .uint8),
                    FITFieldDefinition(number: 2, size: 1, baseType: .uint8),
                    FITFieldDefinition(number: 3, size: 10, baseType: .string),
                    FITFieldDefinition(number: 6, size: 1, baseType: .uint8),
                    FITFieldDefinition(number: 8, size: 2, baseType: .string),
                ]), localType: 1)
        file.write(
            [.unsigned(0), .unsigned(1), .unsigned(0x84), .string("core_temp"), .unsigned(100), .string("C")],
            localType: 1)
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.record,
                fields: [
                    FITFieldDefinition(number: 253, size: 4, baseType: .uint32)
                ],
                developerFields: [
                    FITDeveloperFieldDefinition(number: 1, size: 2, developerDataIndex: 0),
                    FITDeveloperFieldDefinition(number: 9, size: 3, developerDataIndex: 2),  // never described
                ]), localType: 2)
        file.write(
            [.unsigned(1_000_000_000)], developerValues: [.bytes([0x8C, 0x0E]), .bytes([1, 2, 3])], localType: 2)
        let record = try #require(try FITDecoder.messages(file.finish()).last)
        #expect(record.timestamp == 1_000_000_000)
        #expect(record.developerFields.count == 2)
        #expect(record.developerFields[0].value == .unsigned(0x0E8C))  // 3724 → 37.24 °C with scale 100
        #expect(record.developerFields[0].description?.name == "core_temp")
        #expect(record.developerFields[0].description?.scale == 100)
        #expect(record.developerFields[1].value == .bytes([1, 2, 3]))
        #expect(record.developerFields[1].description == nil)
    }

    @Test func profileScalesAndOffsets() throws {
        var file = FITFileBuilder()
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.record,
                fields: [
                    FITFieldDefinition(number: 2, size: 2, baseType: .uint16),
                    FITFieldDefinition(number: 5, size: 4, baseType: .uint32),
                    FITFieldDefinition(number: 6, size: 2, baseType: .uint16),
                    FITFieldDefinition(number: 13, size: 1, baseType: .sint8),
                ]), localType: 0)
        // altitude 3000 → 3000 / 5 − 500 = 100 m; distance 123456 → 1234.56 m; speed 8333 → 8.333 m/s; −5 °C.
        file.write([.unsigned(3000), .unsigned(123_456), .unsigned(8333), .signed(-5)], localType: 0)
        let message = try #require(try FITDecoder.messages(file.finish()).first)
        #expect(message.value(2) == 100)
        #expect(message.value(5) == 1234.56)
        #expect(message.value(6) == 8.333)
        #expect(message.value(13) == -5)
        #expect(FITProfile.field(7, inMessage: FITMessageNumber.session)?.name == "total_elapsed_time")
        #expect(FITProfile.field(7, inMessage: FITMessageNumber.session)?.scale == 1000)
        #expect(FITProfile.date(0) == nil)  // below 0x10000000: relative to the device
        #expect(FITProfile.date(1_000_000_000) == Date(timeIntervalSince1970: 631_065_600 + 1_000_000_000))
    }

    @Test func streamingReaderMatchesTheInMemoryDecoderAcrossBufferRefills() throws {
        // 60,000 records of 8 bytes: 480 KB, so the 256 KiB buffer refills mid-record.
        let bytes = FITFileLayoutTests.smallFile(count: 60_000)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fit-stream-\(UUID()).fit").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try FITFileReader(path: path)
        var count = 0
        var last: FITMessage?
        while let item = try reader.next() {
            if case let .message(message) = item {
                count += 1
                last = message
            }
        }
        #expect(count == 60_000)
        #expect(last?.timestamp == 1_000_059_999)
        #expect(reader.offset == bytes.count)
        // Cut: the same error through the reader as in memory.
        try Data(bytes.prefix(300_001)).write(to: URL(fileURLWithPath: path))
        let cut = try FITFileReader(path: path)
        #expect(throws: DecodeError.self) { while try cut.next() != nil {} }
    }
}

/// The encoder's half (for the export work): values written by `FITValue.encode` read back the same, in both
/// architectures, for every base type.
@Suite struct FITEncodeRoundTripTests {
    @Test func everyBaseTypeRoundTripsInBothArchitectures() throws {
        let cases: [(FITBaseType, UInt8, FITValue)] = [
            (.enum, 1, .unsigned(4)), (.sint8, 1, .signed(-100)), (.uint8, 1, .unsigned(254)),
            (.sint16, 2, .signed(-32_000)), (.uint16, 2, .unsigned(65_534)), (.sint32, 4, .signed(-2_000_000_000)),
            (.uint32, 4, .unsigned(4_000_000_000)), (.string, 8, .string("Wahoo")), (.float32, 4, .float(-1.25)),
            (.float64, 8, .float(1e300)), (.uint8z, 1, .unsigned(1)), (.uint16z, 2, .unsigned(0xFFFF)),
            (.uint32z, 4, .unsigned(0xFFFF_FFFF)), (.byte, 3, .bytes([1, 2, 3])), (.sint64, 8, .signed(Int64.min)),
            (.uint64, 8, .unsigned(UInt64.max - 1)), (.uint64z, 8, .unsigned(7)),
            (.uint16, 6, .array([.unsigned(1), .invalid, .unsigned(3)])),
        ]
        for architecture in [FITMessageDefinition.Architecture.littleEndian, .bigEndian] {
            let definition = FITMessageDefinition(
                globalMessageNumber: 0xFF01,
                fields: cases.enumerated().map {
                    FITFieldDefinition(number: UInt8($0.offset), size: $0.element.1, baseType: $0.element.0)
                }, architecture: architecture)
            var file = FITFileBuilder()
            file.define(definition, localType: 9)
            file.write(cases.map(\.2), localType: 9)
            let message = try #require(try FITDecoder.messages(file.finish()).first)
            #expect(message.fields.map(\.value) == cases.map(\.2), "\(architecture)")
        }
    }
}
