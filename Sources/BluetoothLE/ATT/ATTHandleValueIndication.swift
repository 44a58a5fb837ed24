import ByteCoding

/// Handle Value Indication: the server pushes an attribute value and waits for a Handle Value Confirmation before it sends the next indication.
///
/// `1D · handle (u16) · value (0 to ATT_MTU − 3 bytes)`.
///
/// Core 5.3 Vol 3 Part F §3.4.7.2.
public struct ATTHandleValueIndication: ATTHandleValuePDU {
    public static let opcode = ATTOpcode.handleValueIndication

    public var handle: UInt16
    public var value: [UInt8]

    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}
