import ByteCoding

/// A battery's charge in percent (characteristic 0x2A19).
///
/// One unsigned byte, 0–100. Values above 100 are not allowed by the specification and throw,
/// because a reading of "255 %" is more likely a misread characteristic than a full battery.
///
/// Bluetooth BAS 1.0 §3.1 (Battery Level).
public struct BatteryLevel: GATTCharacteristicValue {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.batteryLevel }

    /// The largest valid value.
    public static let maximumPercent: UInt8 = 100

    /// The charge, 0–100 %.
    public let percent: UInt8

    /// Creates a level, or returns `nil` above 100 %.
    public init?(percent: UInt8) {
        guard percent <= Self.maximumPercent else { return nil }
        self.percent = percent
    }

    /// Decodes the one-byte value; bytes after it are ignored.
    ///
    /// - Throws: ``DecodeError`` at offset 0 when the value is empty or above 100.
    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        let value = try reader.readUInt8("battery level")
        guard value <= Self.maximumPercent else {
            throw DecodeError("battery level \(value) is above 100 %", at: 0)
        }
        percent = value
    }

    public func encode() -> [UInt8] { [percent] }
}
