import ByteCoding

/// HCI_LE_Set_Extended_Scan_Enable (0x2042): start or stop extended scanning.
///
/// Parameters: `enable u8 · filter duplicates u8 (0 off, 1 on, 2 reset each period) · duration u16
/// (10 ms units, 0 = until disabled) · period u16 (1.28 s units, 0 = scan continuously)`.
///
/// Core 5.3 Vol 4 Part E §7.8.65.
public struct HCILESetExtendedScanEnable: HCICommand {
    public static let opcode = HCIOpcode.leSetExtendedScanEnable

    public var isEnabled: Bool
    /// 0x00 disabled, 0x01 enabled, 0x02 enabled and reset for each scan period.
    public var filterDuplicates: UInt8
    /// In units of 10 ms; 0 scans until disabled.
    public var duration: UInt16
    /// In units of 1.28 s; 0 scans continuously.
    public var period: UInt16

    public init(isEnabled: Bool, filterDuplicates: UInt8 = 0, duration: UInt16 = 0, period: UInt16 = 0) {
        self.isEnabled = isEnabled
        self.filterDuplicates = filterDuplicates
        self.duration = duration
        self.period = period
    }

    public init(parameters reader: inout ByteReader) throws(DecodeError) {
        isEnabled = try readBoolean(&reader, "Enable")
        filterDuplicates = try reader.readUInt8("Filter_Duplicates")
        duration = try reader.readUInt16("Duration")
        period = try reader.readUInt16("Period")
    }

    public func writeParameters(to writer: inout ByteWriter) {
        writer.write(UInt8(isEnabled ? 1 : 0))
        writer.write(filterDuplicates)
        writer.write(duration)
        writer.write(period)
    }
}
