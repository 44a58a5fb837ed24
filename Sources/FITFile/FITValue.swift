/// A field's value as stored, before the profile's scale and offset.
///
/// Invalid values (each base type's sentinel, FIT protocol "Base Types") decode to `.invalid`; in an array,
/// an invalid element stays in its place as `.invalid`, and an array of only invalid elements is `.invalid`.
public enum FITValue: Hashable, Sendable {
    case unsigned(UInt64)
    case signed(Int64)
    case float(Double)
    case string(String)
    case bytes([UInt8])
    case array([FITValue])
    case invalid

    /// The value as a number (nil for strings, bytes, arrays and invalid values).
    public var number: Double? {
        switch self {
        case let .unsigned(value): Double(value)
        case let .signed(value): Double(value)
        case let .float(value): value
        default: nil
        }
    }

    /// The value as an unsigned integer (nil when it is not one).
    public var unsigned: UInt64? {
        if case let .unsigned(value) = self { return value }
        return nil
    }

    public var isValid: Bool { self != .invalid }

    /// The elements of an array, or the value alone.
    public var elements: [FITValue] {
        if case let .array(values) = self { return values }
        return [self]
    }

    /// Decodes `size` bytes at `start` as `type`, multi-byte values in the given byte order.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, at start: Int, size: Int, type: FITBaseType, bigEndian: Bool
    ) -> FITValue {
        let kind = type.kind
        if kind == .string {
            var end = start
            while end < start + size && bytes[end] != 0 { end += 1 }
            if end == start { return .invalid }
            return .string(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start ..< end]), as: UTF8.self))
        }
        let elementSize = type.size
        if kind == .bytes || size % elementSize != 0 || size == 0 {
            if size == 0 { return .invalid }
            let slice = bytes[start ..< start + size]
            if kind == .bytes, slice.allSatisfy({ $0 == 0xFF }) { return .invalid }
            return .bytes(Array(slice))
        }
        if size == elementSize {
            return scalar(
                bytes, at: start, size: elementSize, kind: kind, invalid: type.invalidPattern, bigEndian: bigEndian)
        }
        var values: [FITValue] = []
        values.reserveCapacity(size / elementSize)
        var anyValid = false
        var i = start
        while i < start + size {
            let value = scalar(
                bytes, at: i, size: elementSize, kind: kind, invalid: type.invalidPattern, bigEndian: bigEndian)
            if value != .invalid { anyValid = true }
            values.append(value)
            i += elementSize
        }
        return anyValid ? .array(values) : .invalid
    }

    @inline(__always)
    static func scalar(
        _ bytes: UnsafeRawBufferPointer, at start: Int, size: Int, kind: FITBaseType.Kind,
        invalid: UInt64, bigEndian: Bool
    ) -> FITValue {
        var raw: UInt64 = 0
        if bigEndian {
            for k in 0 ..< size { raw = raw << 8 | UInt64(bytes[start + k]) }
        } else {
            for k in stride(from: size - 1, through: 0, by: -1) { raw = raw << 8 | UInt64(bytes[start + k]) }
        }
        if raw == invalid { return .invalid }
        switch kind {
        case .unsigned:
            return .unsigned(raw)
        case .signed:
            let shift = UInt64(64 - 8 * size)
            return .signed(Int64(bitPattern: raw << shift) >> Int64(shift))
        case .float:
            return .float(
                size == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))) : Double(bitPattern: raw))
        case .string, .bytes:
            return .unsigned(raw)
        }
    }

    /// The bytes of this value in a field of `size` bytes and base type `type` (the encoder's half).
    /// An invalid value, or an array shorter than the field, is filled with the type's invalid pattern.
    public func encode(size: Int, type: FITBaseType, bigEndian: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(size)
        let elementSize = type.size
        func pattern(_ raw: UInt64) {
            if bigEndian {
                for k in stride(from: elementSize - 1, through: 0, by: -1) {
                    out.append(UInt8(truncatingIfNeeded: raw >> (8 * UInt64(k))))
                }
            } else {
                for k in 0 ..< elementSize { out.append(UInt8(truncatingIfNeeded: raw >> (8 * UInt64(k)))) }
            }
        }
        func element(_ value: FITValue) {
            switch value {
            case let .unsigned(v): pattern(v)
            case let .signed(v): pattern(UInt64(bitPattern: v))
            case let .float(v): pattern(elementSize == 4 ? UInt64(Float(v).bitPattern) : v.bitPattern)
            default: pattern(type.invalidPattern)
            }
        }
        switch self {
        case let .string(text):
            out.append(contentsOf: text.utf8.prefix(max(0, size - 1)))
        case let .bytes(bytes):
            out.append(contentsOf: bytes.prefix(size))
        case let .array(values):
            for value in values.prefix(size / max(1, elementSize)) { element(value) }
        default:
            if type.kind != .string && type.kind != .bytes && size >= elementSize { element(self) }
        }
        while out.count + elementSize <= size && type.kind != .string && type.kind != .bytes {
            pattern(type.invalidPattern)
        }
        while out.count < size { out.append(type.kind == .string ? 0 : 0xFF) }
        return out
    }
}
