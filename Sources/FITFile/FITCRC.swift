/// The FIT CRC-16: Garmin's nibble-table CRC, low nibble of each byte first, then the high nibble.
///
/// FIT protocol, "CRC" (FIT SDK `fit_crc.c`). It covers the 12 header bytes in a 14-byte header, and the whole
/// file from byte 0 through the last data byte as the 2-byte file CRC after the data.
public struct FITCRC: Hashable, Sendable {
    public private(set) var value: UInt16 = 0

    public init() {}

    private static let table: [UInt16] = [
        0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
        0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400,
    ]

    @inline(__always)
    public mutating func update(_ byte: UInt8) {
        var crc = value
        var tmp = Self.table[Int(crc & 0xF)]
        crc = (crc >> 4) & 0x0FFF
        crc = crc ^ tmp ^ Self.table[Int(byte & 0xF)]
        tmp = Self.table[Int(crc & 0xF)]
        crc = (crc >> 4) & 0x0FFF
        value = crc ^ tmp ^ Self.table[Int(byte >> 4)]
    }

    public mutating func update<C: Collection<UInt8>>(_ bytes: C) {
        for byte in bytes { update(byte) }
    }

    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        for byte in buffer { update(byte) }
    }

    /// The CRC of `bytes`.
    public static func checksum<C: Collection<UInt8>>(_ bytes: C) -> UInt16 {
        var crc = FITCRC()
        crc.update(bytes)
        return crc.value
    }
}
