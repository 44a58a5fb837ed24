import ByteCoding

/// HCI_Command_Complete (event 0x0E): a command finished; its return parameters follow.
///
/// `num HCI command packets u8 · command opcode u16 · return parameters` — for most commands,
/// including the LE scan commands, the return parameters are a single status byte.
///
/// Core 5.3 Vol 4 Part E §7.7.14.
public struct HCICommandComplete: Hashable, Sendable {
    public static let eventCode: UInt8 = 0x0E

    /// How many more commands the host may send now.
    public var numberOfAllowedCommandPackets: UInt8
    public var opcode: HCIOpcode
    public var returnParameters: [UInt8]

    public init(numberOfAllowedCommandPackets: UInt8 = 1, opcode: HCIOpcode, returnParameters: [UInt8]) {
        self.numberOfAllowedCommandPackets = numberOfAllowedCommandPackets
        self.opcode = opcode
        self.returnParameters = returnParameters
    }

    /// The first return parameter, which is the status for nearly every command.
    public var status: HCIStatus? { returnParameters.first.map(HCIStatus.init(rawValue:)) }

    init(parameters reader: inout ByteReader) throws(DecodeError) {
        numberOfAllowedCommandPackets = try reader.readUInt8("Num_HCI_Command_Packets")
        opcode = HCIOpcode(rawValue: try reader.readUInt16("Command_Opcode"))
        returnParameters = Array(reader.readRemaining())
    }

    func writeParameters(to writer: inout ByteWriter) {
        writer.write(numberOfAllowedCommandPackets)
        writer.write(opcode.rawValue)
        writer.write(contentsOf: returnParameters)
    }
}

/// HCI_Command_Status (event 0x0F): a command was accepted (status 0) or refused, and will
/// complete later with its own event.
///
/// `status u8 · num HCI command packets u8 · command opcode u16`.
///
/// Core 5.3 Vol 4 Part E §7.7.15.
public struct HCICommandStatus: Hashable, Sendable {
    public static let eventCode: UInt8 = 0x0F

    public var status: HCIStatus
    public var numberOfAllowedCommandPackets: UInt8
    public var opcode: HCIOpcode

    public init(status: HCIStatus, numberOfAllowedCommandPackets: UInt8 = 1, opcode: HCIOpcode) {
        self.status = status
        self.numberOfAllowedCommandPackets = numberOfAllowedCommandPackets
        self.opcode = opcode
    }

    init(parameters reader: inout ByteReader) throws(DecodeError) {
        status = HCIStatus(try reader.readUInt8("Status"))
        numberOfAllowedCommandPackets = try reader.readUInt8("Num_HCI_Command_Packets")
        opcode = HCIOpcode(rawValue: try reader.readUInt16("Command_Opcode"))
    }

    func writeParameters(to writer: inout ByteWriter) {
        writer.write(status.rawValue)
        writer.write(numberOfAllowedCommandPackets)
        writer.write(opcode.rawValue)
    }
}

/// HCI_Disconnection_Complete (event 0x05): a connection ended, with the reason.
///
/// `status u8 · connection handle u16 · reason u8`.
///
/// Core 5.3 Vol 4 Part E §7.7.5.
public struct HCIDisconnectionComplete: Hashable, Sendable {
    public static let eventCode: UInt8 = 0x05

    public var status: HCIStatus
    /// The connection handle (12 bits).
    public var connectionHandle: UInt16
    public var reason: HCIStatus

    public init(status: HCIStatus = .success, connectionHandle: UInt16, reason: HCIStatus) {
        self.status = status
        self.connectionHandle = connectionHandle
        self.reason = reason
    }

    init(parameters reader: inout ByteReader) throws(DecodeError) {
        status = HCIStatus(try reader.readUInt8("Status"))
        connectionHandle = try reader.readUInt16("Connection_Handle")
        reason = HCIStatus(try reader.readUInt8("Reason"))
    }

    func writeParameters(to writer: inout ByteWriter) {
        writer.write(status.rawValue)
        writer.write(connectionHandle)
        writer.write(reason.rawValue)
    }
}
