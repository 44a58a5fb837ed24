/// The type byte of an AD structure.
///
/// An open set; unknown types are kept raw by ``AdvertisingData``.
///
/// Assigned Numbers §2.3 (Common Data Types); formats in Core Specification Supplement Part A §1.
public struct AdvertisingDataType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let flags = AdvertisingDataType(0x01)
    public static let incompleteServiceUUIDs16 = AdvertisingDataType(0x02)
    public static let completeServiceUUIDs16 = AdvertisingDataType(0x03)
    public static let incompleteServiceUUIDs128 = AdvertisingDataType(0x06)
    public static let completeServiceUUIDs128 = AdvertisingDataType(0x07)
    public static let shortenedLocalName = AdvertisingDataType(0x08)
    public static let completeLocalName = AdvertisingDataType(0x09)
    public static let txPowerLevel = AdvertisingDataType(0x0A)
    public static let serviceData16 = AdvertisingDataType(0x16)
    public static let appearance = AdvertisingDataType(0x19)
    public static let manufacturerSpecificData = AdvertisingDataType(0xFF)

    public var description: String { "AD type 0x\(hex(rawValue))" }
}

/// The Flags AD type's bits (Core Specification Supplement Part A §1.3).
public struct AdvertisingFlags: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let leLimitedDiscoverable = AdvertisingFlags(rawValue: 0x01)
    public static let leGeneralDiscoverable = AdvertisingFlags(rawValue: 0x02)
    public static let brEDRNotSupported = AdvertisingFlags(rawValue: 0x04)
    public static let simultaneousLEAndBREDRController = AdvertisingFlags(rawValue: 0x08)
    public static let simultaneousLEAndBREDRHost = AdvertisingFlags(rawValue: 0x10)
}

/// The Appearance value: what kind of device this is (Assigned Numbers §2.6).
public struct GAPAppearance: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The category (bits 15–6).
    public var category: UInt16 { rawValue >> 6 }

    public static let unknown = GAPAppearance(rawValue: 0x0000)
    public static let genericHeartRateSensor = GAPAppearance(rawValue: 0x0340)
    public static let heartRateBelt = GAPAppearance(rawValue: 0x0341)
    public static let genericCycling = GAPAppearance(rawValue: 0x0480)
    public static let cyclingComputer = GAPAppearance(rawValue: 0x0481)
    public static let cyclingSpeedSensor = GAPAppearance(rawValue: 0x0482)
    public static let cyclingCadenceSensor = GAPAppearance(rawValue: 0x0483)
    public static let cyclingPowerSensor = GAPAppearance(rawValue: 0x0484)
    public static let cyclingSpeedAndCadenceSensor = GAPAppearance(rawValue: 0x0485)
}
