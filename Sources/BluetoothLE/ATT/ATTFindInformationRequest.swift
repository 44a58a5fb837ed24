import ByteCoding

/// Find Information Request: list the handles and types of the attributes in a range.
///
/// `04 · starting handle (u16) · ending handle (u16)`. Used to discover characteristic
/// descriptors such as the CCCD (Core 5.3 Vol 3 Part G §4.7.1).
///
/// Core 5.3 Vol 3 Part F §3.4.3.1.
public struct ATTFindInformationRequest: ATTProtocolDataUnit {
    public static let opcode = ATTOpcode.findInformationRequest

    public var startingHandle: UInt16
    public var endingHandle: UInt16

    public init(startingHandle: UInt16, endingHandle: UInt16) {
        self.startingHandle = startingHandle
        self.endingHandle = endingHandle
    }

    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = try Self.reader(for: bytes)
        startingHandle = try reader.readUInt16("starting handle")
        endingHandle = try reader.readUInt16("ending handle")
        try reader.expectEnd("Find Information Request")
    }

    public func encode() -> [UInt8] {
        var writer = Self.writer(capacity: 5)
        writer.write(startingHandle)
        writer.write(endingHandle)
        return writer.bytes
    }
}
