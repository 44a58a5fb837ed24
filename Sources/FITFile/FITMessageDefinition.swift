import ByteCoding

/// A definition message: the layout of the data messages that follow with the same local message type.
///
/// FIT protocol, "Definition Message": a reserved byte, the architecture (0 little-endian, 1 big-endian; it
/// applies to this definition's multi-byte fields), the global message number (uint16 in that architecture),
/// the field count and 3 bytes per field, then, when the record header's developer flag is set, a count and
/// 3 bytes per developer field. A later definition of the same local type replaces the earlier one.
public struct FITMessageDefinition: Hashable, Sendable {
    public enum Architecture: UInt8, Hashable, Sendable {
        case littleEndian = 0
        case bigEndian = 1
    }

    public var architecture: Architecture
    public var globalMessageNumber: UInt16
    public var fields: [FITFieldDefinition]
    public var developerFields: [FITDeveloperFieldDefinition]

    public init(
        globalMessageNumber: UInt16, fields: [FITFieldDefinition],
        developerFields: [FITDeveloperFieldDefinition] = [], architecture: Architecture = .littleEndian
    ) {
        self.architecture = architecture
        self.globalMessageNumber = globalMessageNumber
        self.fields = fields
        self.developerFields = developerFields
    }

    /// The size of a data message's content (without its 1-byte record header).
    public var dataSize: Int {
        fields.reduce(0) { $0 + Int($1.size) } + developerFields.reduce(0) { $0 + Int($1.size) }
    }

    /// The bytes of a definition record for `localType` (0–15), header byte included.
    public func encode(localType: UInt8) -> [UInt8] {
        var writer = ByteWriter(capacity: 6 + 3 * fields.count)
        writer.write(FITRecordHeader.definition(localType: localType, hasDeveloperData: !developerFields.isEmpty).byte)
        writer.write(UInt8(0))
        writer.write(architecture.rawValue)
        let number = architecture == .littleEndian ? globalMessageNumber : globalMessageNumber.byteSwapped
        writer.write(number)
        writer.write(UInt8(fields.count))
        for field in fields {
            writer.write(field.number)
            writer.write(field.size)
            writer.write(field.baseType.rawValue)
        }
        if !developerFields.isEmpty {
            writer.write(UInt8(developerFields.count))
            for field in developerFields {
                writer.write(field.number)
                writer.write(field.size)
                writer.write(field.developerDataIndex)
            }
        }
        return writer.bytes
    }

    /// The bytes a definition record needs after its record header, from the first 5 (fixed) bytes and,
    /// with developer data, the developer field count; nil while `available` bytes do not tell yet.
    static func contentSize(_ bytes: UnsafeRawBufferPointer, from start: Int, hasDeveloperData: Bool) -> Int? {
        let available = bytes.count - start
        guard available >= 5 else { return nil }
        let fixed = 5 + 3 * Int(bytes[start + 4])
        guard hasDeveloperData else { return fixed }
        guard available >= fixed + 1 else { return nil }
        return fixed + 1 + 3 * Int(bytes[start + fixed])
    }

    /// Decodes a definition's content (after the record header); `bytes` must hold `contentSize` bytes from
    /// `start`. `offset` is the file offset of `bytes[start]`.
    init(_ bytes: UnsafeRawBufferPointer, from start: Int, hasDeveloperData: Bool, offset: Int) throws(DecodeError) {
        guard let architecture = Architecture(rawValue: bytes[start + 1]) else {
            throw DecodeError(
                "architecture \(bytes[start + 1]) in a definition message (0 or 1 expected)", at: offset + 1)
        }
        self.architecture = architecture
        let number = UInt16(bytes[start + 2]) | UInt16(bytes[start + 3]) << 8
        globalMessageNumber = architecture == .littleEndian ? number : number.byteSwapped
        let count = Int(bytes[start + 4])
        var fields: [FITFieldDefinition] = []
        fields.reserveCapacity(count)
        var i = start + 5
        for _ in 0 ..< count {
            fields.append(
                FITFieldDefinition(number: bytes[i], size: bytes[i + 1], baseType: FITBaseType(rawValue: bytes[i + 2])))
            i += 3
        }
        self.fields = fields
        var developerFields: [FITDeveloperFieldDefinition] = []
        if hasDeveloperData {
            let developerCount = Int(bytes[i])
            i += 1
            developerFields.reserveCapacity(developerCount)
            for _ in 0 ..< developerCount {
                developerFields.append(
                    FITDeveloperFieldDefinition(number: bytes[i], size: bytes[i + 1], developerDataIndex: bytes[i + 2]))
                i += 3
            }
        }
        self.developerFields = developerFields
    }
}
