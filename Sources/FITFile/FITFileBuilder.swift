/// Assembles the bytes of one FIT file in memory: records in the order given, then the header (with its CRC and
/// the data size) and the file CRC. The low-level half of an encoder: it writes exactly the definitions and
/// values it is given, so tests can make any file the protocol allows (big-endian definitions, compressed
/// timestamps, developer fields, invalid values) and chain several.
///
/// ```swift
/// var file = FITFileBuilder()
/// let record = FITMessageDefinition(globalMessageNumber: FITMessageNumber.record, fields: [
///     FITFieldDefinition(number: 253, size: 4, baseType: .uint32), FITFieldDefinition(number: 3, size: 1, baseType: .uint8)])
/// file.define(record, localType: 0)
/// file.write([.unsigned(1_000_000_000), .unsigned(142)], localType: 0)
/// let bytes = file.finish()
/// ```
public struct FITFileBuilder: Sendable {
    public private(set) var records: [UInt8] = []
    private var definitions = [FITMessageDefinition?](repeating: nil, count: 16)
    public var headerSize: UInt8
    public var protocolVersion: UInt8

    public init(headerSize: UInt8 = 14, protocolVersion: UInt8 = 0x20) {
        self.headerSize = headerSize
        self.protocolVersion = protocolVersion
    }

    /// Writes a definition record for `localType`.
    public mutating func define(_ definition: FITMessageDefinition, localType: UInt8) {
        definitions[Int(localType & 0xF)] = definition
        records.append(contentsOf: definition.encode(localType: localType))
    }

    /// Writes a data record with the current definition of `localType`: one value per field, in order, then one
    /// per developer field (missing values are written invalid). With `timeOffset`, the record gets a
    /// compressed-timestamp header (local types 0–3 only).
    public mutating func write(
        _ values: [FITValue], developerValues: [FITValue] = [], localType: UInt8,
        timeOffset: UInt8? = nil
    ) {
        guard let definition = definitions[Int(localType & 0xF)] else {
            preconditionFailure("FITFileBuilder: local type \(localType) written before it was defined")
        }
        if let timeOffset {
            records.append(FITRecordHeader.compressedTimestamp(localType: localType, timeOffset: timeOffset).byte)
        } else {
            records.append(FITRecordHeader.data(localType: localType).byte)
        }
        let bigEndian = definition.architecture == .bigEndian
        for (index, field) in definition.fields.enumerated() {
            let value = index < values.count ? values[index] : .invalid
            records.append(contentsOf: value.encode(size: Int(field.size), type: field.baseType, bigEndian: bigEndian))
        }
        for (index, field) in definition.developerFields.enumerated() {
            let value = index < developerValues.count ? developerValues[index] : .invalid
            records.append(contentsOf: value.encode(size: Int(field.size), type: .byte, bigEndian: bigEndian))
        }
    }

    /// Appends raw record bytes (for tests of damaged files).
    public mutating func appendRaw(_ bytes: [UInt8]) { records.append(contentsOf: bytes) }

    /// The whole file: header, records, file CRC.
    public func finish(profileVersion: UInt16 = FITProfile.version) -> [UInt8] {
        let header = FITFileHeader(
            headerSize: headerSize, protocolVersion: protocolVersion, profileVersion: profileVersion,
            dataSize: UInt32(records.count))
        var bytes = header.encode()
        bytes.append(contentsOf: records)
        let crc = FITCRC.checksum(bytes)
        bytes.append(UInt8(truncatingIfNeeded: crc))
        bytes.append(UInt8(truncatingIfNeeded: crc >> 8))
        return bytes
    }
}
