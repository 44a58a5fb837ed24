/// The properties of a characteristic, as listed in its declaration.
///
/// Core 5.3 Vol 3 Part G §3.3.1.1 (Characteristic Properties, Table 3.5).
public struct GATTCharacteristicProperties: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let broadcast = GATTCharacteristicProperties(rawValue: 0x01)
    public static let read = GATTCharacteristicProperties(rawValue: 0x02)
    public static let writeWithoutResponse = GATTCharacteristicProperties(rawValue: 0x04)
    public static let write = GATTCharacteristicProperties(rawValue: 0x08)
    public static let notify = GATTCharacteristicProperties(rawValue: 0x10)
    public static let indicate = GATTCharacteristicProperties(rawValue: 0x20)
    public static let authenticatedSignedWrites = GATTCharacteristicProperties(rawValue: 0x40)
    public static let extendedProperties = GATTCharacteristicProperties(rawValue: 0x80)

    public var description: String {
        let names: [(GATTCharacteristicProperties, String)] = [
            (.broadcast, "broadcast"), (.read, "read"), (.writeWithoutResponse, "writeWithoutResponse"),
            (.write, "write"), (.notify, "notify"), (.indicate, "indicate"),
            (.authenticatedSignedWrites, "authenticatedSignedWrites"), (.extendedProperties, "extendedProperties"),
        ]
        return "[" + names.filter { contains($0.0) }.map(\.1).joined(separator: ", ") + "]"
    }
}

/// The value of a Client Characteristic Configuration descriptor (CCCD, 0x2902): whether the
/// server may notify or indicate the characteristic's value. Two bytes, little-endian.
///
/// Core 5.3 Vol 3 Part G §3.3.3.3 (Table 3.11).
public struct GATTClientCharacteristicConfiguration: OptionSet, Hashable, Sendable {
    public var rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// `01 00`: notifications enabled.
    public static let notification = GATTClientCharacteristicConfiguration(rawValue: 0x0001)
    /// `02 00`: indications enabled.
    public static let indication = GATTClientCharacteristicConfiguration(rawValue: 0x0002)

    /// The descriptor value as written on the wire.
    public var bytes: [UInt8] { [UInt8(truncatingIfNeeded: rawValue), UInt8(truncatingIfNeeded: rawValue >> 8)] }
}
