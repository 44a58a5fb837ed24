/// A service found by primary service discovery: its UUID and the handles it spans.
///
/// Core 5.3 Vol 3 Part G §3.1 (service definition) and §4.4.1 (Discover All Primary Services).
public struct GATTService: Hashable, Sendable, CustomStringConvertible {
    public var uuid: BluetoothUUID
    /// The handle of the service declaration.
    public var startHandle: UInt16
    /// The last handle of the service's group.
    public var endHandle: UInt16
    public var isPrimary: Bool

    public init(uuid: BluetoothUUID, startHandle: UInt16, endHandle: UInt16, isPrimary: Bool = true) {
        self.uuid = uuid
        self.startHandle = startHandle
        self.endHandle = endHandle
        self.isPrimary = isPrimary
    }

    public var description: String { "service \(uuid) [0x\(hex(startHandle))–0x\(hex(endHandle))]" }
}
