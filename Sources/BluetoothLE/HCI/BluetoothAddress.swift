import ByteCoding

/// How an LE device address is to be interpreted, as HCI reports it.
///
/// An open set. Note that BlueZ's `sockaddr_l2.l2_bdaddr_type` numbers these differently
/// (`BDADDR_LE_PUBLIC` = 1, `BDADDR_LE_RANDOM` = 2); the transport maps them.
///
/// Core 5.3 Vol 4 Part E §7.7.65.2 and §7.7.65.13 (Address_Type), Vol 6 Part B §1.3 (device addresses).
public struct BluetoothAddressType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// A public device address (IEEE-assigned).
    public static let `public` = BluetoothAddressType(rawValue: 0x00)
    /// A random device address (static, resolvable private or non-resolvable private).
    public static let random = BluetoothAddressType(rawValue: 0x01)
    /// A public identity address, resolved by the controller from a resolvable private address.
    public static let publicIdentity = BluetoothAddressType(rawValue: 0x02)
    /// A random (static) identity address, resolved by the controller.
    public static let randomIdentity = BluetoothAddressType(rawValue: 0x03)
    /// No address was given (anonymous advertising, extended reports only).
    public static let anonymous = BluetoothAddressType(rawValue: 0xFF)

    /// Whether a connection must name the peer as a random address.
    public var isRandom: Bool { self == .random || self == .randomIdentity }

    public var description: String {
        switch self {
        case .public: "public"
        case .random: "random"
        case .publicIdentity: "public identity"
        case .randomIdentity: "random identity"
        case .anonymous: "anonymous"
        default: "address type 0x\(hex(rawValue))"
        }
    }
}

/// A 48-bit Bluetooth device address with its type, printed `AA:BB:CC:DD:EE:FF`
/// (most significant byte first) and carried least significant byte first on the wire.
///
/// Core 5.3 Vol 2 Part B §1.2 (BD_ADDR) and Vol 6 Part B §1.3 (LE device addresses).
public struct BluetoothAddress: Hashable, Sendable, CustomStringConvertible, LosslessStringConvertible {
    /// The 48-bit address; bits 47–40 are the first byte printed.
    public let rawValue: UInt64
    public var type: BluetoothAddressType

    /// An address from its 48-bit value.
    public init(rawValue: UInt64, type: BluetoothAddressType = .public) {
        self.rawValue = rawValue & 0xFFFF_FFFF_FFFF
        self.type = type
    }

    /// An address from 6 bytes in printed order (most significant first).
    public init?(bytes: [UInt8], type: BluetoothAddressType = .public) {
        guard bytes.count == 6 else { return nil }
        self.init(rawValue: bytes.reduce(0) { $0 << 8 | UInt64($1) }, type: type)
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (case-insensitive).
    public init?(_ description: String, type: BluetoothAddressType) {
        let parts = description.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard part.count == 2, part.allSatisfy(\.isHexDigit), let byte = UInt8(part, radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.init(bytes: bytes, type: type)
    }

    /// Parses `AA:BB:CC:DD:EE:FF` as a public address.
    public init?(_ description: String) {
        self.init(description, type: .public)
    }

    /// The 6 bytes in printed order (most significant first).
    public var bytes: [UInt8] { (0 ..< 6).map { UInt8(truncatingIfNeeded: rawValue >> (8 * (5 - UInt64($0)))) } }

    /// The 6 bytes as HCI and L2CAP carry them (least significant first).
    public var littleEndianBytes: [UInt8] { bytes.reversed() }

    /// Reads 6 bytes, least significant first.
    public static func read(
        from reader: inout ByteReader, type: BluetoothAddressType, _ field: String
    ) throws(DecodeError) -> BluetoothAddress {
        let wire = try reader.readBytes(6, field)
        return BluetoothAddress(rawValue: wire.reversed().reduce(0) { $0 << 8 | UInt64($1) }, type: type)
    }

    /// What kind of random address this is, from its two most significant bits
    /// (Core 5.3 Vol 6 Part B §1.3.2); `nil` for a public address.
    public var randomKind: RandomKind? {
        guard type.isRandom else { return nil }
        switch rawValue >> 46 {
        case 0b11: return .staticAddress
        case 0b01: return .resolvablePrivate
        case 0b00: return .nonResolvablePrivate
        default: return .reserved
        }
    }

    public enum RandomKind: Hashable, Sendable {
        case staticAddress, resolvablePrivate, nonResolvablePrivate, reserved
    }

    /// `AA:BB:CC:DD:EE:FF`; the type is not printed.
    public var description: String { bytes.map(hex).joined(separator: ":") }
}
