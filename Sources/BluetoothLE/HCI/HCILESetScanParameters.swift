import ByteCoding

/// HCI_LE_Set_Scan_Parameters (0x200B): legacy scan type, interval and window.
///
/// Parameters: `scan type u8 · interval u16 · window u16 · own address type u8 · filter policy u8`.
/// Interval and window count 0.625 ms units (0x0004–0x4000); the window must not exceed the interval.
///
/// Core 5.3 Vol 4 Part E §7.8.10.
public struct HCILESetScanParameters: HCICommand {
    public static let opcode = HCIOpcode.leSetScanParameters

    public var scanType: HCILEScanType
    /// In units of 0.625 ms.
    public var interval: UInt16
    /// In units of 0.625 ms.
    public var window: UInt16
    public var ownAddressType: BluetoothAddressType
    public var filterPolicy: HCILEScanFilterPolicy

    public init(
        scanType: HCILEScanType = .active, interval: UInt16 = 0x0010, window: UInt16 = 0x0010,
        ownAddressType: BluetoothAddressType = .public, filterPolicy: HCILEScanFilterPolicy = .acceptAll
    ) {
        self.scanType = scanType
        self.interval = interval
        self.window = window
        self.ownAddressType = ownAddressType
        self.filterPolicy = filterPolicy
    }

    public init(parameters reader: inout ByteReader) throws(DecodeError) {
        scanType = HCILEScanType(rawValue: try reader.readUInt8("LE_Scan_Type"))
        interval = try reader.readUInt16("LE_Scan_Interval")
        window = try reader.readUInt16("LE_Scan_Window")
        ownAddressType = BluetoothAddressType(rawValue: try reader.readUInt8("Own_Address_Type"))
        filterPolicy = HCILEScanFilterPolicy(rawValue: try reader.readUInt8("Scanning_Filter_Policy"))
    }

    public func writeParameters(to writer: inout ByteWriter) {
        writer.write(scanType.rawValue)
        writer.write(interval)
        writer.write(window)
        writer.write(ownAddressType.rawValue)
        writer.write(filterPolicy.rawValue)
    }
}
