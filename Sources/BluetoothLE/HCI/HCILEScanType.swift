/// Passive or active scanning. Active scanning sends scan requests and so receives scan
/// responses, where devices often put their name.
///
/// Core 5.3 Vol 4 Part E §7.8.10 (LE_Scan_Type).
public struct HCILEScanType: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let passive = HCILEScanType(rawValue: 0x00)
    public static let active = HCILEScanType(rawValue: 0x01)
}

/// Which advertising packets the controller reports.
///
/// Core 5.3 Vol 4 Part E §7.8.10 (Scanning_Filter_Policy).
public struct HCILEScanFilterPolicy: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Accept all advertising packets (except directed ones not addressed to us).
    public static let acceptAll = HCILEScanFilterPolicy(rawValue: 0x00)
    /// Only from devices in the Filter Accept List.
    public static let filterAcceptListOnly = HCILEScanFilterPolicy(rawValue: 0x01)
    public static let acceptAllWithResolvableDirected = HCILEScanFilterPolicy(rawValue: 0x02)
    public static let filterAcceptListWithResolvableDirected = HCILEScanFilterPolicy(rawValue: 0x03)
}
