import ByteCoding

/// A Bluetooth UUID: an attribute type, service or characteristic identifier.
///
/// A UUID is carried on the wire either as a 16-bit alias of the Bluetooth Base UUID
/// `0000xxxx-0000-1000-8000-00805F9B34FB` or as a full 128-bit value, both little-endian.
/// The value remembers which width it was created or decoded with, so codecs round-trip byte
/// for byte, but equality and hashing compare the full 128-bit value: `BluetoothUUID(0x180D)`
/// equals `BluetoothUUID("0000180D-0000-1000-8000-00805F9B34FB")`.
///
/// Core 5.3 Vol 3 Part B §2.5.1 (UUID) and Part F §3.2.1 (Attribute Type).
public struct BluetoothUUID: Sendable, Hashable, CustomStringConvertible, LosslessStringConvertible {
    /// The 128-bit value, most significant half first.
    public let high: UInt64
    public let low: UInt64
    /// Whether this UUID is written as 2 bytes (a 16-bit alias) rather than 16.
    public let isShortForm: Bool

    static let baseHigh: UInt64 = 0x0000_0000_0000_1000
    static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB

    /// A 16-bit UUID, an alias of the Bluetooth Base UUID.
    public init(_ value: UInt16) {
        high = Self.baseHigh | UInt64(value) << 32
        low = Self.baseLow
        isShortForm = true
    }

    /// A 128-bit UUID from its two halves, most significant first.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
        isShortForm = false
    }

    /// A 128-bit UUID from 16 bytes in display (big-endian) order.
    public init(bigEndianBytes bytes: some Collection<UInt8>) {
        precondition(bytes.count == 16, "a 128-bit UUID has 16 bytes")
        var high: UInt64 = 0, low: UInt64 = 0
        for (i, byte) in bytes.enumerated() {
            if i < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.init(high: high, low: low)
    }

    /// The 16-bit alias if this UUID is derived from the Bluetooth Base UUID, else `nil`.
    public var shortValue: UInt16? {
        guard low == Self.baseLow, high & 0xFFFF_0000_FFFF_FFFF == Self.baseHigh else { return nil }
        return UInt16(truncatingIfNeeded: high >> 32)
    }

    /// The same UUID, written in 128-bit form.
    public var longForm: BluetoothUUID { BluetoothUUID(high: high, low: low) }

    /// How many bytes this UUID takes on the wire: 2 or 16.
    public var byteCount: Int { isShortForm ? 2 : 16 }

    /// The 16 bytes in display (big-endian) order.
    public var bigEndianBytes: [UInt8] {
        (0 ..< 16).map { i in UInt8(truncatingIfNeeded: (i < 8 ? high : low) >> (8 * (7 - UInt64(i % 8)))) }
    }

    /// The wire form: 2 bytes for a 16-bit alias, otherwise 16 bytes, little-endian.
    public var littleEndianBytes: [UInt8] {
        if isShortForm, let short = shortValue {
            return [UInt8(truncatingIfNeeded: short), UInt8(truncatingIfNeeded: short >> 8)]
        }
        return bigEndianBytes.reversed()
    }

    /// Decodes a UUID of exactly `width` bytes (2 or 16) from the reader.
    public static func read(
        from reader: inout ByteReader, width: Int, _ field: String
    ) throws(DecodeError) -> BluetoothUUID {
        switch width {
        case 2:
            return BluetoothUUID(try reader.readUInt16(field))
        case 16:
            return BluetoothUUID(bigEndianBytes: try reader.readBytes(16, field).reversed())
        default:
            throw DecodeError("\(field): a UUID is 2 or 16 bytes, not \(width)", at: reader.offset)
        }
    }

    /// Decodes a UUID whose width is the whole of `bytes` (2 or 16 bytes, little-endian).
    public init(littleEndianBytes bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        self = try Self.read(from: &reader, width: bytes.count, "UUID")
    }

    /// `180D` for a 16-bit alias, `0000180D-0000-1000-8000-00805F9B34FB` for a 128-bit UUID.
    public var description: String {
        if isShortForm, let short = shortValue { return hex(short) }
        let b = bigEndianBytes.map(hex)
        return [b[0 ..< 4], b[4 ..< 6], b[6 ..< 8], b[8 ..< 10], b[10 ..< 16]].map { $0.joined() }.joined(
            separator: "-")
    }

    /// Parses `180D`, `0x180D` or `0000180D-0000-1000-8000-00805F9B34FB` (case-insensitive).
    public init?(_ description: String) {
        var text = Substring(description)
        if text.hasPrefix("0x") || text.hasPrefix("0X") { text = text.dropFirst(2) }
        if text.count == 4, let value = UInt16(text, radix: 16) {
            self.init(value)
            return
        }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.map(\.count) == [8, 4, 4, 4, 12] else { return nil }
        let digits = parts.joined()
        guard digits.allSatisfy(\.isHexDigit),
            let high = UInt64(digits.prefix(16), radix: 16),
            let low = UInt64(digits.suffix(16), radix: 16)
        else { return nil }
        self.init(high: high, low: low)
    }

    public static func == (lhs: BluetoothUUID, rhs: BluetoothUUID) -> Bool {
        lhs.high == rhs.high && lhs.low == rhs.low
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(high)
        hasher.combine(low)
    }
}

extension BluetoothUUID: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: UInt16) { self.init(value) }
}

extension BluetoothUUID {
    /// «Primary Service» declaration type (Core 5.3 Vol 3 Part G §3.1).
    public static let primaryService = BluetoothUUID(0x2800)
    /// «Secondary Service» declaration type (Core 5.3 Vol 3 Part G §3.1).
    public static let secondaryService = BluetoothUUID(0x2801)
    /// «Include» declaration type (Core 5.3 Vol 3 Part G §3.2).
    public static let include = BluetoothUUID(0x2802)
    /// «Characteristic» declaration type (Core 5.3 Vol 3 Part G §3.3.1).
    public static let characteristic = BluetoothUUID(0x2803)
    /// Characteristic Extended Properties descriptor (Core 5.3 Vol 3 Part G §3.3.3.1).
    public static let characteristicExtendedProperties = BluetoothUUID(0x2900)
    /// Characteristic User Description descriptor (Core 5.3 Vol 3 Part G §3.3.3.2).
    public static let characteristicUserDescription = BluetoothUUID(0x2901)
    /// Client Characteristic Configuration descriptor, the CCCD (Core 5.3 Vol 3 Part G §3.3.3.3).
    public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
    /// Characteristic Presentation Format descriptor (Core 5.3 Vol 3 Part G §3.3.3.5).
    public static let characteristicPresentationFormat = BluetoothUUID(0x2904)

    /// Generic Access service (Assigned Numbers §3.4).
    public static let genericAccess = BluetoothUUID(0x1800)
    /// Generic Attribute service.
    public static let genericAttribute = BluetoothUUID(0x1801)
    /// Device Information service.
    public static let deviceInformation = BluetoothUUID(0x180A)
    /// Heart Rate service.
    public static let heartRate = BluetoothUUID(0x180D)
    /// Battery service.
    public static let battery = BluetoothUUID(0x180F)
    /// Cycling Speed and Cadence service.
    public static let cyclingSpeedAndCadence = BluetoothUUID(0x1816)
    /// Cycling Power service.
    public static let cyclingPower = BluetoothUUID(0x1818)
    /// Fitness Machine service.
    public static let fitnessMachine = BluetoothUUID(0x1826)

    /// Device Name characteristic.
    public static let deviceName = BluetoothUUID(0x2A00)
    /// Battery Level characteristic.
    public static let batteryLevel = BluetoothUUID(0x2A19)
    /// Manufacturer Name String characteristic.
    public static let manufacturerNameString = BluetoothUUID(0x2A29)
    /// Heart Rate Measurement characteristic.
    public static let heartRateMeasurement = BluetoothUUID(0x2A37)
    /// Body Sensor Location characteristic.
    public static let bodySensorLocation = BluetoothUUID(0x2A38)
    /// Heart Rate Control Point characteristic.
    public static let heartRateControlPoint = BluetoothUUID(0x2A39)
    /// Cycling Power Measurement characteristic.
    public static let cyclingPowerMeasurement = BluetoothUUID(0x2A63)
    /// Cycling Power Feature characteristic.
    public static let cyclingPowerFeature = BluetoothUUID(0x2A65)
    /// Sensor Location characteristic.
    public static let sensorLocation = BluetoothUUID(0x2A5D)
}
