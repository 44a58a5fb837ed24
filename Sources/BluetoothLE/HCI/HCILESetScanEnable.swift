import ByteCoding

/// HCI_LE_Set_Scan_Enable (0x200C): start or stop legacy scanning.
///
/// Parameters: `enable u8 · filter duplicates u8`.
///
/// Core 5.3 Vol 4 Part E §7.8.11.
public struct HCILESetScanEnable: HCICommand {
    public static let opcode = HCIOpcode.leSetScanEnable

    public var isEnabled: Bool
    /// Whether the controller drops repeated reports of the same device. Off for sensors, whose
    /// adverts change (and RSSI is wanted).
    public var filterDuplicates: Bool

    public init(isEnabled: Bool, filterDuplicates: Bool = false) {
        self.isEnabled = isEnabled
        self.filterDuplicates = filterDuplicates
    }

    public init(parameters reader: inout ByteReader) throws(DecodeError) {
        isEnabled = try readBoolean(&reader, "LE_Scan_Enable")
        filterDuplicates = try readBoolean(&reader, "Filter_Duplicates")
    }

    public func writeParameters(to writer: inout ByteWriter) {
        writer.write(UInt8(isEnabled ? 1 : 0))
        writer.write(UInt8(filterDuplicates ? 1 : 0))
    }
}

/// Reads an HCI boolean byte: 0x00 or 0x01, anything else is reserved and rejected.
func readBoolean(_ reader: inout ByteReader, _ field: String) throws(DecodeError) -> Bool {
    let offset = reader.offset
    switch try reader.readUInt8(field) {
    case 0x00: return false
    case 0x01: return true
    case let other: throw DecodeError("\(field) 0x\(hex(other)) is neither 0x00 nor 0x01", at: offset)
    }
}
