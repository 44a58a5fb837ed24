/// The one-byte header of every record.
///
/// FIT protocol, "Record Header". Normal header (bit 7 = 0): bit 6 set for a definition message, bit 5 set when
/// a definition carries developer fields, bits 0–3 the local message type (0–15). Compressed-timestamp header
/// (bit 7 = 1): bits 5–6 the local type (0–3), bits 0–4 a time offset in seconds against the last timestamp.
public enum FITRecordHeader: Hashable, Sendable {
    case definition(localType: UInt8, hasDeveloperData: Bool)
    case data(localType: UInt8)
    case compressedTimestamp(localType: UInt8, timeOffset: UInt8)

    public init(byte: UInt8) {
        if byte & 0x80 != 0 {
            self = .compressedTimestamp(localType: (byte >> 5) & 0x3, timeOffset: byte & 0x1F)
        } else if byte & 0x40 != 0 {
            self = .definition(localType: byte & 0xF, hasDeveloperData: byte & 0x20 != 0)
        } else {
            self = .data(localType: byte & 0xF)
        }
    }

    public var byte: UInt8 {
        switch self {
        case let .definition(localType, hasDeveloperData): 0x40 | (hasDeveloperData ? 0x20 : 0) | (localType & 0xF)
        case let .data(localType): localType & 0xF
        case let .compressedTimestamp(localType, timeOffset): 0x80 | (localType & 0x3) << 5 | (timeOffset & 0x1F)
        }
    }

    /// The timestamp a compressed header stands for, given the last full timestamp: its low 5 bits are replaced
    /// by the offset, adding 32 s when the offset is smaller than the last timestamp's low 5 bits (rollover).
    public static func timestamp(offset: UInt8, after last: UInt32) -> UInt32 {
        let offset = UInt32(offset & 0x1F)
        var timestamp = (last & ~0x1F) &+ offset
        if offset < last & 0x1F { timestamp &+= 0x20 }
        return timestamp
    }
}
