import ByteCoding

/// Read Response: the value of the attribute read, truncated to ATT_MTU − 1 bytes.
///
/// `0B · value`.
///
/// Core 5.3 Vol 3 Part F §3.4.4.4.
public struct ATTReadResponse: ATTValuePDU {
    public static let opcode = ATTOpcode.readResponse

    public var value: [UInt8]

    public init(value: [UInt8]) { self.value = value }
}
