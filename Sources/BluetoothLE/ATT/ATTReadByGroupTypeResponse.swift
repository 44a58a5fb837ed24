import ByteCoding

/// Read By Group Type Response: one entry per group, all values of the same length.
///
/// `11 · length (u8, 4 + value length) · {attribute handle (u16) · end group handle (u16) · value}+`.
/// For primary services the value is the service UUID, so the length is 6 or 20.
///
/// Core 5.3 Vol 3 Part F §3.4.4.10.
public struct ATTReadByGroupTypeResponse: ATTProtocolDataUnit {
    public static let opcode = ATTOpcode.readByGroupTypeResponse

    public struct Entry: Hashable, Sendable {
        public var handle: UInt16
        public var endGroupHandle: UInt16
        public var value: [UInt8]

        public init(handle: UInt16, endGroupHandle: UInt16, value: [UInt8]) {
            self.handle = handle
            self.endGroupHandle = endGroupHandle
            self.value = value
        }
    }

    /// At least one entry; every value has the same length (at most 251 bytes).
    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = try Self.reader(for: bytes)
        let lengthOffset = reader.offset
        let length = Int(try reader.readUInt8("length"))
        guard length >= 4 else {
            throw DecodeError("Read By Group Type entry length \(length) is shorter than two handles", at: lengthOffset)
        }
        entries = []
        repeat {
            let handle = try reader.readUInt16("attribute handle")
            let end = try reader.readUInt16("end group handle")
            let value = try reader.readBytes(length - 4, "attribute value")
            entries.append(Entry(handle: handle, endGroupHandle: end, value: Array(value)))
        } while !reader.isAtEnd
    }

    public func encode() -> [UInt8] {
        let length = 4 + (entries.first?.value.count ?? 0)
        var writer = Self.writer(capacity: 2 + entries.count * length)
        writer.write(UInt8(truncatingIfNeeded: length))
        for entry in entries {
            writer.write(entry.handle)
            writer.write(entry.endGroupHandle)
            writer.write(contentsOf: entry.value)
        }
        return writer.bytes
    }
}
