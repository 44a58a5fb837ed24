import ByteCoding

/// One AD structure of advertising or scan response data: `length · type · data`, where length
/// counts the type byte and the data.
///
/// Known types are decoded; their data must have the size the type defines, or decoding throws.
/// Unknown types are kept raw, so a structure always re-encodes to the bytes it came from.
///
/// Core 5.3 Vol 3 Part C §11 (advertising and scan response data format) and Core Specification
/// Supplement Part A §1 (data types).
public enum AdvertisingDataStructure: Hashable, Sendable {
    /// 0x01: discoverability and BR/EDR support.
    case flags(AdvertisingFlags)
    /// 0x02 (incomplete) or 0x03 (complete) list of 16-bit service UUIDs.
    case serviceUUIDs16([BluetoothUUID], isComplete: Bool)
    /// 0x06 (incomplete) or 0x07 (complete) list of 128-bit service UUIDs.
    case serviceUUIDs128([BluetoothUUID], isComplete: Bool)
    /// 0x08 (shortened) or 0x09 (complete) local name, raw UTF-8. A shortened name may be cut in
    /// the middle of a character, so the bytes are kept; ``AdvertisingData/localName`` decodes them.
    case localName([UInt8], isComplete: Bool)
    /// 0x0A: transmit power level in dBm.
    case txPowerLevel(Int8)
    /// 0x16: service data for a 16-bit service UUID.
    case serviceData16(BluetoothUUID, [UInt8])
    /// 0x19: appearance.
    case appearance(GAPAppearance)
    /// 0xFF: manufacturer-specific data, after the company identifier.
    case manufacturerData(companyIdentifier: UInt16, data: [UInt8])
    /// Any other type, data kept raw.
    case unknown(AdvertisingDataType, [UInt8])

    /// Decodes the data of one structure of type `type`; `offset` is the data's offset in the
    /// advertising data, used in errors.
    init(type: AdvertisingDataType, data: [UInt8], offset: Int) throws(DecodeError) {
        var reader = ByteReader(data)
        func fail(_ reason: String) -> DecodeError { DecodeError(reason, at: offset) }
        func uuids(width: Int) throws(DecodeError) -> [BluetoothUUID] {
            guard data.count % width == 0 else {
                throw fail("\(type) holds \(data.count) bytes, not a multiple of \(width)")
            }
            var list: [BluetoothUUID] = []
            while !reader.isAtEnd { list.append(try BluetoothUUID.read(from: &reader, width: width, "service UUID")) }
            return list
        }
        switch type {
        case .flags:
            guard data.count == 1 else { throw fail("Flags hold \(data.count) bytes, not 1") }
            self = .flags(AdvertisingFlags(rawValue: data[0]))
        case .incompleteServiceUUIDs16, .completeServiceUUIDs16:
            self = .serviceUUIDs16(try uuids(width: 2), isComplete: type == .completeServiceUUIDs16)
        case .incompleteServiceUUIDs128, .completeServiceUUIDs128:
            self = .serviceUUIDs128(try uuids(width: 16), isComplete: type == .completeServiceUUIDs128)
        case .shortenedLocalName, .completeLocalName:
            self = .localName(data, isComplete: type == .completeLocalName)
        case .txPowerLevel:
            guard data.count == 1 else { throw fail("TX Power Level holds \(data.count) bytes, not 1") }
            self = .txPowerLevel(Int8(bitPattern: data[0]))
        case .serviceData16:
            guard data.count >= 2 else { throw fail("Service Data holds \(data.count) bytes, fewer than its UUID") }
            self = .serviceData16(BluetoothUUID(UInt16(data[0]) | UInt16(data[1]) << 8), Array(data[2...]))
        case .appearance:
            guard data.count == 2 else { throw fail("Appearance holds \(data.count) bytes, not 2") }
            self = .appearance(GAPAppearance(rawValue: UInt16(data[0]) | UInt16(data[1]) << 8))
        case .manufacturerSpecificData:
            guard data.count >= 2 else {
                throw fail("Manufacturer Specific Data holds \(data.count) bytes, fewer than a company identifier")
            }
            self = .manufacturerData(companyIdentifier: UInt16(data[0]) | UInt16(data[1]) << 8, data: Array(data[2...]))
        default:
            self = .unknown(type, data)
        }
    }

    /// The structure's type byte.
    public var type: AdvertisingDataType {
        switch self {
        case .flags: .flags
        case .serviceUUIDs16(_, let complete): complete ? .completeServiceUUIDs16 : .incompleteServiceUUIDs16
        case .serviceUUIDs128(_, let complete): complete ? .completeServiceUUIDs128 : .incompleteServiceUUIDs128
        case .localName(_, let complete): complete ? .completeLocalName : .shortenedLocalName
        case .txPowerLevel: .txPowerLevel
        case .serviceData16: .serviceData16
        case .appearance: .appearance
        case .manufacturerData: .manufacturerSpecificData
        case .unknown(let type, _): type
        }
    }

    /// The structure's data, after the type byte.
    public var data: [UInt8] {
        switch self {
        case .flags(let flags): [flags.rawValue]
        case .serviceUUIDs16(let list, _):
            list.flatMap { $0.shortValue.map { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } ?? [] }
        case .serviceUUIDs128(let list, _): list.flatMap { $0.longForm.littleEndianBytes }
        case .localName(let bytes, _): bytes
        case .txPowerLevel(let level): [UInt8(bitPattern: level)]
        case .serviceData16(let uuid, let bytes):
            (uuid.shortValue.map { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } ?? []) + bytes
        case .appearance(let appearance): [UInt8(appearance.rawValue & 0xFF), UInt8(appearance.rawValue >> 8)]
        case .manufacturerData(let company, let bytes): [UInt8(company & 0xFF), UInt8(company >> 8)] + bytes
        case .unknown(_, let bytes): bytes
        }
    }

    /// `length · type · data`.
    public func encode() -> [UInt8] {
        let data = self.data
        return [UInt8(truncatingIfNeeded: data.count + 1), type.rawValue] + data
    }
}
