import ByteCoding

/// Where a heart-rate sensor is worn (characteristic 0x2A38).
///
/// One byte. Values 0–6 are assigned; 7–255 are reserved for future use and are kept as they are
/// rather than rejected, so that a strap built against a later specification still decodes. Like
/// GRDB's `ResultCode`, this is an open `RawRepresentable` struct with named constants, so a
/// `switch` needs a `default` and new values never break callers.
///
/// Bluetooth HRS 1.0 §3.2 (Body Sensor Location).
public struct BodySensorLocation: GATTCharacteristicValue, RawRepresentable, CustomStringConvertible {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.bodySensorLocation }

    public var rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let other = BodySensorLocation(rawValue: 0)
    public static let chest = BodySensorLocation(rawValue: 1)
    public static let wrist = BodySensorLocation(rawValue: 2)
    public static let finger = BodySensorLocation(rawValue: 3)
    public static let hand = BodySensorLocation(rawValue: 4)
    public static let earLobe = BodySensorLocation(rawValue: 5)
    public static let foot = BodySensorLocation(rawValue: 6)

    /// Whether the value is one the specification assigns (0–6).
    public var isAssigned: Bool { rawValue <= 6 }

    /// Decodes the one-byte value; bytes after it are ignored.
    ///
    /// - Throws: ``DecodeError`` at offset 0 when the value is empty.
    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        rawValue = try reader.readUInt8("body sensor location")
    }

    public func encode() -> [UInt8] { [rawValue] }

    public var description: String {
        switch rawValue {
        case 0: "other"
        case 1: "chest"
        case 2: "wrist"
        case 3: "finger"
        case 4: "hand"
        case 5: "ear lobe"
        case 6: "foot"
        default: "reserved (\(rawValue))"
        }
    }
}
