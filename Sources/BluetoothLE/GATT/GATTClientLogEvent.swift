import ByteCoding

/// Something the GATT client noticed and skipped, reported to its log handler.
///
/// None of these stops the client: a malformed or unexpected PDU from the peer is reported here
/// and dropped, and the client keeps serving the bearer.
public enum GATTClientLogEvent: Hashable, Sendable, CustomStringConvertible {
    /// A PDU that could not be decoded; it was skipped (a request was answered with Invalid PDU,
    /// an indication was still confirmed).
    case malformedPDU([UInt8], DecodeError)
    /// A well-formed PDU that does not fit the client's state, such as a response with no request
    /// outstanding; it was skipped.
    case unexpectedPDU([UInt8], reason: String)
    /// A request from the peer (acting as a client of our non-existent server) and our answer.
    case answeredPeerRequest(request: ATTOpcode, response: [UInt8])
    /// A command from the peer that was ignored, as Core 5.3 Vol 3 Part F §3.4.1.1 requires for
    /// unsupported commands.
    case ignoredCommand(ATTOpcode)

    public var description: String {
        func dump(_ bytes: [UInt8]) -> String { bytes.map(hex).joined(separator: " ") }
        switch self {
        case .malformedPDU(let bytes, let error): return "malformed ATT PDU [\(dump(bytes))]: \(error)"
        case .unexpectedPDU(let bytes, let reason): return "unexpected ATT PDU [\(dump(bytes))]: \(reason)"
        case .answeredPeerRequest(let request, let response):
            return "answered peer request \(request) with [\(dump(response))]"
        case .ignoredCommand(let opcode): return "ignored ATT command \(opcode)"
        }
    }
}
