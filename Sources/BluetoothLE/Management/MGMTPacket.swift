import ByteCoding

/// A packet on BlueZ's management channel (`HCI_CHANNEL_CONTROL`): the kernel's own interface to
/// adapter state, which `btmgmt` and bluetoothd speak.
///
/// Every packet, command or event, is `code u16 · controller index u16 · parameter length u16 ·
/// parameters`, little-endian. Index 0xFFFF means "no controller". Events this package reads are
/// Command Complete (0x0001: `command opcode u16 · status u8 · return parameters`), Command
/// Status (0x0002: `command opcode u16 · status u8`), and while discovering Device Found
/// (``MGMTDeviceFound``), Discovering (``MGMTDiscovering``) and Index Removed (0x0005, no parameters).
///
/// BlueZ `doc/mgmt-api.txt` ("Packet Structures", "Command Complete Event", "Command Status Event",
/// "Start Discovery", "Stop Discovery").
public struct MGMTPacket: Hashable, Sendable {
    /// The command opcode or event code.
    public var code: UInt16
    public var controllerIndex: UInt16
    public var parameters: [UInt8]

    /// Read Controller Information (opcode 0x0004), allowed on untrusted (unprivileged) sockets.
    public static let readControllerInformation: UInt16 = 0x0004
    /// Start Discovery (opcode 0x0023; parameter: the address types, ``MGMTDiscovering/lowEnergy`` for LE),
    /// which needs a trusted (CAP_NET_ADMIN) socket.
    public static let startDiscovery: UInt16 = 0x0023
    /// Stop Discovery (opcode 0x0024; parameter: the address types discovery was started with).
    public static let stopDiscovery: UInt16 = 0x0024
    /// Command Complete event code.
    public static let commandComplete: UInt16 = 0x0001
    /// Command Status event code.
    public static let commandStatus: UInt16 = 0x0002
    /// Index Removed event code: the controller went away.
    public static let indexRemoved: UInt16 = 0x0005
    /// Device Found event code (``MGMTDeviceFound``).
    public static let deviceFound: UInt16 = 0x0012
    /// Discovering event code (``MGMTDiscovering``).
    public static let discovering: UInt16 = 0x0013
    /// The index that names no controller.
    public static let noController: UInt16 = 0xFFFF

    public init(code: UInt16, controllerIndex: UInt16, parameters: [UInt8] = []) {
        self.code = code
        self.controllerIndex = controllerIndex
        self.parameters = parameters
    }

    /// Decodes one packet (one read from the management socket).
    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        code = try reader.readUInt16("event code")
        controllerIndex = try reader.readUInt16("controller index")
        let length = Int(try reader.readUInt16("parameter length"))
        guard reader.remaining == length else {
            throw DecodeError("parameter length \(length), but \(reader.remaining) bytes follow", at: 4)
        }
        parameters = Array(reader.readRemaining())
    }

    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 6 + parameters.count)
        writer.write(code)
        writer.write(controllerIndex)
        writer.write(UInt16(truncatingIfNeeded: parameters.count))
        writer.write(contentsOf: parameters)
        return writer.bytes
    }

    /// For a Command Complete or Command Status event: the command it answers, its status and
    /// the return parameters (empty for Command Status). `nil` for any other event.
    ///
    /// - Throws: `DecodeError` when the event is too short to hold an opcode and a status.
    public func commandResult() throws(DecodeError) -> (opcode: UInt16, status: UInt8, returnParameters: [UInt8])? {
        guard code == Self.commandComplete || code == Self.commandStatus else { return nil }
        var reader = ByteReader(parameters)
        let opcode = try reader.readUInt16("command opcode")
        let status = try reader.readUInt8("status")
        return (opcode, status, Array(reader.readRemaining()))
    }
}
