import ByteCoding

/// The management event Device Found (0x0012): one device heard during discovery, with what it
/// advertised.
///
/// Parameters: `address[6] (least significant first) · address type u8 (0 BR/EDR, 1 LE public,
/// 2 LE random) · RSSI s8 (127: not available) · flags u32 · EIR length u16 · EIR data`. For an LE
/// device the kernel puts the advertising data and, when it waited for one, the scan response
/// after it in the EIR data: AD structures, as ``AdvertisingData`` reads them.
///
/// BlueZ `doc/mgmt-api.txt` ("Device Found Event"); Linux `net/bluetooth/mgmt.c` (`mgmt_device_found`).
public struct MGMTDeviceFound: Hashable, Sendable {
    /// The device's address, typed public or random for an LE device.
    public var address: BluetoothAddress
    /// Whether the address is an LE one (types 1 and 2); BR/EDR devices (type 0) are not.
    public var isLowEnergy: Bool
    /// dBm; `nil` when the kernel reports 127 (not available).
    public var rssi: Int8?
    public var flags: UInt32
    /// Advertising data, then scan response data, as AD structures.
    public var data: [UInt8]

    /// Flags bit 2: the device accepts no connection (a broadcaster).
    public var isNotConnectable: Bool { flags & (1 << 2) != 0 }

    public init(address: BluetoothAddress, isLowEnergy: Bool = true, rssi: Int8?, flags: UInt32 = 0, data: [UInt8]) {
        self.address = address
        self.isLowEnergy = isLowEnergy
        self.rssi = rssi
        self.flags = flags
        self.data = data
    }

    /// Decodes the event's parameters.
    ///
    /// - Throws: `DecodeError` when they are shorter than 14 bytes, the address type is not 0–2,
    ///   or the EIR length disagrees with the bytes that follow.
    public init(parameters bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        let wire = try reader.readBytes(6, "Address")
        let kind = try reader.readUInt8("Address_Type")
        guard kind <= 2 else { throw DecodeError("Address_Type \(kind) is not 0, 1 or 2", at: 6) }
        isLowEnergy = kind != 0
        address = BluetoothAddress(
            rawValue: wire.reversed().reduce(0) { $0 << 8 | UInt64($1) },
            type: kind == 2 ? .random : .public)
        let rssi = try reader.readInt8("RSSI")
        self.rssi = rssi == 127 ? nil : rssi
        flags = try reader.readUInt32("Flags")
        let length = Int(try reader.readUInt16("EIR_Data_Length"))
        guard reader.remaining == length else {
            throw DecodeError("EIR_Data_Length \(length), but \(reader.remaining) bytes follow", at: 12)
        }
        data = Array(reader.readRemaining())
    }

    /// The event's parameters, for tests and fuzz round trips.
    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 14 + data.count)
        writer.write(contentsOf: address.littleEndianBytes)
        writer.write(UInt8(isLowEnergy ? (address.type.isRandom ? 2 : 1) : 0))
        writer.write(rssi ?? 127)
        writer.write(flags)
        writer.write(UInt16(truncatingIfNeeded: data.count))
        writer.write(contentsOf: data)
        return writer.bytes
    }
}

/// The management event Discovering (0x0013): discovery started or ended, for whoever started it.
///
/// Parameters: `address types u8 · discovering u8 (1 started, 0 ended)`. The kernel ends an LE
/// discovery by itself (after about 10 s, or to make a connection), so one Start Discovery may see
/// it come and go.
///
/// BlueZ `doc/mgmt-api.txt` ("Discovering Event").
public struct MGMTDiscovering: Hashable, Sendable {
    /// Address types bits 1 and 2 (LE public and random): what LE discovery asks for.
    public static let lowEnergy: UInt8 = 0x06

    public var addressTypes: UInt8
    public var isDiscovering: Bool

    public init(addressTypes: UInt8 = lowEnergy, isDiscovering: Bool) {
        self.addressTypes = addressTypes
        self.isDiscovering = isDiscovering
    }

    /// - Throws: `DecodeError` unless the parameters are 2 bytes.
    public init(parameters bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        addressTypes = try reader.readUInt8("Address_Type")
        isDiscovering = try reader.readUInt8("Discovering") != 0
        try reader.expectEnd("Discovering event")
    }

    public func encode() -> [UInt8] { [addressTypes, isDiscovering ? 1 : 0] }
}
