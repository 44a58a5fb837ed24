import ByteCoding

/// The properties of an extended advertising report (a bit field) and its data status.
///
/// Core 5.3 Vol 4 Part E §7.7.65.13 (Event_Type).
public struct HCILEExtendedAdvertisingEventType: OptionSet, Hashable, Sendable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let connectable = HCILEExtendedAdvertisingEventType(rawValue: 0x0001)
    public static let scannable = HCILEExtendedAdvertisingEventType(rawValue: 0x0002)
    public static let directed = HCILEExtendedAdvertisingEventType(rawValue: 0x0004)
    public static let scanResponse = HCILEExtendedAdvertisingEventType(rawValue: 0x0008)
    /// The report comes from a legacy advertising PDU.
    public static let legacy = HCILEExtendedAdvertisingEventType(rawValue: 0x0010)

    /// Bits 5–6: whether the data is complete or continues in a later report.
    public enum DataStatus: UInt8, Hashable, Sendable {
        case complete = 0
        case incompleteMoreToCome = 1
        case incompleteTruncated = 2
        case reserved = 3
    }

    public var dataStatus: DataStatus { DataStatus(rawValue: UInt8((rawValue >> 5) & 0b11))! }
}

/// One report from an LE Extended Advertising Report event, which BlueZ makes the controller send
/// when it scans with the Bluetooth 5 extended commands.
///
/// Per report (24 bytes + data): `event type u16 · address type u8 · address (6) · primary PHY u8 ·
/// secondary PHY u8 · advertising SID u8 · TX power i8 · RSSI i8 · periodic advertising interval u16
/// · direct address type u8 · direct address (6) · data length u8 · data`.
///
/// Core 5.3 Vol 4 Part E §7.7.65.13.
public struct HCILEExtendedAdvertisingReport: Hashable, Sendable {
    public var eventType: HCILEExtendedAdvertisingEventType
    public var address: BluetoothAddress
    /// 0x01 LE 1M, 0x03 LE Coded.
    public var primaryPHY: UInt8
    /// 0x00 none, 0x01 LE 1M, 0x02 LE 2M, 0x03 LE Coded.
    public var secondaryPHY: UInt8
    /// 0x00–0x0F, or 0xFF for none.
    public var advertisingSID: UInt8
    /// The raw TX power in dBm; 127 means not available.
    public var rawTXPower: Int8
    /// The raw RSSI in dBm; 127 means not available.
    public var rawRSSI: Int8
    /// In units of 1.25 ms; 0 when there is no periodic advertising.
    public var periodicAdvertisingInterval: UInt16
    /// For directed advertising, the address it was directed to.
    public var directAddress: BluetoothAddress
    public var data: [UInt8]

    public init(
        eventType: HCILEExtendedAdvertisingEventType, address: BluetoothAddress, primaryPHY: UInt8 = 1,
        secondaryPHY: UInt8 = 0, advertisingSID: UInt8 = 0xFF, txPower: Int8? = nil, rssi: Int8?,
        periodicAdvertisingInterval: UInt16 = 0,
        directAddress: BluetoothAddress = BluetoothAddress(rawValue: 0), data: [UInt8]
    ) {
        self.eventType = eventType
        self.address = address
        self.primaryPHY = primaryPHY
        self.secondaryPHY = secondaryPHY
        self.advertisingSID = advertisingSID
        rawTXPower = txPower ?? 127
        rawRSSI = rssi ?? 127
        self.periodicAdvertisingInterval = periodicAdvertisingInterval
        self.directAddress = directAddress
        self.data = data
    }

    public var rssi: Int8? { rawRSSI == 127 ? nil : rawRSSI }
    public var txPower: Int8? { rawTXPower == 127 ? nil : rawTXPower }

    /// The advertising data, parsed. Check ``HCILEExtendedAdvertisingEventType/dataStatus``: an
    /// incomplete report may end mid-structure.
    public var advertisingData: AdvertisingData {
        get throws(DecodeError) { try AdvertisingData(bytes: data) }
    }

    init(reading reader: inout ByteReader) throws(DecodeError) {
        eventType = HCILEExtendedAdvertisingEventType(rawValue: try reader.readUInt16("Event_Type"))
        let type = BluetoothAddressType(rawValue: try reader.readUInt8("Address_Type"))
        address = try BluetoothAddress.read(from: &reader, type: type, "Address")
        primaryPHY = try reader.readUInt8("Primary_PHY")
        secondaryPHY = try reader.readUInt8("Secondary_PHY")
        advertisingSID = try reader.readUInt8("Advertising_SID")
        rawTXPower = try reader.readInt8("TX_Power")
        rawRSSI = try reader.readInt8("RSSI")
        periodicAdvertisingInterval = try reader.readUInt16("Periodic_Advertising_Interval")
        let directType = BluetoothAddressType(rawValue: try reader.readUInt8("Direct_Address_Type"))
        directAddress = try BluetoothAddress.read(from: &reader, type: directType, "Direct_Address")
        let length = Int(try reader.readUInt8("Data_Length"))
        data = Array(try reader.readBytes(length, "Data"))
    }

    func write(to writer: inout ByteWriter) {
        writer.write(eventType.rawValue)
        writer.write(address.type.rawValue)
        writer.write(contentsOf: address.littleEndianBytes)
        writer.write(primaryPHY)
        writer.write(secondaryPHY)
        writer.write(advertisingSID)
        writer.write(rawTXPower)
        writer.write(rawRSSI)
        writer.write(periodicAdvertisingInterval)
        writer.write(directAddress.type.rawValue)
        writer.write(contentsOf: directAddress.littleEndianBytes)
        writer.write(UInt8(truncatingIfNeeded: data.count))
        writer.write(contentsOf: data)
    }
}
