import ByteCoding

/// Handle Value Notification: the server pushes an attribute value; nothing is sent back.
///
/// `1B · handle (u16) · value (0 to ATT_MTU − 3 bytes)`.
///
/// Core 5.3 Vol 3 Part F §3.4.7.1.
public struct ATTHandleValueNotification: ATTHandleValuePDU {
    public static let opcode = ATTOpcode.handleValueNotification

    public var handle: UInt16
    public var value: [UInt8]

    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}
