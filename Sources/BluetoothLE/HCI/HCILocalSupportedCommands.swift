import ByteCoding

/// HCI_Read_Local_Supported_Commands (0x1002) and what it returns: the 64-octet bit mask of the
/// commands a controller implements.
///
/// Return parameters of its Command Complete: `status u8 · Supported_Commands[64]`. Octet *n*,
/// bit *b* stands for one command (Core 5.3 Vol 4 Part E §6.27 lists them); this type names the
/// bits the scanner needs:
///
/// | octet | bit | command |
/// |---|---|---|
/// | 26 | 2 | LE Set Scan Parameters (0x200B) |
/// | 26 | 3 | LE Set Scan Enable (0x200C) |
/// | 37 | 5 | LE Set Extended Scan Parameters (0x2041) |
/// | 37 | 6 | LE Set Extended Scan Enable (0x2042) |
///
/// Linux decides between the legacy and the extended scan commands from octet 37 alone:
/// `use_ext_scan(dev)` in `include/net/bluetooth/hci_core.h` is `commands[37] & 0x20 &&
/// commands[37] & 0x40` (and no broken-extended-scan quirk). A controller the kernel has driven
/// with an extended command answers the legacy ones with Command Disallowed (Vol 4 Part E
/// §3.1.1: legacy and extended advertising commands cannot be mixed), so the scanner makes the
/// same decision (``supportsExtendedScanning``).
///
/// Core 5.3 Vol 4 Part E §7.4.2 (command) and §6.27 (the bit table).
public struct HCILocalSupportedCommands: Hashable, Sendable {
    /// The 64 octets, as the controller sent them.
    public var octets: [UInt8]

    /// The number of octets in the mask.
    public static let octetCount = 64

    public init(octets: [UInt8]) {
        self.octets = octets
    }

    /// Decodes the Command Complete's return parameters (status first).
    ///
    /// - Throws: `DecodeError` when the status is not success (offset 0) or the mask is not
    ///   exactly 64 octets.
    public init(returnParameters: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(returnParameters)
        let status = try reader.readUInt8("Status")
        guard status == 0 else {
            throw DecodeError("Read Local Supported Commands failed with status 0x\(hex(status))", at: 0)
        }
        octets = Array(try reader.readBytes(Self.octetCount, "Supported_Commands"))
        try reader.expectEnd("Read Local Supported Commands return parameters")
    }

    /// Whether octet `octet` has bit `bit` set; bits beyond the mask are unset.
    public func contains(octet: Int, bit: Int) -> Bool {
        guard octets.indices.contains(octet), (0 ..< 8).contains(bit) else { return false }
        return octets[octet] & (1 << bit) != 0
    }

    /// LE Set Scan Parameters and LE Set Scan Enable (octet 26, bits 2 and 3).
    public var supportsLegacyScanning: Bool { contains(octet: 26, bit: 2) && contains(octet: 26, bit: 3) }

    /// LE Set Extended Scan Parameters and LE Set Extended Scan Enable (octet 37, bits 5 and 6):
    /// the kernel's `use_ext_scan` test.
    public var supportsExtendedScanning: Bool { contains(octet: 37, bit: 5) && contains(octet: 37, bit: 6) }

    /// The return parameters of a successful Command Complete carrying this mask.
    public var returnParameters: [UInt8] { [HCIStatus.success.rawValue] + octets }
}

/// HCI_Read_Local_Supported_Commands (0x1002): no parameters.
///
/// Core 5.3 Vol 4 Part E §7.4.2.
public struct HCIReadLocalSupportedCommands: HCICommand {
    public static let opcode = HCIOpcode.readLocalSupportedCommands

    public init() {}

    public init(parameters reader: inout ByteReader) throws(DecodeError) {}

    public func writeParameters(to writer: inout ByteWriter) {}
}
