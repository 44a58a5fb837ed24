import FITFile
import Foundation
import TestSupport
import Testing

/// FITFile against independent implementations: files Garmin's own encoder wrote decode here to what Garmin's
/// decoder and fitparse read from them, and files written here decode in fitparse (and, without compressed
/// timestamps, in Garmin's decoder, which cannot read those) to what FITFile reads.
@Suite(.blockingWaits) struct OracleTests {
    func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("fit-oracle-\(UUID())-\(name)").path
    }

    @Test(.timeLimit(.minutes(1)))
    func garminEncodedActivityDecodesAsGarminAndFitparseRead() throws {
        for multisport in [false, true] {
            let path = temporaryPath("garmin.fit")
            defer { try? FileManager.default.removeItem(atPath: path) }
            try Oracle.run(["encode-activity", path, "900"] + (multisport ? ["--multisport"] : []))
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            let ours = try FITDecoder.messages(bytes)
            // 900 s less a 30 s pause = 870 records; one hrv message every 10 s of them.
            #expect(ours.filter { $0.globalMessageNumber == FITMessageNumber.record }.count == 870)
            #expect(ours.filter { $0.globalMessageNumber == FITMessageNumber.session }.count == (multisport ? 3 : 1))
            let garmin = try Oracle.decode("decode-garmin", path: path)
            let fitparse = try Oracle.decode("decode-fitparse", path: path)
            let mine = Oracle.ours(ours)
            #expect(Oracle.differences(mine, garmin) == [], "against garmin-fit-sdk")
            #expect(Oracle.differences(mine, fitparse) == [], "against fitparse")
            // Scaled values agree with what the script wrote (speed to the millimetre per second).
            let record = try #require(ours.first { $0.globalMessageNumber == FITMessageNumber.record })
            #expect(record.value(6) == 8.0)  // 8 + 2 sin(0)
            #expect(record.value(2) == 100)  // altitude 100 m: stored (100 + 500) × 5
        }
    }

    /// A file made here with compressed timestamps, a big-endian definition, a 12-byte header, developer fields
    /// and invalid values; fitparse must read the same values.
    @Test(.timeLimit(.minutes(1)))
    func ourFilesDecodeTheSameInFitparseAndGarmin() throws {
        var file = FITFileBuilder()
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.fileId,
                fields: [
                    FITFieldDefinition(number: 0, size: 1, baseType: .enum),
                    FITFieldDefinition(number: 1, size: 2, baseType: .uint16),
                    FITFieldDefinition(number: 4, size: 4, baseType: .uint32),
                    FITFieldDefinition(number: 8, size: 12, baseType: .string),
                ]), localType: 0)
        file.write([.unsigned(4), .unsigned(255), .unsigned(1_100_000_000), .string("made here")], localType: 0)
        let bigEndian = FITMessageDefinition(
            globalMessageNumber: FITMessageNumber.record,
            fields: [
                FITFieldDefinition(number: 253, size: 4, baseType: .uint32),
                FITFieldDefinition(number: 3, size: 1, baseType: .uint8),
                FITFieldDefinition(number: 7, size: 2, baseType: .uint16),
                FITFieldDefinition(number: 5, size: 4, baseType: .uint32),
                FITFieldDefinition(number: 9, size: 2, baseType: .sint16),
            ], architecture: .bigEndian)
        file.define(bigEndian, localType: 1)
        let compact = FITMessageDefinition(
            globalMessageNumber: FITMessageNumber.record,
            fields: [
                FITFieldDefinition(number: 3, size: 1, baseType: .uint8),
                FITFieldDefinition(number: 7, size: 2, baseType: .uint16),
            ])
        let hrv = FITMessageDefinition(
            globalMessageNumber: FITMessageNumber.hrv,
            fields: [
                FITFieldDefinition(number: 0, size: 10, baseType: .uint16)
            ])
        file.define(hrv, localType: 3)
        for t in 0 ..< 200 {
            let hr = UInt64(110 + t % 40), power = t % 17 == 0 ? FITValue.invalid : .unsigned(UInt64(180 + t % 90))
            if t % 30 == 0 {
                file.write(
                    [
                        .unsigned(1_100_000_000 + UInt64(t)), .unsigned(hr), power, .unsigned(UInt64(t) * 850),
                        .signed(Int64(t % 11) - 5),
                    ], localType: 1)
            } else {
                if t % 30 == 1 { file.define(compact, localType: 2) }
                file.write([.unsigned(hr), power], localType: 2, timeOffset: UInt8((1_100_000_000 + t) & 0x1F))
            }
            if t % 50 == 0 { file.write([.array([.unsigned(800), .invalid, .unsigned(790)])], localType: 3) }
        }
        let bytes = file.finish()
        let path = temporaryPath("ours.fit")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let ours = try FITDecoder.messages(bytes)
        #expect(ours.filter { $0.globalMessageNumber == FITMessageNumber.record }.count == 200)
        let fitparse = try Oracle.decode("decode-fitparse", path: path)
        // fitparse gives a compressed-timestamp record its timestamp as field 253; FITFile keeps it apart.
        var mine = Oracle.ours(ours)
        for (index, message) in ours.enumerated() where message.compressedTimestamp != nil {
            mine[index].fields[253] = .number(Double(message.compressedTimestamp!))
        }
        #expect(Oracle.differences(mine, fitparse) == [], "against fitparse")

        // Garmin's decoder, on the same content without compressed timestamps (it cannot read them).
        var plain = FITFileBuilder(headerSize: 12, protocolVersion: 0x10)
        plain.define(bigEndian, localType: 0)
        for t in 0 ..< 50 {
            plain.write(
                [
                    .unsigned(1_100_000_000 + UInt64(t)), .unsigned(UInt64(100 + t)), .unsigned(UInt64(t * 7)),
                    t == 3 ? .invalid : .unsigned(UInt64(t) * 850), .signed(-Int64(t)),
                ], localType: 0)
        }
        let plainPath = temporaryPath("plain.fit")
        let plainBytes = plain.finish()
        try Data(plainBytes).write(to: URL(fileURLWithPath: plainPath))
        defer { try? FileManager.default.removeItem(atPath: plainPath) }
        let garmin = try Oracle.decode("decode-garmin", path: plainPath)
        #expect(
            Oracle.differences(Oracle.ours(try FITDecoder.messages(plainBytes)), garmin) == [], "against garmin-fit-sdk"
        )
    }
}
