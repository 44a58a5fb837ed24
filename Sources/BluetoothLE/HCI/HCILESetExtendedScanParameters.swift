import ByteCoding

/// HCI_LE_Set_Extended_Scan_Parameters (0x2041): scan parameters per PHY, for controllers the host
/// drives with the Bluetooth 5 extended commands (legacy and extended commands cannot be mixed).
///
/// Parameters: `own address type u8 · filter policy u8 · scanning PHYs u8 (bit 0 LE 1M, bit 2 LE
/// Coded)`, then for each PHY bit set, lowest first: `scan type u8 · interval u16 · window u16`.
///
/// Core 5.3 Vol 4 Part E §7.8.64.
public struct HCILESetExtendedScanParameters: HCICommand {
    public static let opcode = HCIOpcode.leSetExtendedScanParameters

    /// Scan settings for one PHY.
    public struct PHYParameters: Hashable, Sendable {
        public var scanType: HCILEScanType
        /// In units of 0.625 ms (0x0004–0xFFFF).
        public var interval: UInt16
        /// In units of 0.625 ms.
        public var window: UInt16

        public init(scanType: HCILEScanType = .active, interval: UInt16 = 0x0010, window: UInt16 = 0x0010) {
            self.scanType = scanType
            self.interval = interval
            self.window = window
        }
    }

    public var ownAddressType: BluetoothAddressType
    public var filterPolicy: HCILEScanFilterPolicy
    /// Settings for the LE 1M PHY, if scanning on it.
    public var le1M: PHYParameters?
    /// Settings for the LE Coded PHY, if scanning on it.
    public var leCoded: PHYParameters?

    public init(
        ownAddressType: BluetoothAddressType = .public, filterPolicy: HCILEScanFilterPolicy = .acceptAll,
        le1M: PHYParameters? = PHYParameters(), leCoded: PHYParameters? = nil
    ) {
        self.ownAddressType = ownAddressType
        self.filterPolicy = filterPolicy
        self.le1M = le1M
        self.leCoded = leCoded
    }

    public init(parameters reader: inout ByteReader) throws(DecodeError) {
        ownAddressType = BluetoothAddressType(rawValue: try reader.readUInt8("Own_Address_Type"))
        filterPolicy = HCILEScanFilterPolicy(rawValue: try reader.readUInt8("Scanning_Filter_Policy"))
        let phyOffset = reader.offset
        let phys = try reader.readUInt8("Scanning_PHYs")
        guard phys & ~0b101 == 0 else {
            throw DecodeError("Scanning_PHYs 0x\(hex(phys)) sets a reserved bit", at: phyOffset)
        }
        func readPHY(_ reader: inout ByteReader) throws(DecodeError) -> PHYParameters {
            PHYParameters(
                scanType: HCILEScanType(rawValue: try reader.readUInt8("Scan_Type")),
                interval: try reader.readUInt16("Scan_Interval"),
                window: try reader.readUInt16("Scan_Window"))
        }
        le1M = phys & 0b001 != 0 ? try readPHY(&reader) : nil
        leCoded = phys & 0b100 != 0 ? try readPHY(&reader) : nil
    }

    public func writeParameters(to writer: inout ByteWriter) {
        writer.write(ownAddressType.rawValue)
        writer.write(filterPolicy.rawValue)
        writer.write(UInt8((le1M == nil ? 0 : 0b001) | (leCoded == nil ? 0 : 0b100)))
        for phy in [le1M, leCoded].compactMap({ $0 }) {
            writer.write(phy.scanType.rawValue)
            writer.write(phy.interval)
            writer.write(phy.window)
        }
    }
}
