import ByteCoding

/// What a foot pod reports (characteristic 0x2A54).
///
/// A little-endian `uint16` of feature bits: 0 stride length measurement, 1 total distance measurement, 2 walking or
/// running status, 3 calibration procedure, 4 multiple sensor locations; bits 5–15 are reserved and kept as they
/// are. Bytes after the first two are ignored.
///
/// Bluetooth RSCS 1.0 §3.2 (RSC Feature).
public struct RSCFeature: GATTCharacteristicValue, OptionSet {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.rscFeature }

    public var rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let strideLengthMeasurementSupported = RSCFeature(rawValue: 1 << 0)
    public static let totalDistanceMeasurementSupported = RSCFeature(rawValue: 1 << 1)
    public static let walkingOrRunningStatusSupported = RSCFeature(rawValue: 1 << 2)
    public static let calibrationProcedureSupported = RSCFeature(rawValue: 1 << 3)
    public static let multipleSensorLocationsSupported = RSCFeature(rawValue: 1 << 4)

    /// Decodes the two-byte value.
    ///
    /// - Throws: ``DecodeError`` at offset 0 when fewer than two bytes are present.
    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        rawValue = try reader.readUInt16("RSC feature bits")
    }

    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 2)
        writer.write(rawValue)
        return writer.bytes
    }
}
