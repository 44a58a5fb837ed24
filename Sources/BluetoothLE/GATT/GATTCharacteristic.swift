/// A characteristic found by characteristic discovery.
///
/// `endHandle` is the last handle that can hold one of its descriptors: the handle before the next
/// characteristic declaration, or the service's end handle.
///
/// Core 5.3 Vol 3 Part G §3.3 (characteristic definition) and §4.6.1 (Discover All Characteristics
/// of a Service).
public struct GATTCharacteristic: Hashable, Sendable, CustomStringConvertible {
    public var uuid: BluetoothUUID
    public var properties: GATTCharacteristicProperties
    /// The handle of the characteristic declaration.
    public var declarationHandle: UInt16
    /// The handle of the characteristic value, the one notifications carry.
    public var valueHandle: UInt16
    /// The last handle of the characteristic definition.
    public var endHandle: UInt16

    public init(
        uuid: BluetoothUUID, properties: GATTCharacteristicProperties, declarationHandle: UInt16,
        valueHandle: UInt16, endHandle: UInt16
    ) {
        self.uuid = uuid
        self.properties = properties
        self.declarationHandle = declarationHandle
        self.valueHandle = valueHandle
        self.endHandle = endHandle
    }

    public var description: String {
        "characteristic \(uuid) \(properties) value 0x\(hex(valueHandle)) [0x\(hex(declarationHandle))–0x\(hex(endHandle))]"
    }
}
