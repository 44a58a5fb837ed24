import ByteCoding

/// Write Command: write an attribute value; no response, errors are not reported.
///
/// `52 · handle (u16) · value (0 to ATT_MTU − 3 bytes)`.
///
/// Core 5.3 Vol 3 Part F §3.4.5.3.
public struct ATTWriteCommand: ATTHandleValuePDU {
    public static let opcode = ATTOpcode.writeCommand

    public var handle: UInt16
    public var value: [UInt8]

    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}
