import ByteCoding

/// Any ATT PDU, decoded by its opcode.
///
/// ``decode(_:)`` never traps: it either returns a value or throws a `DecodeError` naming the
/// offending byte. PDUs this package does not model (Find By Type Value, Prepare/Execute Write,
/// Read Multiple, signed writes, opcodes the spec has not assigned) decode as
/// ``unknown(opcode:parameters:)`` with their parameters kept raw, so that a receiver can still
/// act on the opcode's ``ATTOpcode/kind``.
///
/// Core 5.3 Vol 3 Part F §3.3 (PDU format) and §3.4.8 (opcode summary).
public enum ATTPDU: Hashable, Sendable {
    case errorResponse(ATTErrorResponse)
    case exchangeMTURequest(ATTExchangeMTURequest)
    case exchangeMTUResponse(ATTExchangeMTUResponse)
    case findInformationRequest(ATTFindInformationRequest)
    case findInformationResponse(ATTFindInformationResponse)
    case readByTypeRequest(ATTReadByTypeRequest)
    case readByTypeResponse(ATTReadByTypeResponse)
    case readRequest(ATTReadRequest)
    case readResponse(ATTReadResponse)
    case readBlobRequest(ATTReadBlobRequest)
    case readBlobResponse(ATTReadBlobResponse)
    case readByGroupTypeRequest(ATTReadByGroupTypeRequest)
    case readByGroupTypeResponse(ATTReadByGroupTypeResponse)
    case writeRequest(ATTWriteRequest)
    case writeResponse(ATTWriteResponse)
    case writeCommand(ATTWriteCommand)
    case handleValueNotification(ATTHandleValueNotification)
    case handleValueIndication(ATTHandleValueIndication)
    case handleValueConfirmation(ATTHandleValueConfirmation)
    /// A PDU whose opcode is not modelled here; `parameters` are the bytes after the opcode.
    case unknown(opcode: ATTOpcode, parameters: [UInt8])

    /// Decodes one whole PDU (one L2CAP SDU on the ATT bearer).
    ///
    /// - Throws: `DecodeError` if the PDU is empty, truncated, or has trailing bytes where its
    ///   format has none.
    public static func decode(_ bytes: [UInt8]) throws(DecodeError) -> ATTPDU {
        guard let first = bytes.first else { throw DecodeError("expected an ATT opcode, found an empty PDU", at: 0) }
        switch ATTOpcode(first) {
        case .errorResponse: return .errorResponse(try .init(bytes: bytes))
        case .exchangeMTURequest: return .exchangeMTURequest(try .init(bytes: bytes))
        case .exchangeMTUResponse: return .exchangeMTUResponse(try .init(bytes: bytes))
        case .findInformationRequest: return .findInformationRequest(try .init(bytes: bytes))
        case .findInformationResponse: return .findInformationResponse(try .init(bytes: bytes))
        case .readByTypeRequest: return .readByTypeRequest(try .init(bytes: bytes))
        case .readByTypeResponse: return .readByTypeResponse(try .init(bytes: bytes))
        case .readRequest: return .readRequest(try .init(bytes: bytes))
        case .readResponse: return .readResponse(try .init(bytes: bytes))
        case .readBlobRequest: return .readBlobRequest(try .init(bytes: bytes))
        case .readBlobResponse: return .readBlobResponse(try .init(bytes: bytes))
        case .readByGroupTypeRequest: return .readByGroupTypeRequest(try .init(bytes: bytes))
        case .readByGroupTypeResponse: return .readByGroupTypeResponse(try .init(bytes: bytes))
        case .writeRequest: return .writeRequest(try .init(bytes: bytes))
        case .writeResponse: return .writeResponse(try .init(bytes: bytes))
        case .writeCommand: return .writeCommand(try .init(bytes: bytes))
        case .handleValueNotification: return .handleValueNotification(try .init(bytes: bytes))
        case .handleValueIndication: return .handleValueIndication(try .init(bytes: bytes))
        case .handleValueConfirmation: return .handleValueConfirmation(try .init(bytes: bytes))
        case let opcode: return .unknown(opcode: opcode, parameters: Array(bytes.dropFirst()))
        }
    }

    /// The PDU's opcode.
    public var opcode: ATTOpcode {
        switch self {
        case .errorResponse: ATTErrorResponse.opcode
        case .exchangeMTURequest: ATTExchangeMTURequest.opcode
        case .exchangeMTUResponse: ATTExchangeMTUResponse.opcode
        case .findInformationRequest: ATTFindInformationRequest.opcode
        case .findInformationResponse: ATTFindInformationResponse.opcode
        case .readByTypeRequest: ATTReadByTypeRequest.opcode
        case .readByTypeResponse: ATTReadByTypeResponse.opcode
        case .readRequest: ATTReadRequest.opcode
        case .readResponse: ATTReadResponse.opcode
        case .readBlobRequest: ATTReadBlobRequest.opcode
        case .readBlobResponse: ATTReadBlobResponse.opcode
        case .readByGroupTypeRequest: ATTReadByGroupTypeRequest.opcode
        case .readByGroupTypeResponse: ATTReadByGroupTypeResponse.opcode
        case .writeRequest: ATTWriteRequest.opcode
        case .writeResponse: ATTWriteResponse.opcode
        case .writeCommand: ATTWriteCommand.opcode
        case .handleValueNotification: ATTHandleValueNotification.opcode
        case .handleValueIndication: ATTHandleValueIndication.opcode
        case .handleValueConfirmation: ATTHandleValueConfirmation.opcode
        case .unknown(let opcode, _): opcode
        }
    }

    /// Encodes the PDU, opcode byte first.
    public func encode() -> [UInt8] {
        switch self {
        case .errorResponse(let pdu): pdu.encode()
        case .exchangeMTURequest(let pdu): pdu.encode()
        case .exchangeMTUResponse(let pdu): pdu.encode()
        case .findInformationRequest(let pdu): pdu.encode()
        case .findInformationResponse(let pdu): pdu.encode()
        case .readByTypeRequest(let pdu): pdu.encode()
        case .readByTypeResponse(let pdu): pdu.encode()
        case .readRequest(let pdu): pdu.encode()
        case .readResponse(let pdu): pdu.encode()
        case .readBlobRequest(let pdu): pdu.encode()
        case .readBlobResponse(let pdu): pdu.encode()
        case .readByGroupTypeRequest(let pdu): pdu.encode()
        case .readByGroupTypeResponse(let pdu): pdu.encode()
        case .writeRequest(let pdu): pdu.encode()
        case .writeResponse(let pdu): pdu.encode()
        case .writeCommand(let pdu): pdu.encode()
        case .handleValueNotification(let pdu): pdu.encode()
        case .handleValueIndication(let pdu): pdu.encode()
        case .handleValueConfirmation(let pdu): pdu.encode()
        case .unknown(let opcode, let parameters): [opcode.rawValue] + parameters
        }
    }
}
