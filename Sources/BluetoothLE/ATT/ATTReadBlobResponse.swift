import ByteCoding

/// Read Blob Response: part of a long attribute value, starting at the requested offset.
///
/// `0D · part value (0 to ATT_MTU − 1 bytes)`.
///
/// Core 5.3 Vol 3 Part F §3.4.4.6.
public struct ATTReadBlobResponse: ATTValuePDU {
    public static let opcode = ATTOpcode.readBlobResponse

    public var value: [UInt8]

    public init(value: [UInt8]) { self.value = value }
}
