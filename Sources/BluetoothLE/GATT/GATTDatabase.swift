/// A flat attribute table built from service definitions, with handles assigned from 0x0001.
///
/// Layout per service: the service declaration; per characteristic its declaration, its value,
/// its CCCD (when it can notify or indicate), then its other descriptors.
///
/// Core 5.3 Vol 3 Part F §3.2 (attributes) and Part G §3 (service interoperability requirements).
public struct GATTDatabase: Sendable {
    /// One attribute: handle, type, value and access permissions.
    public struct Attribute: Hashable, Sendable {
        public var handle: UInt16
        public var type: BluetoothUUID
        public var value: [UInt8]
        public var isReadable: Bool
        /// Writable with a Write Request.
        public var isWritable: Bool
        /// Writable with a Write Command.
        public var isWritableWithoutResponse: Bool
    }

    /// Where one characteristic lives.
    public struct CharacteristicEntry: Sendable {
        public var uuid: BluetoothUUID
        public var properties: GATTCharacteristicProperties
        public var declarationHandle: UInt16
        public var valueHandle: UInt16
        public var cccdHandle: UInt16?
        var validateWrite: (@Sendable ([UInt8]) -> ATTErrorCode?)?
    }

    /// A service group: declaration handle and last handle.
    public struct ServiceEntry: Hashable, Sendable {
        public var uuid: BluetoothUUID
        public var isPrimary: Bool
        public var startHandle: UInt16
        public var endHandle: UInt16
    }

    /// Every attribute; the attribute with handle `h` is at index `h - 1`.
    public internal(set) var attributes: [Attribute] = []
    public private(set) var services: [ServiceEntry] = []
    public private(set) var characteristics: [CharacteristicEntry] = []

    public init(services definitions: [GATTServiceDefinition]) {
        for service in definitions {
            let start = nextHandle
            append(type: service.isPrimary ? .primaryService : .secondaryService, value: service.uuid.littleEndianBytes)
            for characteristic in service.characteristics {
                let declarationHandle = nextHandle
                let valueHandle = declarationHandle + 1
                let declaration = GATTCharacteristicDeclaration(
                    properties: characteristic.properties, valueHandle: valueHandle, uuid: characteristic.uuid)
                append(type: .characteristic, value: declaration.encode())
                append(
                    type: characteristic.uuid, value: characteristic.value,
                    isReadable: characteristic.properties.contains(.read),
                    isWritable: characteristic.properties.contains(.write),
                    isWritableWithoutResponse: characteristic.properties.contains(.writeWithoutResponse))
                var cccdHandle: UInt16?
                if !characteristic.properties.isDisjoint(with: [.notify, .indicate]) {
                    cccdHandle = nextHandle
                    append(type: .clientCharacteristicConfiguration, value: [0, 0], isWritable: true)
                }
                for descriptor in characteristic.descriptors {
                    append(type: descriptor.uuid, value: descriptor.value, isWritable: descriptor.isWritable)
                }
                characteristics.append(
                    CharacteristicEntry(
                        uuid: characteristic.uuid, properties: characteristic.properties,
                        declarationHandle: declarationHandle,
                        valueHandle: valueHandle, cccdHandle: cccdHandle, validateWrite: characteristic.validateWrite))
            }
            services.append(
                ServiceEntry(
                    uuid: service.uuid, isPrimary: service.isPrimary,
                    startHandle: start, endHandle: nextHandle - 1))
        }
    }

    private var nextHandle: UInt16 { UInt16(attributes.count + 1) }

    private mutating func append(
        type: BluetoothUUID, value: [UInt8], isReadable: Bool = true,
        isWritable: Bool = false, isWritableWithoutResponse: Bool = false
    ) {
        attributes.append(
            Attribute(
                handle: nextHandle, type: type, value: value, isReadable: isReadable,
                isWritable: isWritable, isWritableWithoutResponse: isWritableWithoutResponse))
    }

    /// The attribute with this handle, if any.
    public func attribute(at handle: UInt16) -> Attribute? {
        let index = Int(handle) - 1
        return attributes.indices.contains(index) ? attributes[index] : nil
    }

    /// The first characteristic with this UUID.
    public func characteristic(_ uuid: BluetoothUUID) -> CharacteristicEntry? {
        characteristics.first { $0.uuid == uuid }
    }

    /// The characteristic whose value or CCCD has this handle.
    func characteristic(owning handle: UInt16) -> CharacteristicEntry? {
        characteristics.first { $0.valueHandle == handle || $0.cccdHandle == handle }
    }

    /// The handle of the last attribute of the service group containing `handle`.
    func groupEnd(of handle: UInt16) -> UInt16? {
        services.first { $0.startHandle == handle }?.endHandle
    }
}
