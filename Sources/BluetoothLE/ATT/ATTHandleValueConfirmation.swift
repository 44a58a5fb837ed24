import ByteCoding

/// Handle Value Confirmation: the client has received an indication.
///
/// `1E`: the opcode alone.
///
/// Core 5.3 Vol 3 Part F §3.4.7.3.
public struct ATTHandleValueConfirmation: ATTProtocolDataUnit {
    public static let opcode = ATTOpcode.handleValueConfirmation

    public init() {}

    public init(bytes: [UInt8]) throws(DecodeError) {
        let reader = try Self.reader(for: bytes)
        try reader.expectEnd("Handle Value Confirmation")
    }

    public func encode() -> [UInt8] { [Self.opcode.rawValue] }
}
