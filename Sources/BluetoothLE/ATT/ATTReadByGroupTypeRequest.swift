import ByteCoding

/// Read By Group Type Request: read every grouping attribute of a type in a handle range.
///
/// `10 · starting handle (u16) · ending handle (u16) · group type (2 or 16 bytes)`. With type
/// 0x2800 («Primary Service») it discovers all primary services (Core 5.3 Vol 3 Part G §4.4.1).
///
/// Core 5.3 Vol 3 Part F §3.4.4.9.
public struct ATTReadByGroupTypeRequest: ATTProtocolDataUnit {
    public static let opcode = ATTOpcode.readByGroupTypeRequest

    public var startingHandle: UInt16
    public var endingHandle: UInt16
    public var groupType: BluetoothUUID

    public init(startingHandle: UInt16, endingHandle: UInt16, groupType: BluetoothUUID) {
        self.startingHandle = startingHandle
        self.endingHandle = endingHandle
        self.groupType = groupType
    }

    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = try Self.reader(for: bytes)
        startingHandle = try reader.readUInt16("starting handle")
        endingHandle = try reader.readUInt16("ending handle")
        groupType = try BluetoothUUID.read(from: &reader, width: reader.remaining, "attribute group type")
    }

    public func encode() -> [UInt8] {
        var writer = Self.writer(capacity: 21)
        writer.write(startingHandle)
        writer.write(endingHandle)
        writer.write(contentsOf: groupType.littleEndianBytes)
        return writer.bytes
    }
}
