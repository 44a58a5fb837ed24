import ByteCoding

/// Write Request: write an attribute value and wait for a Write Response.
///
/// `12 · handle (u16) · value (0 to ATT_MTU − 3 bytes)`.
///
/// Core 5.3 Vol 3 Part F §3.4.5.1.
public struct ATTWriteRequest: ATTHandleValuePDU {
    public static let opcode = ATTOpcode.writeRequest

    public var handle: UInt16
    public var value: [UInt8]

    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}
