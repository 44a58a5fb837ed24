import ByteCoding

/// Advertising or scan response data: a sequence of AD structures.
///
/// Parsing stops at a zero length byte, which ends the significant part (the rest is padding).
/// A structure whose length runs past the end of the data throws a `DecodeError` at its length
/// byte. Accessors give the common fields; the structures keep everything in order.
///
/// ```swift
/// let ad = try AdvertisingData(bytes: report.data)
/// if ad.serviceUUIDs.contains(.heartRate) { print(ad.localName ?? "unnamed strap") }
/// ```
///
/// Core 5.3 Vol 3 Part C §11 and Core Specification Supplement Part A §1.
public struct AdvertisingData: Hashable, Sendable {
    public var structures: [AdvertisingDataStructure]

    public init(_ structures: [AdvertisingDataStructure]) {
        self.structures = structures
    }

    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        structures = []
        while !reader.isAtEnd {
            let lengthOffset = reader.offset
            let length = Int(try reader.readUInt8("AD length"))
            if length == 0 { break }
            guard length <= reader.remaining else {
                throw DecodeError(
                    "AD structure of \(length) bytes runs past the end (\(reader.remaining) left)", at: lengthOffset)
            }
            let type = AdvertisingDataType(try reader.readUInt8("AD type"))
            let dataOffset = reader.offset
            let data = Array(try reader.readBytes(length - 1, "AD data"))
            structures.append(try AdvertisingDataStructure(type: type, data: data, offset: dataOffset))
        }
    }

    /// The structures, each `length · type · data`, without padding.
    public func encode() -> [UInt8] { structures.flatMap { $0.encode() } }

    // MARK: - Common fields

    public var flags: AdvertisingFlags? {
        structures.lazy.compactMap { if case .flags(let f) = $0 { f } else { nil } }.first
    }

    /// Every service UUID listed, 16-bit and 128-bit, complete or not, in order.
    public var serviceUUIDs: [BluetoothUUID] {
        structures.flatMap { structure -> [BluetoothUUID] in
            switch structure {
            case .serviceUUIDs16(let list, _), .serviceUUIDs128(let list, _): list
            default: []
            }
        }
    }

    /// The complete local name if present, else the shortened one, decoded as UTF-8 (invalid
    /// sequences replaced).
    public var localName: String? {
        var shortened: [UInt8]?
        for case .localName(let bytes, let complete) in structures {
            if complete { return String(decoding: bytes, as: UTF8.self) }
            shortened = shortened ?? bytes
        }
        return shortened.map { String(decoding: $0, as: UTF8.self) }
    }

    public var txPowerLevel: Int8? {
        structures.lazy.compactMap { if case .txPowerLevel(let p) = $0 { p } else { nil } }.first
    }

    public var appearance: GAPAppearance? {
        structures.lazy.compactMap { if case .appearance(let a) = $0 { a } else { nil } }.first
    }

    /// The first manufacturer-specific data.
    public var manufacturerData: (companyIdentifier: UInt16, data: [UInt8])? {
        for case .manufacturerData(let company, let data) in structures { return (company, data) }
        return nil
    }

    /// Service data for a 16-bit service UUID.
    public func serviceData(for uuid: BluetoothUUID) -> [UInt8]? {
        for case .serviceData16(let key, let data) in structures where key == uuid { return data }
        return nil
    }
}
