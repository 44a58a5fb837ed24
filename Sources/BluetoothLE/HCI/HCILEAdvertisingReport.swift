import ByteCoding

/// The type of a legacy advertising PDU, as reported by LE Advertising Report.
///
/// Core 5.3 Vol 4 Part E §7.7.65.2 (Event_Type).
public struct HCILEAdvertisingEventType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// ADV_IND: connectable, scannable, undirected.
    public static let connectableUndirected = HCILEAdvertisingEventType(rawValue: 0x00)
    /// ADV_DIRECT_IND: connectable, directed.
    public static let connectableDirected = HCILEAdvertisingEventType(rawValue: 0x01)
    /// ADV_SCAN_IND: scannable, undirected.
    public static let scannableUndirected = HCILEAdvertisingEventType(rawValue: 0x02)
    /// ADV_NONCONN_IND: non-connectable, undirected.
    public static let nonConnectableUndirected = HCILEAdvertisingEventType(rawValue: 0x03)
    /// SCAN_RSP: the answer to our scan request.
    public static let scanResponse = HCILEAdvertisingEventType(rawValue: 0x04)

    public var isConnectable: Bool { self == .connectableUndirected || self == .connectableDirected }

    public var description: String {
        switch self {
        case .connectableUndirected: "ADV_IND"
        case .connectableDirected: "ADV_DIRECT_IND"
        case .scannableUndirected: "ADV_SCAN_IND"
        case .nonConnectableUndirected: "ADV_NONCONN_IND"
        case .scanResponse: "SCAN_RSP"
        default: "event type 0x\(hex(rawValue))"
        }
    }
}

/// One device's legacy advertising or scan response, from an LE Advertising Report event.
///
/// Per report: `event type u8 · address type u8 · address (6, LSB first) · data length u8 (≤ 31) ·
/// data · RSSI i8` (127 = not available). Reports are laid out one after another, as the Linux
/// kernel (`hci_le_adv_report_evt`) and libbluetooth's `le_advertising_info` read them.
///
/// Core 5.3 Vol 4 Part E §7.7.65.2.
public struct HCILEAdvertisingReport: Hashable, Sendable {
    public var eventType: HCILEAdvertisingEventType
    /// The advertiser's address, with its type.
    public var address: BluetoothAddress
    /// The raw advertising data; decode it with ``advertisingData``.
    public var data: [UInt8]
    /// The raw RSSI byte in dBm (−127…+20); 127 means not available.
    public var rawRSSI: Int8

    public init(eventType: HCILEAdvertisingEventType, address: BluetoothAddress, data: [UInt8], rssi: Int8?) {
        self.eventType = eventType
        self.address = address
        self.data = data
        rawRSSI = rssi ?? 127
    }

    /// The signal strength in dBm, or `nil` if the controller had none.
    public var rssi: Int8? { rawRSSI == 127 ? nil : rawRSSI }

    /// The advertising data, parsed.
    public var advertisingData: AdvertisingData {
        get throws(DecodeError) { try AdvertisingData(bytes: data) }
    }

    init(reading reader: inout ByteReader) throws(DecodeError) {
        eventType = HCILEAdvertisingEventType(rawValue: try reader.readUInt8("Event_Type"))
        let type = BluetoothAddressType(rawValue: try reader.readUInt8("Address_Type"))
        address = try BluetoothAddress.read(from: &reader, type: type, "Address")
        let length = Int(try reader.readUInt8("Data_Length"))
        data = Array(try reader.readBytes(length, "Data"))
        rawRSSI = try reader.readInt8("RSSI")
    }

    func write(to writer: inout ByteWriter) {
        writer.write(eventType.rawValue)
        writer.write(address.type.rawValue)
        writer.write(contentsOf: address.littleEndianBytes)
        writer.write(UInt8(truncatingIfNeeded: data.count))
        writer.write(contentsOf: data)
        writer.write(rawRSSI)
    }
}
