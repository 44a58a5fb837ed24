import ByteCoding

/// Read Blob Request: read part of a long attribute value, from an offset.
///
/// `0C · handle (u16) · value offset (u16)`. Used by the Read Long Characteristic Value procedure
/// (Core 5.3 Vol 3 Part G §4.8.3).
///
/// Core 5.3 Vol 3 Part F §3.4.4.5.
public struct ATTReadBlobRequest: ATTProtocolDataUnit {
    public static let opcode = ATTOpcode.readBlobRequest

    public var handle: UInt16
    public var offset: UInt16

    public init(handle: UInt16, offset: UInt16) {
        self.handle = handle
        self.offset = offset
    }

    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = try Self.reader(for: bytes)
        handle = try reader.readUInt16("attribute handle")
        offset = try reader.readUInt16("value offset")
        try reader.expectEnd("Read Blob Request")
    }

    public func encode() -> [UInt8] {
        var writer = Self.writer(capacity: 5)
        writer.write(handle)
        writer.write(offset)
        return writer.bytes
    }
}
