import ByteCoding

/// Read By Type Request: read every attribute of a type in a handle range.
///
/// `08 · starting handle (u16) · ending handle (u16) · attribute type (2 or 16 bytes)`. With
/// type 0x2803 («Characteristic») it discovers characteristics (Core 5.3 Vol 3 Part G §4.6.1).
///
/// Core 5.3 Vol 3 Part F §3.4.4.1.
public struct ATTReadByTypeRequest: ATTProtocolDataUnit {
    public static let opcode = ATTOpcode.readByTypeRequest

    public var startingHandle: UInt16
    public var endingHandle: UInt16
    public var attributeType: BluetoothUUID

    public init(startingHandle: UInt16, endingHandle: UInt16, attributeType: BluetoothUUID) {
        self.startingHandle = startingHandle
        self.endingHandle = endingHandle
        self.attributeType = attributeType
    }

    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = try Self.reader(for: bytes)
        startingHandle = try reader.readUInt16("starting handle")
        endingHandle = try reader.readUInt16("ending handle")
        attributeType = try BluetoothUUID.read(from: &reader, width: reader.remaining, "attribute type")
    }

    public func encode() -> [UInt8] {
        var writer = Self.writer(capacity: 21)
        writer.write(startingHandle)
        writer.write(endingHandle)
        writer.write(contentsOf: attributeType.littleEndianBytes)
        return writer.bytes
    }
}
