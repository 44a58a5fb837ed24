import ByteCoding

/// Where a cycling sensor is mounted (characteristic 0x2A5D, shared by the Cycling Power and
/// Cycling Speed and Cadence services).
///
/// One byte. Values 0–16 are assigned; the rest are reserved and kept as they are rather than
/// rejected. Like ``BodySensorLocation`` this is an open `RawRepresentable` struct with named
/// constants.
///
/// Bluetooth CPS 1.1 §3.3 and CSCS 1.0 §3.3 (Sensor Location).
public struct SensorLocation: GATTCharacteristicValue, RawRepresentable, CustomStringConvertible {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.sensorLocation }

    public var rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let other = SensorLocation(rawValue: 0)
    public static let topOfShoe = SensorLocation(rawValue: 1)
    public static let inShoe = SensorLocation(rawValue: 2)
    public static let hip = SensorLocation(rawValue: 3)
    public static let frontWheel = SensorLocation(rawValue: 4)
    public static let leftCrank = SensorLocation(rawValue: 5)
    public static let rightCrank = SensorLocation(rawValue: 6)
    public static let leftPedal = SensorLocation(rawValue: 7)
    public static let rightPedal = SensorLocation(rawValue: 8)
    public static let frontHub = SensorLocation(rawValue: 9)
    public static let rearDropout = SensorLocation(rawValue: 10)
    public static let chainstay = SensorLocation(rawValue: 11)
    public static let rearWheel = SensorLocation(rawValue: 12)
    public static let rearHub = SensorLocation(rawValue: 13)
    public static let chest = SensorLocation(rawValue: 14)
    public static let spider = SensorLocation(rawValue: 15)
    public static let chainRing = SensorLocation(rawValue: 16)

    private static let names = [
        "other", "top of shoe", "in shoe", "hip", "front wheel", "left crank", "right crank",
        "left pedal", "right pedal", "front hub", "rear dropout", "chainstay", "rear wheel",
        "rear hub", "chest", "spider", "chain ring",
    ]

    /// Whether the value is one the specification assigns (0–16).
    public var isAssigned: Bool { Int(rawValue) < Self.names.count }

    /// Decodes the one-byte value; bytes after it are ignored.
    ///
    /// - Throws: ``DecodeError`` at offset 0 when the value is empty.
    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        rawValue = try reader.readUInt8("sensor location")
    }

    public func encode() -> [UInt8] { [rawValue] }

    public var description: String {
        isAssigned ? Self.names[Int(rawValue)] : "reserved (\(rawValue))"
    }
}
