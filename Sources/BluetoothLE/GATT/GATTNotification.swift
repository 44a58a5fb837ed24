/// A value pushed by the server: a Handle Value Notification or Indication.
///
/// The GATT client does not time-stamp it: a pure target reads no clock, so the consumer (the
/// transport or sensor layer) stamps arrival with its injected wall-clock source.
///
/// Core 5.3 Vol 3 Part G §4.10 (notifications) and §4.11 (indications).
public struct GATTNotification: Hashable, Sendable, CustomStringConvertible {
    /// The characteristic value handle.
    public var handle: UInt16
    public var value: [UInt8]
    /// `true` for an indication (already confirmed by the client), `false` for a notification.
    public var isIndication: Bool

    public init(handle: UInt16, value: [UInt8], isIndication: Bool = false) {
        self.handle = handle
        self.value = value
        self.isIndication = isIndication
    }

    public var description: String {
        "\(isIndication ? "indication" : "notification") 0x\(hex(handle)): \(value.map(hex).joined(separator: " "))"
    }
}
