import ByteCoding

/// Read Request: read the value of one attribute.
///
/// `0A · handle (u16)`.
///
/// Core 5.3 Vol 3 Part F §3.4.4.3.
public struct ATTReadRequest: ATTProtocolDataUnit {
    public static let opcode = ATTOpcode.readRequest

    public var handle: UInt16

    public init(handle: UInt16) { self.handle = handle }

    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = try Self.reader(for: bytes)
        handle = try reader.readUInt16("attribute handle")
        try reader.expectEnd("Read Request")
    }

    public func encode() -> [UInt8] {
        var writer = Self.writer(capacity: 3)
        writer.write(handle)
        return writer.bytes
    }
}
