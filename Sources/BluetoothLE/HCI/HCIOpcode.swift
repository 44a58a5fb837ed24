import ByteCoding

/// An HCI command opcode: OGF (6 bits) and OCF (10 bits), `OGF << 10 | OCF`.
///
/// Core 5.3 Vol 4 Part E §5.4.1 (command packet) and §7.8 (LE controller commands, OGF 0x08).
public struct HCIOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public init(ogf: UInt8, ocf: UInt16) {
        rawValue = UInt16(ogf & 0x3F) << 10 | (ocf & 0x03FF)
    }

    public var ogf: UInt8 { UInt8(rawValue >> 10) }
    public var ocf: UInt16 { rawValue & 0x03FF }

    /// HCI_Reset (Core 5.3 Vol 4 Part E §7.3.2).
    public static let reset = HCIOpcode(rawValue: 0x0C03)
    /// HCI_Read_Local_Supported_Commands (§7.4.2): which commands the controller implements.
    public static let readLocalSupportedCommands = HCIOpcode(rawValue: 0x1002)
    /// HCI_LE_Set_Scan_Parameters (§7.8.10).
    public static let leSetScanParameters = HCIOpcode(rawValue: 0x200B)
    /// HCI_LE_Set_Scan_Enable (§7.8.11).
    public static let leSetScanEnable = HCIOpcode(rawValue: 0x200C)
    /// HCI_LE_Create_Connection (§7.8.12).
    public static let leCreateConnection = HCIOpcode(rawValue: 0x200D)
    /// HCI_LE_Set_Extended_Scan_Parameters (§7.8.64).
    public static let leSetExtendedScanParameters = HCIOpcode(rawValue: 0x2041)
    /// HCI_LE_Set_Extended_Scan_Enable (§7.8.65).
    public static let leSetExtendedScanEnable = HCIOpcode(rawValue: 0x2042)

    public var description: String { "0x\(hex(rawValue)) (OGF 0x\(hex(ogf)), OCF 0x\(hex(ocf)))" }
}

/// The H4 packet indicator, the first byte of every packet on a raw HCI socket or in a btsnoop
/// 1002 record (Core 5.3 Vol 4 Part A §2).
public enum HCIPacketType: UInt8, Hashable, Sendable {
    case command = 0x01
    case aclData = 0x02
    case synchronousData = 0x03
    case event = 0x04
    case isoData = 0x05
}

/// An HCI command with its parameters; encodes to, and decodes from, an H4 command packet:
/// `01 · opcode (u16) · parameter length (u8) · parameters`.
///
/// Core 5.3 Vol 4 Part E §5.4.1.
public protocol HCICommand: Hashable, Sendable {
    static var opcode: HCIOpcode { get }
    /// Reads the parameters (the reader is positioned after the packet header).
    init(parameters reader: inout ByteReader) throws(DecodeError)
    /// Appends the parameters.
    func writeParameters(to writer: inout ByteWriter)
}

extension HCICommand {
    /// The H4 command packet, ready to write to a raw HCI socket.
    public func encode() -> [UInt8] {
        var parameters = ByteWriter(capacity: 32)
        writeParameters(to: &parameters)
        var writer = ByteWriter(capacity: 4 + parameters.bytes.count)
        writer.write(HCIPacketType.command.rawValue)
        writer.write(Self.opcode.rawValue)
        writer.write(UInt8(truncatingIfNeeded: parameters.bytes.count))
        writer.write(contentsOf: parameters.bytes)
        return writer.bytes
    }

    /// Decodes an H4 command packet of this command.
    public init(packet: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(packet)
        let indicator = try reader.readUInt8("H4 packet type")
        guard indicator == HCIPacketType.command.rawValue else {
            throw DecodeError("H4 packet type 0x\(hex(indicator)) is not a command", at: 0)
        }
        let opcode = HCIOpcode(rawValue: try reader.readUInt16("command opcode"))
        guard opcode == Self.opcode else {
            throw DecodeError("command opcode \(opcode), expected \(Self.opcode)", at: 1)
        }
        let length = Int(try reader.readUInt8("parameter length"))
        guard reader.remaining == length else {
            throw DecodeError("parameter length \(length), but \(reader.remaining) bytes follow", at: 3)
        }
        try self.init(parameters: &reader)
        try reader.expectEnd("command parameters")
    }
}
