import ByteCoding

/// What a fitness machine says its workout is doing (characteristic 0x2AD3, read and notify).
///
/// ```
/// flags u8 · training status u8 · [training status string, UTF-8, to the end]
/// ```
///
/// Flags bit 0 = a string follows, bit 1 = the string is extended (continues in a read of the characteristic).
/// Status values: 0x01 idle, 0x02 warming up, 0x03 low- and 0x04 high-intensity interval, 0x05 recovery interval,
/// 0x06 isometric, 0x07 heart rate control, 0x08 fitness test, 0x09/0x0A speed outside the control region
/// (low/high), 0x0B cool down, 0x0C watt control, 0x0D manual mode, 0x0E pre-workout, 0x0F post-workout; 0x00
/// other. The string is kept as its bytes, so any value round-trips.
///
/// Bluetooth FTMS 1.0 §4.10 (Training Status).
public struct TrainingStatus: GATTCharacteristicValue {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.trainingStatus }

    public var status: UInt8
    /// The status string's bytes, when present.
    public var string: [UInt8]?
    /// Whether the string continues beyond this value (flags bit 1).
    public var isExtended: Bool

    public init(status: UInt8, string: [UInt8]? = nil, isExtended: Bool = false) {
        self.status = status
        self.string = string
        self.isExtended = isExtended
    }

    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        let flags = try reader.readUInt8("flags")
        status = try reader.readUInt8("training status")
        string = flags & 1 != 0 ? Array(reader.readRemaining()) : nil
        isExtended = flags & 2 != 0
    }

    /// The status string as text (invalid UTF-8 replaced), when present.
    public var text: String? { string.map { String(decoding: $0, as: UTF8.self) } }

    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 2 + (string?.count ?? 0))
        writer.write((string != nil ? 1 : 0) | (isExtended ? 2 : 0) as UInt8)
        writer.write(status)
        if let string { writer.write(contentsOf: string) }
        return writer.bytes
    }
}
