import ByteCoding

/// What a power meter can report and do (characteristic 0x2A65).
///
/// A little-endian `uint32` of feature bits. Bits 0–19 are single features; bits 20–21 form a
/// two-bit field, ``distributedSystemSupport``; bits 22–31 are reserved and kept as they are, so
/// that a value from a later specification round-trips unchanged. Bytes after the first four are
/// ignored.
///
/// ```swift
/// let features = try CyclingPowerFeature(bytes: [0x08, 0x00, 0x00, 0x00])
/// features.contains(.crankRevolutionDataSupported)   // true
/// ```
///
/// Bluetooth CPS 1.1 §3.1 (Cycling Power Feature).
public struct CyclingPowerFeature: GATTCharacteristicValue, OptionSet {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.cyclingPowerFeature }

    public var rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let pedalPowerBalanceSupported = CyclingPowerFeature(rawValue: 1 << 0)
    public static let accumulatedTorqueSupported = CyclingPowerFeature(rawValue: 1 << 1)
    public static let wheelRevolutionDataSupported = CyclingPowerFeature(rawValue: 1 << 2)
    public static let crankRevolutionDataSupported = CyclingPowerFeature(rawValue: 1 << 3)
    public static let extremeMagnitudesSupported = CyclingPowerFeature(rawValue: 1 << 4)
    public static let extremeAnglesSupported = CyclingPowerFeature(rawValue: 1 << 5)
    public static let topAndBottomDeadSpotAnglesSupported = CyclingPowerFeature(rawValue: 1 << 6)
    public static let accumulatedEnergySupported = CyclingPowerFeature(rawValue: 1 << 7)
    public static let offsetCompensationIndicatorSupported = CyclingPowerFeature(rawValue: 1 << 8)
    public static let offsetCompensationSupported = CyclingPowerFeature(rawValue: 1 << 9)
    public static let measurementContentMaskingSupported = CyclingPowerFeature(rawValue: 1 << 10)
    public static let multipleSensorLocationsSupported = CyclingPowerFeature(rawValue: 1 << 11)
    public static let crankLengthAdjustmentSupported = CyclingPowerFeature(rawValue: 1 << 12)
    public static let chainLengthAdjustmentSupported = CyclingPowerFeature(rawValue: 1 << 13)
    public static let chainWeightAdjustmentSupported = CyclingPowerFeature(rawValue: 1 << 14)
    public static let spanLengthAdjustmentSupported = CyclingPowerFeature(rawValue: 1 << 15)
    /// Sensor measurement context: set = torque-based, clear = force-based. See ``sensorMeasurementContext``.
    public static let torqueBasedMeasurementContext = CyclingPowerFeature(rawValue: 1 << 16)
    public static let instantaneousMeasurementDirectionSupported = CyclingPowerFeature(rawValue: 1 << 17)
    public static let factoryCalibrationDateSupported = CyclingPowerFeature(rawValue: 1 << 18)
    public static let enhancedOffsetCompensationSupported = CyclingPowerFeature(rawValue: 1 << 19)

    /// What the sensor measures to derive power (bit 16).
    public enum SensorMeasurementContext: Hashable, Sendable {
        case forceBased
        case torqueBased
    }

    /// Whether the sensor may be used in a distributed system (bits 20–21).
    public enum DistributedSystemSupport: UInt8, Hashable, Sendable {
        /// Legacy sensor; distributed use not specified.
        case unspecified = 0
        /// Not for use in a distributed system.
        case notSupported = 1
        /// Can be used in a distributed system.
        case supported = 2
        /// Reserved for future use.
        case reserved = 3
    }

    /// Bit 16 as an enumeration.
    public var sensorMeasurementContext: SensorMeasurementContext {
        contains(.torqueBasedMeasurementContext) ? .torqueBased : .forceBased
    }

    /// Bits 20–21 as an enumeration.
    public var distributedSystemSupport: DistributedSystemSupport {
        get { DistributedSystemSupport(rawValue: UInt8((rawValue >> 20) & 0b11))! }
        set { rawValue = rawValue & ~(0b11 << 20) | UInt32(newValue.rawValue) << 20 }
    }

    /// Decodes the four-byte value.
    ///
    /// - Throws: ``DecodeError`` at offset 0 when fewer than four bytes are present.
    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        rawValue = try reader.readUInt32("cycling power feature bits")
    }

    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 4)
        writer.write(rawValue)
        return writer.bytes
    }
}
