/// A characteristic descriptor found by descriptor discovery.
///
/// Core 5.3 Vol 3 Part G §3.3.3 (descriptors) and §4.7.1 (Discover All Characteristic Descriptors).
public struct GATTDescriptor: Hashable, Sendable, CustomStringConvertible {
    public var uuid: BluetoothUUID
    public var handle: UInt16

    public init(uuid: BluetoothUUID, handle: UInt16) {
        self.uuid = uuid
        self.handle = handle
    }

    public var description: String { "descriptor \(uuid) at 0x\(hex(handle))" }
}
