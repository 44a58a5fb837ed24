import ByteCoding

/// Find Information Response: handle–type pairs, all with 16-bit or all with 128-bit types.
///
/// `05 · format (1 = 16-bit UUIDs, 2 = 128-bit UUIDs) · {handle (u16) · UUID}+`.
///
/// Core 5.3 Vol 3 Part F §3.4.3.2.
public struct ATTFindInformationResponse: ATTProtocolDataUnit {
    public static let opcode = ATTOpcode.findInformationResponse

    /// The width of every UUID in the response.
    public enum Format: UInt8, Hashable, Sendable {
        case uuid16 = 0x01
        case uuid128 = 0x02

        /// Bytes per UUID.
        public var uuidWidth: Int { self == .uuid16 ? 2 : 16 }
    }

    public struct Entry: Hashable, Sendable {
        public var handle: UInt16
        public var type: BluetoothUUID

        public init(handle: UInt16, type: BluetoothUUID) {
            self.handle = handle
            self.type = type
        }
    }

    public var format: Format
    /// At least one entry; every type is encoded with the width `format` gives.
    public var entries: [Entry]

    public init(format: Format, entries: [Entry]) {
        self.format = format
        self.entries = entries
    }

    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = try Self.reader(for: bytes)
        let formatOffset = reader.offset
        let rawFormat = try reader.readUInt8("format")
        guard let format = Format(rawValue: rawFormat) else {
            throw DecodeError("Find Information format 0x\(hex(rawFormat)) is neither 1 nor 2", at: formatOffset)
        }
        self.format = format
        entries = []
        repeat {
            let handle = try reader.readUInt16("handle")
            let type = try BluetoothUUID.read(from: &reader, width: format.uuidWidth, "attribute type")
            entries.append(Entry(handle: handle, type: type))
        } while !reader.isAtEnd
    }

    public func encode() -> [UInt8] {
        var writer = Self.writer(capacity: 2 + entries.count * (2 + format.uuidWidth))
        writer.write(format.rawValue)
        for entry in entries {
            writer.write(entry.handle)
            if format == .uuid16 {
                // a 128-bit type cannot be listed in 16-bit format; 0x0000 marks the misuse
                writer.write(entry.type.shortValue ?? 0)
            } else {
                writer.write(contentsOf: entry.type.longForm.littleEndianBytes)
            }
        }
        return writer.bytes
    }
}
