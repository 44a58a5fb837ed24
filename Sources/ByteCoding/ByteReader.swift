/// Why a sequence of bytes could not be decoded, and where.
///
/// Every decoder in this package throws this instead of returning `nil`, so that a caller
/// (a log line, `workout decode`, a fixture reader) can name the byte at fault.
public struct DecodeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was expected or what was wrong, as a phrase ("flags byte", "RR interval").
    public var reason: String
    /// The offset, from the start of the payload, of the first byte that could not be decoded.
    public var offset: Int

    public init(_ reason: String, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String { "\(reason) at byte offset \(offset)" }
}

/// A bounds-checked little-endian reader over a byte buffer.
///
/// `read…` methods move the offset forward; a read past the end throws a ``DecodeError``
/// naming the field and the offset where it was expected. Bluetooth is little-endian throughout
/// (Core Specification Vol 3, Part F §3.3 and Part G §3.3).
public struct ByteReader: Sendable {
    public let bytes: [UInt8]
    /// The offset of the next byte to read.
    public private(set) var offset: Int

    public init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// How many bytes remain to be read.
    public var remaining: Int { bytes.count - offset }
    /// Whether every byte has been read.
    public var isAtEnd: Bool { offset >= bytes.count }

    @inline(__always)
    private mutating func take(_ count: Int, _ field: String) throws(DecodeError) -> Int {
        guard count >= 0, bytes.count - offset >= count else {
            throw DecodeError(
                "expected \(count) byte\(count == 1 ? "" : "s") for \(field), found \(max(0, remaining))",
                at: offset)
        }
        let start = offset
        offset += count
        return start
    }

    public mutating func readUInt8(_ field: String) throws(DecodeError) -> UInt8 {
        bytes[try take(1, field)]
    }

    public mutating func readInt8(_ field: String) throws(DecodeError) -> Int8 {
        Int8(bitPattern: try readUInt8(field))
    }

    public mutating func readUInt16(_ field: String) throws(DecodeError) -> UInt16 {
        let i = try take(2, field)
        return UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8
    }

    public mutating func readInt16(_ field: String) throws(DecodeError) -> Int16 {
        Int16(bitPattern: try readUInt16(field))
    }

    public mutating func readUInt24(_ field: String) throws(DecodeError) -> UInt32 {
        let i = try take(3, field)
        return UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16
    }

    public mutating func readUInt32(_ field: String) throws(DecodeError) -> UInt32 {
        let i = try take(4, field)
        return UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
    }

    public mutating func readInt32(_ field: String) throws(DecodeError) -> Int32 {
        Int32(bitPattern: try readUInt32(field))
    }

    public mutating func readUInt64(_ field: String) throws(DecodeError) -> UInt64 {
        let i = try take(8, field)
        var value: UInt64 = 0
        for k in (0 ..< 8).reversed() { value = value << 8 | UInt64(bytes[i + k]) }
        return value
    }

    public mutating func readInt64(_ field: String) throws(DecodeError) -> Int64 {
        Int64(bitPattern: try readUInt64(field))
    }

    public mutating func readBytes(_ count: Int, _ field: String) throws(DecodeError) -> ArraySlice<UInt8> {
        let i = try take(count, field)
        return bytes[i ..< i + count]
    }

    /// The rest of the buffer, leaving the reader at its end.
    public mutating func readRemaining() -> ArraySlice<UInt8> {
        defer { offset = bytes.count }
        return bytes[min(offset, bytes.count)...]
    }

    /// Throws unless every byte has been read; use where a format has no room for trailing bytes.
    public func expectEnd(_ what: String) throws(DecodeError) {
        if !isAtEnd {
            throw DecodeError(
                "unexpected \(remaining) trailing byte\(remaining == 1 ? "" : "s") after \(what)", at: offset)
        }
    }
}

/// A little-endian byte writer, the mirror of ``ByteReader``.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 16) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func write(_ value: UInt8) { bytes.append(value) }
    public mutating func write(_ value: Int8) { bytes.append(UInt8(bitPattern: value)) }
    public mutating func write(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }
    public mutating func write(_ value: Int16) { write(UInt16(bitPattern: value)) }
    public mutating func writeUInt24(_ value: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
    }
    public mutating func write(_ value: UInt32) {
        write(UInt16(truncatingIfNeeded: value))
        write(UInt16(truncatingIfNeeded: value >> 16))
    }
    public mutating func write(_ value: Int32) { write(UInt32(bitPattern: value)) }
    public mutating func write(_ value: UInt64) {
        write(UInt32(truncatingIfNeeded: value))
        write(UInt32(truncatingIfNeeded: value >> 32))
    }
    public mutating func write(_ value: Int64) { write(UInt64(bitPattern: value)) }
    public mutating func write<S: Sequence>(contentsOf values: S) where S.Element == UInt8 {
        bytes.append(contentsOf: values)
    }
}
