import ByteCoding
import Foundation

/// The protocol-buffers wire types a `.workout` file uses.
enum WireType: UInt8, Sendable {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2

    var name: String {
        switch self {
        case .varint: "a varint"
        case .fixed64: "a 64-bit value"
        case .lengthDelimited: "a length-delimited value"
        }
    }
}

/// Writes protocol-buffers fields: tags and lengths as varints, doubles as 8 little-endian bytes, strings as UTF-8.
/// Fields are written in the order they are called; the caller writes them in increasing field number, as Apple's
/// encoder does.
struct ProtoWriter {
    private(set) var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func tag(_ field: Int, _ wire: WireType) { varint(UInt64(field) << 3 | UInt64(wire.rawValue)) }

    mutating func field(_ field: Int, varint value: UInt64) {
        tag(field, .varint)
        varint(value)
    }

    mutating func field(_ field: Int, double value: Double) {
        tag(field, .fixed64)
        var bits = value.bitPattern
        for _ in 0 ..< 8 {
            bytes.append(UInt8(bits & 0xFF))
            bits >>= 8
        }
    }

    mutating func field(_ field: Int, string value: String) {
        tag(field, .lengthDelimited)
        let utf8 = Array(value.utf8)
        varint(UInt64(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    mutating func field(_ field: Int, message build: (inout ProtoWriter) -> Void) {
        var nested = ProtoWriter()
        build(&nested)
        tag(field, .lengthDelimited)
        varint(UInt64(nested.bytes.count))
        bytes.append(contentsOf: nested.bytes)
    }
}

/// One message read from the wire: its fields by number, each checked against what the message may hold.
///
/// Reading is strict, since a `.workout` file is Apple's fixed schema: a field the message does not have, a field
/// of the wrong wire type, a single field written twice, a varint longer than ten bytes or a length beyond the end
/// throws a `DecodeError` naming the message, the field and the byte offset. Nothing traps.
struct ProtoMessage {
    enum Value {
        case varint(UInt64)
        case fixed64(UInt64)
        case bytes(Range<Int>)
    }

    struct Field {
        var value: Value
        /// Where the field's tag starts.
        var offset: Int
    }

    /// What a message may hold: each field's wire type and whether it repeats.
    struct Schema: Sendable {
        var name: String
        var fields: [Int: (wire: WireType, repeated: Bool)]
    }

    let bytes: [UInt8]
    let schema: Schema
    /// Where the message's bytes start in the file.
    let start: Int
    private(set) var fields: [Int: [Field]] = [:]

    init(_ bytes: [UInt8], range: Range<Int>, schema: Schema) throws(DecodeError) {
        self.bytes = bytes
        self.schema = schema
        self.start = range.lowerBound
        var offset = range.lowerBound
        while offset < range.upperBound {
            let tagOffset = offset
            let key = try Self.readVarint(
                bytes, &offset, end: range.upperBound, what: "a field's tag in \(schema.name)")
            let number = key >> 3
            guard let wire = WireType(rawValue: UInt8(key & 7)) else {
                throw DecodeError(
                    "\(schema.name) has a field of wire type \(key & 7), which a .workout file never uses",
                    at: tagOffset)
            }
            guard number > 0, number <= UInt64(Int32.max) else {
                throw DecodeError("\(schema.name) has a field numbered \(number)", at: tagOffset)
            }
            let field = Int(number)
            guard let expected = schema.fields[field] else {
                throw DecodeError("\(schema.name) has no field \(field)", at: tagOffset)
            }
            guard expected.wire == wire else {
                throw DecodeError(
                    "field \(field) of \(schema.name) should be \(expected.wire.name), not \(wire.name)", at: tagOffset)
            }
            let value: Value
            switch wire {
            case .varint:
                value = .varint(
                    try Self.readVarint(bytes, &offset, end: range.upperBound, what: "field \(field) of \(schema.name)")
                )
            case .fixed64:
                guard range.upperBound - offset >= 8 else {
                    throw DecodeError("field \(field) of \(schema.name) is cut short", at: tagOffset)
                }
                var bits: UInt64 = 0
                for index in 0 ..< 8 { bits |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
                offset += 8
                value = .fixed64(bits)
            case .lengthDelimited:
                let length = try Self.readVarint(
                    bytes, &offset, end: range.upperBound, what: "the length of field \(field) of \(schema.name)")
                guard length <= UInt64(range.upperBound - offset) else {
                    throw DecodeError(
                        "field \(field) of \(schema.name) claims \(length) bytes but only \(range.upperBound - offset) remain",
                        at: tagOffset)
                }
                value = .bytes(offset ..< offset + Int(length))
                offset += Int(length)
            }
            if !expected.repeated, fields[field] != nil {
                throw DecodeError("field \(field) of \(schema.name) appears twice", at: tagOffset)
            }
            fields[field, default: []].append(Field(value: value, offset: tagOffset))
        }
    }

    static func readVarint(
        _ bytes: [UInt8], _ offset: inout Int, end: Int, what: String
    ) throws(DecodeError)
        -> UInt64
    {
        let start = offset
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < end else { throw DecodeError("\(what) is cut short", at: start) }
            let byte = bytes[offset]
            offset += 1
            if shift == 63 && byte > 1 { throw DecodeError("\(what) is a varint beyond 64 bits", at: start) }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { throw DecodeError("\(what) is a varint longer than ten bytes", at: start) }
        }
    }

    func has(_ field: Int) -> Bool { fields[field] != nil }

    /// Where a field is, or the message's start when it is absent.
    func offset(of field: Int) -> Int { fields[field]?.first?.offset ?? start }

    func varint(_ field: Int) -> UInt64? {
        guard case .varint(let value)? = fields[field]?.first?.value else { return nil }
        return value
    }

    func double(_ field: Int) -> Double? {
        guard case .fixed64(let bits)? = fields[field]?.first?.value else { return nil }
        return Double(bitPattern: bits)
    }

    func string(_ field: Int) throws(DecodeError) -> String? {
        guard let found = fields[field]?.first, case .bytes(let range) = found.value else { return nil }
        guard let text = String(validating: bytes[range], as: UTF8.self) else {
            throw DecodeError("field \(field) of \(schema.name) is not UTF-8 text", at: found.offset)
        }
        return text
    }

    func message(_ field: Int, _ schema: Schema) throws(DecodeError) -> ProtoMessage? {
        try messages(field, schema).first
    }

    func messages(_ field: Int, _ schema: Schema) throws(DecodeError) -> [ProtoMessage] {
        var result: [ProtoMessage] = []
        for found in fields[field] ?? [] {
            guard case .bytes(let range) = found.value else { continue }
            result.append(try ProtoMessage(bytes, range: range, schema: schema))
        }
        return result
    }

    /// A required varint field.
    func required(_ field: Int, _ what: String) throws(DecodeError) -> UInt64 {
        guard let value = varint(field) else { throw DecodeError("\(schema.name) has no \(what)", at: start) }
        return value
    }

    /// A required message field.
    func required(_ field: Int, _ schema: Schema, _ what: String) throws(DecodeError) -> ProtoMessage {
        guard let value = try message(field, schema) else {
            throw DecodeError("\(self.schema.name) has no \(what)", at: start)
        }
        return value
    }
}
