import ByteCoding

/// The first byte of every ATT PDU: a 6-bit method, the Command Flag (bit 6) and the
/// Authentication Signature Flag (bit 7).
///
/// An open set: any byte is a valid `ATTOpcode`, so unknown opcodes survive decoding as
/// ``ATTPDU/unknown(opcode:parameters:)`` instead of being rejected.
///
/// Core 5.3 Vol 3 Part F §3.3.1 (Attribute PDU format) and §3.4.8 (Attribute Opcode summary).
public struct ATTOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let errorResponse = ATTOpcode(0x01)
    public static let exchangeMTURequest = ATTOpcode(0x02)
    public static let exchangeMTUResponse = ATTOpcode(0x03)
    public static let findInformationRequest = ATTOpcode(0x04)
    public static let findInformationResponse = ATTOpcode(0x05)
    public static let findByTypeValueRequest = ATTOpcode(0x06)
    public static let findByTypeValueResponse = ATTOpcode(0x07)
    public static let readByTypeRequest = ATTOpcode(0x08)
    public static let readByTypeResponse = ATTOpcode(0x09)
    public static let readRequest = ATTOpcode(0x0A)
    public static let readResponse = ATTOpcode(0x0B)
    public static let readBlobRequest = ATTOpcode(0x0C)
    public static let readBlobResponse = ATTOpcode(0x0D)
    public static let readMultipleRequest = ATTOpcode(0x0E)
    public static let readMultipleResponse = ATTOpcode(0x0F)
    public static let readByGroupTypeRequest = ATTOpcode(0x10)
    public static let readByGroupTypeResponse = ATTOpcode(0x11)
    public static let writeRequest = ATTOpcode(0x12)
    public static let writeResponse = ATTOpcode(0x13)
    public static let prepareWriteRequest = ATTOpcode(0x16)
    public static let prepareWriteResponse = ATTOpcode(0x17)
    public static let executeWriteRequest = ATTOpcode(0x18)
    public static let executeWriteResponse = ATTOpcode(0x19)
    public static let handleValueNotification = ATTOpcode(0x1B)
    public static let handleValueIndication = ATTOpcode(0x1D)
    public static let handleValueConfirmation = ATTOpcode(0x1E)
    public static let readMultipleVariableRequest = ATTOpcode(0x20)
    public static let readMultipleVariableResponse = ATTOpcode(0x21)
    public static let multipleHandleValueNotification = ATTOpcode(0x23)
    public static let writeCommand = ATTOpcode(0x52)
    public static let signedWriteCommand = ATTOpcode(0xD2)

    /// Bit 6: the PDU is a command, which never gets a response (Core 5.3 Vol 3 Part F §3.3.1).
    public var isCommand: Bool { rawValue & 0x40 != 0 }
    /// Bit 7: the PDU ends with a 12-byte authentication signature (Core 5.3 Vol 3 Part F §3.3.1).
    public var hasAuthenticationSignature: Bool { rawValue & 0x80 != 0 }

    /// How a receiver must treat a PDU with this opcode (Core 5.3 Vol 3 Part F §3.3 and §3.4.8).
    public enum Kind: Hashable, Sendable {
        /// A client-to-server request: exactly one response or Error Response is owed.
        case request
        /// A server-to-client response to the outstanding request.
        case response
        /// A command (Command Flag set): no response, ignored if not supported.
        case command
        /// Handle Value Notification (single or multiple): no response.
        case notification
        /// Handle Value Indication: a confirmation is owed.
        case indication
        /// Handle Value Confirmation, the client's answer to an indication.
        case confirmation
    }

    /// The kind of PDU. An opcode the specification does not define is treated as a request
    /// unless its Command Flag is set, because Core 5.3 Vol 3 Part F §3.4.1.1 asks a server to
    /// answer every request it does not support with Request Not Supported and to ignore
    /// unsupported commands.
    public var kind: Kind {
        if isCommand { return .command }
        switch self {
        case .handleValueNotification, .multipleHandleValueNotification: return .notification
        case .handleValueIndication: return .indication
        case .handleValueConfirmation: return .confirmation
        case .errorResponse, .exchangeMTUResponse, .findInformationResponse, .findByTypeValueResponse,
            .readByTypeResponse, .readResponse, .readBlobResponse, .readMultipleResponse,
            .readByGroupTypeResponse, .writeResponse, .prepareWriteResponse, .executeWriteResponse,
            .readMultipleVariableResponse:
            return .response
        default:
            return .request
        }
    }

    /// The response opcode that answers this request opcode, if it is a request the spec defines.
    public var responseOpcode: ATTOpcode? {
        switch self {
        case .exchangeMTURequest, .findInformationRequest, .findByTypeValueRequest, .readByTypeRequest,
            .readRequest, .readBlobRequest, .readMultipleRequest, .readByGroupTypeRequest, .writeRequest,
            .prepareWriteRequest, .executeWriteRequest, .readMultipleVariableRequest:
            return ATTOpcode(rawValue + 1)
        default:
            return nil
        }
    }

    public var description: String { "0x" + hex(rawValue) }
}

/// A type that is one ATT PDU: its opcode, a throwing decoder and an encoder that round-trip.
///
/// `init(bytes:)` takes the whole PDU including the opcode byte and rejects trailing bytes where
/// the PDU has a fixed size (Core 5.3 Vol 3 Part F §3.4.1.1: such a PDU is an Invalid PDU).
public protocol ATTProtocolDataUnit: Hashable, Sendable {
    /// The opcode this PDU is sent with.
    static var opcode: ATTOpcode { get }
    /// Decodes a whole PDU, opcode byte first.
    init(bytes: [UInt8]) throws(DecodeError)
    /// Encodes the whole PDU, opcode byte first.
    func encode() -> [UInt8]
}

extension ATTProtocolDataUnit {
    /// Reads and checks the opcode byte; decoders call this first.
    static func reader(for bytes: [UInt8]) throws(DecodeError) -> ByteReader {
        var reader = ByteReader(bytes)
        let opcode = ATTOpcode(try reader.readUInt8("ATT opcode"))
        guard opcode == Self.opcode else {
            throw DecodeError("ATT opcode \(opcode), expected \(Self.opcode)", at: 0)
        }
        return reader
    }

    /// A writer that already holds the opcode byte.
    static func writer(capacity: Int = 8) -> ByteWriter {
        var writer = ByteWriter(capacity: capacity)
        writer.write(Self.opcode.rawValue)
        return writer
    }
}

/// Two upper-case hex digits.
func hex(_ byte: UInt8) -> String {
    let digits: StaticString = "0123456789ABCDEF"
    return digits.withUTF8Buffer { String(decoding: [$0[Int(byte >> 4)], $0[Int(byte & 0x0F)]], as: UTF8.self) }
}

/// Four upper-case hex digits.
func hex(_ value: UInt16) -> String { hex(UInt8(value >> 8)) + hex(UInt8(value & 0xFF)) }
