import ByteCoding

/// The header that opens each FIT file (and each file of a chained FIT file).
///
/// FIT protocol, "File Header": byte 0 the header size (12 or 14), byte 1 the protocol version, bytes 2–3 the
/// profile version (uint16 LE), bytes 4–7 the data size (uint32 LE, without the header and the 2-byte file CRC),
/// bytes 8–11 `.FIT`, and in a 14-byte header bytes 12–13 the CRC of bytes 0–11 (0 when not computed).
public struct FITFileHeader: Hashable, Sendable {
    public var headerSize: UInt8
    public var protocolVersion: UInt8
    public var profileVersion: UInt16
    /// Bytes of records between the header and the file CRC.
    public var dataSize: UInt32
    /// The header's own CRC as stored (nil in a 12-byte header; 0 means "not computed").
    public var crc: UInt16?

    public init(
        headerSize: UInt8 = 14, protocolVersion: UInt8 = 0x20, profileVersion: UInt16 = 21_218,
        dataSize: UInt32, crc: UInt16? = nil
    ) {
        self.headerSize = headerSize
        self.protocolVersion = protocolVersion
        self.profileVersion = profileVersion
        self.dataSize = dataSize
        self.crc = crc
    }

    /// The smallest header the protocol allows.
    public static let minimumSize = 12

    /// Decodes a header from the start of `bytes` (which must hold at least `bytes[0]` bytes), checking the
    /// signature and, when present and non-zero, the header CRC. `offset` is where `bytes` starts in the file,
    /// for the error's offset.
    public init(bytes: ArraySlice<UInt8>, offset: Int = 0) throws(DecodeError) {
        var reader = ByteReader(Array(bytes))
        let size = try reader.readUInt8("header size")
        guard size >= 12 else {
            throw DecodeError("a FIT header size of \(size) bytes (at least 12 expected): not a FIT file", at: offset)
        }
        headerSize = size
        protocolVersion = try reader.readUInt8("protocol version")
        profileVersion = try reader.readUInt16("profile version")
        dataSize = try reader.readUInt32("data size")
        let signature = try reader.readBytes(4, "\".FIT\" signature")
        guard signature.elementsEqual(Array(".FIT".utf8)) else {
            throw DecodeError("no \".FIT\" signature in the header: not a FIT file", at: offset + 8)
        }
        guard protocolVersion >> 4 <= 2 else {
            throw DecodeError(
                "FIT protocol version \(protocolVersion >> 4).\(protocolVersion & 0xF) is newer than 2.x",
                at: offset + 1)
        }
        if size >= 14 {
            let stored = try reader.readUInt16("header CRC")
            crc = stored
            let computed = FITCRC.checksum(bytes.prefix(12))
            if stored != 0 && stored != computed {
                throw DecodeError(
                    "the header CRC is 0x\(hex(stored)) but its bytes give 0x\(hex(computed))", at: offset + 12)
            }
        } else {
            crc = nil
        }
        if size > 14 { _ = try reader.readBytes(Int(size) - 14, "header's extra bytes") }
    }

    /// The header's bytes; a 14-byte header gets the CRC of its first 12 bytes.
    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: Int(headerSize))
        writer.write(headerSize)
        writer.write(protocolVersion)
        writer.write(profileVersion)
        writer.write(dataSize)
        writer.write(contentsOf: Array(".FIT".utf8))
        if headerSize >= 14 {
            writer.write(FITCRC.checksum(writer.bytes))
            for _ in 14 ..< Int(headerSize) { writer.write(UInt8(0)) }
        }
        return writer.bytes
    }
}

func hex(_ value: UInt16) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
