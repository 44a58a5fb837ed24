/// A service to publish from a ``GATTDatabase``: what a simulated peripheral offers.
///
/// Core 5.3 Vol 3 Part G §3.1 (service definition).
public struct GATTServiceDefinition: Sendable {
    public var uuid: BluetoothUUID
    public var isPrimary: Bool
    public var characteristics: [GATTCharacteristicDefinition]

    public init(uuid: BluetoothUUID, isPrimary: Bool = true, characteristics: [GATTCharacteristicDefinition]) {
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.characteristics = characteristics
    }
}

/// A characteristic to publish: UUID, properties, initial value and extra descriptors.
///
/// A Client Characteristic Configuration descriptor is added automatically, right after the
/// value, when the properties include notify or indicate.
///
/// Core 5.3 Vol 3 Part G §3.3 (characteristic definition).
public struct GATTCharacteristicDefinition: Sendable {
    public var uuid: BluetoothUUID
    public var properties: GATTCharacteristicProperties
    public var value: [UInt8]
    public var descriptors: [GATTDescriptorDefinition]
    /// Checks a value the client writes; returning an error code refuses the write with that
    /// code (for example 0x80 from the Heart Rate Control Point).
    public var validateWrite: (@Sendable ([UInt8]) -> ATTErrorCode?)?

    public init(
        uuid: BluetoothUUID,
        properties: GATTCharacteristicProperties,
        value: [UInt8] = [],
        descriptors: [GATTDescriptorDefinition] = [],
        validateWrite: (@Sendable ([UInt8]) -> ATTErrorCode?)? = nil
    ) {
        self.uuid = uuid
        self.properties = properties
        self.value = value
        self.descriptors = descriptors
        self.validateWrite = validateWrite
    }
}

/// A descriptor to publish after a characteristic's value (Core 5.3 Vol 3 Part G §3.3.3).
public struct GATTDescriptorDefinition: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var value: [UInt8]
    public var isWritable: Bool

    public init(uuid: BluetoothUUID, value: [UInt8], isWritable: Bool = false) {
        self.uuid = uuid
        self.value = value
        self.isWritable = isWritable
    }
}
