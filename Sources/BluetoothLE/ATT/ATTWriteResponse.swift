import ByteCoding

/// Write Response: the attribute value was written.
///
/// `13`: the opcode alone.
///
/// Core 5.3 Vol 3 Part F §3.4.5.2.
public struct ATTWriteResponse: ATTProtocolDataUnit {
    public static let opcode = ATTOpcode.writeResponse

    public init() {}

    public init(bytes: [UInt8]) throws(DecodeError) {
        let reader = try Self.reader(for: bytes)
        try reader.expectEnd("Write Response")
    }

    public func encode() -> [UInt8] { [Self.opcode.rawValue] }
}
