import ByteCoding

/// The value of a «Characteristic» declaration attribute (type 0x2803).
///
/// `properties (u8) · value handle (u16) · characteristic UUID (2 or 16 bytes)`, so 5 or 19 bytes;
/// it is what a Read By Type Response carries per characteristic during discovery.
///
/// Core 5.3 Vol 3 Part G §3.3.1 (Table 3.4).
public struct GATTCharacteristicDeclaration: Hashable, Sendable {
    public var properties: GATTCharacteristicProperties
    /// The handle of the attribute holding the characteristic value.
    public var valueHandle: UInt16
    public var uuid: BluetoothUUID

    public init(properties: GATTCharacteristicProperties, valueHandle: UInt16, uuid: BluetoothUUID) {
        self.properties = properties
        self.valueHandle = valueHandle
        self.uuid = uuid
    }

    /// Decodes a declaration value of 5 or 19 bytes.
    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        properties = GATTCharacteristicProperties(rawValue: try reader.readUInt8("characteristic properties"))
        valueHandle = try reader.readUInt16("characteristic value handle")
        uuid = try BluetoothUUID.read(from: &reader, width: reader.remaining, "characteristic UUID")
    }

    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 19)
        writer.write(properties.rawValue)
        writer.write(valueHandle)
        writer.write(contentsOf: uuid.littleEndianBytes)
        return writer.bytes
    }
}
