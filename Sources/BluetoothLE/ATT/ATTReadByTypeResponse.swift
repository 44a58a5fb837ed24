import ByteCoding

/// Read By Type Response: handle–value pairs, all values of the same length.
///
/// `09 · length (u8, bytes per pair, 2 + value length) · {handle (u16) · value}+`. The value of a
/// characteristic declaration is decoded by ``GATTCharacteristicDeclaration``.
///
/// Core 5.3 Vol 3 Part F §3.4.4.2.
public struct ATTReadByTypeResponse: ATTProtocolDataUnit {
    public static let opcode = ATTOpcode.readByTypeResponse

    public struct Entry: Hashable, Sendable {
        public var handle: UInt16
        public var value: [UInt8]

        public init(handle: UInt16, value: [UInt8]) {
            self.handle = handle
            self.value = value
        }
    }

    /// At least one entry; every value has the same length (at most 253 bytes).
    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = try Self.reader(for: bytes)
        let lengthOffset = reader.offset
        let length = Int(try reader.readUInt8("length"))
        guard length >= 2 else {
            throw DecodeError("Read By Type pair length \(length) is shorter than a handle", at: lengthOffset)
        }
        entries = []
        repeat {
            let handle = try reader.readUInt16("attribute handle")
            let value = try reader.readBytes(length - 2, "attribute value")
            entries.append(Entry(handle: handle, value: Array(value)))
        } while !reader.isAtEnd
    }

    public func encode() -> [UInt8] {
        let length = 2 + (entries.first?.value.count ?? 0)
        var writer = Self.writer(capacity: 2 + entries.count * length)
        writer.write(UInt8(truncatingIfNeeded: length))
        for entry in entries {
            writer.write(entry.handle)
            writer.write(contentsOf: entry.value)
        }
        return writer.bytes
    }
}
