import ByteCoding

/// What a speed and cadence sensor reports (characteristic 0x2A5C).
///
/// A little-endian `uint16` of feature bits: 0 wheel revolution data, 1 crank revolution data,
/// 2 multiple sensor locations; bits 3–15 are reserved and kept as they are. Bytes after the
/// first two are ignored. A collector uses it to know which halves of ``CSCMeasurement`` to expect.
///
/// Bluetooth CSCS 1.0 §3.2 (CSC Feature).
public struct CSCFeature: GATTCharacteristicValue, OptionSet {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.cscFeature }

    public var rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let wheelRevolutionDataSupported = CSCFeature(rawValue: 1 << 0)
    public static let crankRevolutionDataSupported = CSCFeature(rawValue: 1 << 1)
    public static let multipleSensorLocationsSupported = CSCFeature(rawValue: 1 << 2)

    /// Decodes the two-byte value.
    ///
    /// - Throws: ``DecodeError`` at offset 0 when fewer than two bytes are present.
    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        rawValue = try reader.readUInt16("CSC feature bits")
    }

    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 2)
        writer.write(rawValue)
        return writer.bytes
    }
}
