import ByteCoding
import FITFile
import Foundation
import Testing

/// The file layout: header, CRC, records, chained files, and the errors damaged files give.
@Suite struct FITFileLayoutTests {
    static let recordDefinition = FITMessageDefinition(
        globalMessageNumber: FITMessageNumber.record,
        fields: [
            FITFieldDefinition(number: 253, size: 4, baseType: .uint32),
            FITFieldDefinition(number: 3, size: 1, baseType: .uint8),
            FITFieldDefinition(number: 7, size: 2, baseType: .uint16),
        ])

    /// A small file: one definition, `count` records a second apart from FIT time 1,000,000,000.
    static func smallFile(count: Int = 3) -> [UInt8] {
        var file = FITFileBuilder()
        file.define(recordDefinition, localType: 0)
        for i in 0 ..< count {
            file.write(
                [.unsigned(1_000_000_000 + UInt64(i)), .unsigned(140 + UInt64(i)), .unsigned(200)], localType: 0)
        }
        return file.finish()
    }

    /// Garmin's CRC is CRC-16/ARC (reflected polynomial 0xA001, initial 0); the catalogue's check value of
    /// "123456789" for CRC-16/ARC is 0xBB3D (reveng CRC catalogue).
    @Test func crcIsCRC16ARC() {
        #expect(FITCRC.checksum(Array("123456789".utf8)) == 0xBB3D)
        #expect(FITCRC.checksum([UInt8]()) == 0)
    }

    @Test func headerBytesAreAsTheProtocolLaysThemOut() throws {
        let bytes = FITFileHeader(dataSize: 0x0102_0304).encode()
        // 14, protocol 2.0, profile 21218 = 0x52E2 LE, size LE, ".FIT", CRC of the 12 bytes.
        #expect(Array(bytes.prefix(12)) == [14, 0x20, 0xE2, 0x52, 0x04, 0x03, 0x02, 0x01, 0x2E, 0x46, 0x49, 0x54])
        #expect(UInt16(bytes[12]) | UInt16(bytes[13]) << 8 == FITCRC.checksum(bytes.prefix(12)))
        let header = try FITFileHeader(bytes: bytes[...])
        #expect(header.dataSize == 0x0102_0304 && header.profileVersion == 21_218)
    }

    @Test func decodesRecordsWithScaleAndTimestamps() throws {
        let messages = try FITDecoder.messages(Self.smallFile())
        #expect(messages.count == 3)
        #expect(messages.map(\.timestamp) == [1_000_000_000, 1_000_000_001, 1_000_000_002])
        #expect(messages.map { $0.value(3) } == [140, 141, 142])
        // Header 14 bytes, definition 1 + 5 + 3 × 3 = 15 bytes, so the first record is at 29 and each takes 8.
        #expect(messages.map(\.offset) == [29, 37, 45])
    }

    @Test func twelveByteHeaderWithoutCRC() throws {
        var file = FITFileBuilder(headerSize: 12, protocolVersion: 0x10)
        file.define(Self.recordDefinition, localType: 3)
        file.write([.unsigned(1_000_000_000), .unsigned(99), .invalid], localType: 3)
        let messages = try FITDecoder.messages(file.finish())
        #expect(messages.count == 1 && messages[0].value(3) == 99 && messages[0][7] == nil)
    }

    @Test func notFITIsOneSentenceWithTheOffset() {
        let text = Array("<?xml version=\"1.0\"?><TrainingCenterDatabase>".utf8)
        #expect(throws: DecodeError("no \".FIT\" signature in the header: not a FIT file", at: 8)) {
            try FITDecoder.messages(text)
        }
        #expect(throws: DecodeError("an empty file: not a FIT file", at: 0)) { try FITDecoder.messages([]) }
        #expect(throws: DecodeError("a FIT header size of 3 bytes (at least 12 expected): not a FIT file", at: 0)) {
            try FITDecoder.messages([3, 0, 0])
        }
    }

    @Test func wrongHeaderCRC() {
        var bytes = Self.smallFile()
        bytes[12] ^= 0x01
        let error = #expect(throws: DecodeError.self) { try FITDecoder.messages(bytes) }
        #expect(error?.offset == 12)
    }

    @Test func wrongFileCRCNamesTheCRCOffset() throws {
        var bytes = Self.smallFile()
        bytes[bytes.count - 1] ^= 0xFF
        do {
            _ = try FITDecoder.messages(bytes)
            Issue.record("a wrong file CRC was accepted")
        } catch let error as DecodeError {
            #expect(error.offset == bytes.count - 2)
            #expect(error.reason.hasPrefix("the file CRC is 0x"))
        }
        // A flipped data byte is caught by the file CRC too.
        var data = Self.smallFile()
        data[40] ^= 0x10
        #expect(throws: DecodeError.self) { try FITDecoder.messages(data) }
    }

    @Test func truncatedFileNamesWhereItEnds() throws {
        let bytes = Self.smallFile()
        // Cut in the middle of the second record (37…44): the error is at the end of what is there.
        let cut = Array(bytes.prefix(40))
        var seen = 0
        do {
            try FITDecoder.decode(cut) { item in if case .message = item { seen += 1 } }
            Issue.record("a truncated file was accepted")
        } catch let error as DecodeError {
            #expect(error.offset == 40)
            #expect(error.reason.contains("truncated"))
        }
        #expect(seen == 1)  // the complete record before the damage
    }

    @Test func recordRunningPastTheDataSize() throws {
        // A header claiming fewer data bytes than the records take: the record that crosses the end is at fault.
        var file = FITFileBuilder()
        file.define(Self.recordDefinition, localType: 0)
        file.write([.unsigned(1_000_000_000), .unsigned(140), .unsigned(200)], localType: 0)
        var bytes = file.finish()
        bytes[4] -= 3  // data size
        bytes.replaceSubrange(12 ..< 14, with: [0, 0])  // header CRC "not computed"
        do {
            _ = try FITDecoder.messages(bytes)
            Issue.record("accepted")
        } catch let error as DecodeError {
            #expect(error.offset == 29)
            #expect(
                error.reason
                    == "a record of 8 bytes runs 3 bytes past the end of the data the header declares (byte 34)")
        }
    }

    @Test func dataBeforeDefinition() {
        var file = FITFileBuilder()
        file.appendRaw([0x05, 1, 2, 3])
        #expect(throws: DecodeError("a data message of local type 5 before any definition of it", at: 14)) {
            try FITDecoder.messages(file.finish())
        }
    }

    @Test func chainedFilesResetDefinitions() throws {
        let one = Self.smallFile(count: 2)
        let two = Self.smallFile(count: 3)
        var items: [String] = []
        try FITDecoder.decode(one + two) { item in
            switch item {
            case let .fileHeader(_, offset): items.append("header@\(offset)")
            case .definition: items.append("definition")
            case .message: items.append("message")
            case let .fileEnd(_, offset): items.append("end@\(offset)")
            }
        }
        // The first file: 14 + 15 + 2 × 8 = 45 data-and-header bytes, its CRC at 45, the second header at 47.
        #expect(
            items == [
                "header@0", "definition", "message", "message", "end@45",
                "header@47", "definition", "message", "message", "message", "end@100",
            ])
        // The second file cannot use the first one's definition.
        var second = FITFileBuilder()
        second.appendRaw([0x00] + [UInt8](repeating: 0, count: 7))
        #expect(throws: DecodeError("a data message of local type 0 before any definition of it", at: 47 + 14)) {
            try FITDecoder.messages(one + second.finish())
        }
    }

    @Test func garbageAfterTheLastFileIsAnError() {
        #expect(throws: DecodeError.self) { try FITDecoder.messages(Self.smallFile() + [0x00, 0x01]) }
    }
}

/// Inputs the fuzzer found, kept as regression tests.
@Suite struct FITFuzzRegressionTests {
    /// A definition whose field count runs past the declared data: the same error whole or byte by byte.
    @Test func definitionPastTheDataEndIsTheSameErrorInAnyChunking() throws {
        let bytes = try #require(
            Data(base64Encoded: "DiDiUigAAAAuRklU38RAAAAT+wP9BIYDAQM4BIZubm5ubm5ubm5uBQUFBQVubm4CUggBAwLiKAA9"))
        let whole = Self.error(Array(bytes), chunk: bytes.count)
        #expect(
            whole
                == DecodeError(
                    "a definition message runs past the end of the data the header declares (byte 54)", at: 29))
        for chunk in [1, 7, 20] { #expect(Self.error(Array(bytes), chunk: chunk) == whole) }
    }

    static func error(_ bytes: [UInt8], chunk: Int) -> DecodeError? {
        var decoder = FITDecoder()
        var position = 0
        var available = min(chunk, bytes.count)
        while true {
            let result: Result<FITDecoder.Step, DecodeError> = bytes.withUnsafeBytes { raw in
                do throws(DecodeError) {
                    return .success(
                        try decoder.step(
                            UnsafeRawBufferPointer(rebasing: raw[position ..< available]),
                            atEnd: available == bytes.count))
                } catch { return .failure(error) }
            }
            switch result {
            case let .failure(error): return error
            case let .success(.item(_, consumed)): position += consumed
            case .success(.needBytes): available = min(available + chunk, bytes.count)
            case .success(.finished): return nil
            }
        }
    }
}
