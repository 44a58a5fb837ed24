import ByteCoding

/// A Supported … Range characteristic of a fitness machine: the least and greatest value its control point accepts
/// for a target, and the smallest step between two values.
///
/// ```
/// minimum · maximum (u16 or s16, see the characteristic) · minimum increment u16
/// ```
///
/// A range whose minimum is above its maximum is refused with a ``DecodeError`` (a machine that sends one is
/// broken; a target checked against it would be meaningless). Bytes after the sixth are ignored.
///
/// Bluetooth FTMS 1.0 §4.13–§4.15, §4.18.
public protocol FitnessMachineSupportedRange: GATTCharacteristicValue {
    /// Whether the bounds are signed (s16) rather than unsigned (u16).
    static var boundsAreSigned: Bool { get }
    /// The bounds' unit per step (0.01 km/h, 0.1 %, 0.1, 1 W).
    static var resolution: Double { get }
    /// The least accepted value, in steps of ``resolution``.
    var minimum: Int { get }
    /// The greatest accepted value, in steps of ``resolution``.
    var maximum: Int { get }
    /// The smallest change, in steps of ``resolution``.
    var increment: UInt16 { get }
    /// A range from its fields; callers keep `minimum...maximum` within the bounds' type.
    init(uncheckedMinimum: Int, maximum: Int, increment: UInt16)
}

extension FitnessMachineSupportedRange {
    /// Decodes a range, checking that its minimum is not above its maximum.
    ///
    /// - Throws: ``DecodeError`` naming a field cut short, or at offset 0 when the minimum is above the maximum.
    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        let minimum, maximum: Int
        if Self.boundsAreSigned {
            minimum = Int(try reader.readInt16("minimum"))
            maximum = Int(try reader.readInt16("maximum"))
        } else {
            minimum = Int(try reader.readUInt16("minimum"))
            maximum = Int(try reader.readUInt16("maximum"))
        }
        let increment = try reader.readUInt16("minimum increment")
        guard minimum <= maximum else {
            throw DecodeError("supported range with minimum \(minimum) above maximum \(maximum)", at: 0)
        }
        self.init(uncheckedMinimum: minimum, maximum: maximum, increment: increment)
    }

    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 6)
        writer.write(UInt16(truncatingIfNeeded: minimum))
        writer.write(UInt16(truncatingIfNeeded: maximum))
        writer.write(increment)
        return writer.bytes
    }

    /// The bounds in the characteristic's unit (km/h, %, level, W).
    public var bounds: ClosedRange<Double> { Double(minimum) * Self.resolution ... Double(maximum) * Self.resolution }

    /// Whether `value` (in steps of ``resolution``) is within the range.
    public func contains(_ value: Int) -> Bool { (minimum ... maximum).contains(value) }
}

/// Supported Speed Range (characteristic 0x2AD4): u16 bounds in 1/100 km/h. Bluetooth FTMS 1.0 §4.13.
public struct SupportedSpeedRange: FitnessMachineSupportedRange {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.supportedSpeedRange }
    public static var boundsAreSigned: Bool { false }
    public static var resolution: Double { 0.01 }
    public let minimum: Int, maximum: Int, increment: UInt16
    public init(uncheckedMinimum: Int, maximum: Int, increment: UInt16) {
        (minimum, self.maximum, self.increment) = (uncheckedMinimum, maximum, increment)
    }
}

/// Supported Inclination Range (characteristic 0x2AD5): s16 bounds in 1/10 %. Bluetooth FTMS 1.0 §4.14.
public struct SupportedInclinationRange: FitnessMachineSupportedRange {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.supportedInclinationRange }
    public static var boundsAreSigned: Bool { true }
    public static var resolution: Double { 0.1 }
    public let minimum: Int, maximum: Int, increment: UInt16
    public init(uncheckedMinimum: Int, maximum: Int, increment: UInt16) {
        (minimum, self.maximum, self.increment) = (uncheckedMinimum, maximum, increment)
    }
}

/// Supported Resistance Level Range (characteristic 0x2AD6): s16 bounds in 1/10 of a level. Bluetooth FTMS 1.0 §4.15.
public struct SupportedResistanceLevelRange: FitnessMachineSupportedRange {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.supportedResistanceLevelRange }
    public static var boundsAreSigned: Bool { true }
    public static var resolution: Double { 0.1 }
    public let minimum: Int, maximum: Int, increment: UInt16
    public init(uncheckedMinimum: Int, maximum: Int, increment: UInt16) {
        (minimum, self.maximum, self.increment) = (uncheckedMinimum, maximum, increment)
    }
}

/// Supported Power Range (characteristic 0x2AD8): s16 bounds in watts. Bluetooth FTMS 1.0 §4.18.
public struct SupportedPowerRange: FitnessMachineSupportedRange {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.supportedPowerRange }
    public static var boundsAreSigned: Bool { true }
    public static var resolution: Double { 1 }
    public let minimum: Int, maximum: Int, increment: UInt16
    public init(uncheckedMinimum: Int, maximum: Int, increment: UInt16) {
        (minimum, self.maximum, self.increment) = (uncheckedMinimum, maximum, increment)
    }
}
