import CSystemd
import Glibc

/// Reads a message's body into ``DBusValue``s and writes values into a message, through sd-bus's non-variadic
/// calls. Runs on the connection's queue only (an sd-bus message belongs to its bus's thread).
enum DBusMessageCoding {
    /// Every value left in the message's body.
    static func readAll(_ message: OpaquePointer) throws(DBusError) -> [DBusValue] {
        var values: [DBusValue] = []
        while let value = try read(message) { values.append(value) }
        return values
    }

    /// The next value, or nil at the end of the body or the enclosing container.
    static func read(_ message: OpaquePointer) throws(DBusError) -> DBusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let peeked = sd_bus_message_peek_type(message, &type, &contents)
        guard peeked > 0 else {
            if peeked < 0 { throw .malformed("the message body could not be read", errno: -peeked) }
            return nil
        }
        let contained = contents.map { String(cString: $0) } ?? ""
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "y"): return .byte(try basic(message, type, UInt8(0)))
        case UInt8(ascii: "b"): return .boolean(try basic(message, type, Int32(0)) != 0)
        case UInt8(ascii: "n"): return .int16(try basic(message, type, Int16(0)))
        case UInt8(ascii: "q"): return .uint16(try basic(message, type, UInt16(0)))
        case UInt8(ascii: "i"): return .int32(try basic(message, type, Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try basic(message, type, UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try basic(message, type, Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try basic(message, type, UInt64(0)))
        case UInt8(ascii: "d"): return .double(try basic(message, type, Double(0)))
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            let pointer = try basic(message, type, UnsafePointer<CChar>?.none)
            let text = pointer.map { String(cString: $0) } ?? ""
            switch UInt8(bitPattern: type) {
            case UInt8(ascii: "s"): return .string(text)
            case UInt8(ascii: "o"): return .objectPath(text)
            default: return .signature(text)
            }
        case UInt8(ascii: "h"):
            let fd = try basic(message, type, Int32(-1))
            let copy = CSystemd_dup_cloexec(fd)
            guard copy >= 0 else { throw .malformed("a passed file descriptor could not be kept", errno: errno) }
            return .unixFD(OwnedDescriptor(copy))
        case UInt8(ascii: "a") where contained == "y":
            var pointer: UnsafeRawPointer?
            var size = 0
            let result = sd_bus_message_read_array(message, code("y"), &pointer, &size)
            guard result >= 0 else { throw .malformed("a byte array could not be read", errno: -result) }
            guard let pointer, size > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: pointer, count: size)))
        case UInt8(ascii: "a"):
            return .array(elementSignature: contained, try container(message, type, contained))
        case UInt8(ascii: "v"):
            let inner = try container(message, type, contained)
            guard inner.count == 1 else { throw .malformed("a variant held \(inner.count) values") }
            return .variant(inner[0])
        case UInt8(ascii: "r"):
            return .structure(try container(message, type, contained))
        case UInt8(ascii: "e"):
            let pair = try container(message, type, contained)
            guard pair.count == 2 else { throw .malformed("a dictionary entry held \(pair.count) values") }
            return .dictionaryEntry(pair[0], pair[1])
        default:
            throw .malformed(
                "the body holds a value of unknown type '\(Character(Unicode.Scalar(UInt8(bitPattern: type))))'")
        }
    }

    private static func basic<T>(_ message: OpaquePointer, _ type: CChar, _ initial: T) throws(DBusError) -> T {
        var value = initial
        let result = withUnsafeMutablePointer(to: &value) { sd_bus_message_read_basic(message, type, $0) }
        guard result > 0 else { throw .malformed("a value could not be read", errno: result < 0 ? -result : nil) }
        return value
    }

    private static func container(
        _ message: OpaquePointer, _ type: CChar, _ contents: String
    ) throws(DBusError) -> [DBusValue] {
        let entered = sd_bus_message_enter_container(message, type, contents)
        guard entered > 0 else {
            throw .malformed("a container could not be entered", errno: entered < 0 ? -entered : nil)
        }
        let values = try readAll(message)
        let exited = sd_bus_message_exit_container(message)
        guard exited >= 0 else { throw .malformed("a container could not be left", errno: -exited) }
        return values
    }

    // MARK: - Writing

    static func append(_ value: DBusValue, to message: OpaquePointer) throws(DBusError) {
        let result: Int32
        switch value {
        case .byte(var byte): result = sd_bus_message_append_basic(message, code("y"), &byte)
        case .boolean(let bool):
            var int: Int32 = bool ? 1 : 0
            result = sd_bus_message_append_basic(message, code("b"), &int)
        case .int16(var int): result = sd_bus_message_append_basic(message, code("n"), &int)
        case .uint16(var int): result = sd_bus_message_append_basic(message, code("q"), &int)
        case .int32(var int): result = sd_bus_message_append_basic(message, code("i"), &int)
        case .uint32(var int): result = sd_bus_message_append_basic(message, code("u"), &int)
        case .int64(var int): result = sd_bus_message_append_basic(message, code("x"), &int)
        case .uint64(var int): result = sd_bus_message_append_basic(message, code("t"), &int)
        case .double(var double): result = sd_bus_message_append_basic(message, code("d"), &double)
        case .string(let text), .objectPath(let text), .signature(let text):
            let type = code(Character(value.signature))
            result = text.withCString { sd_bus_message_append_basic(message, type, $0) }
        case .unixFD(let descriptor):
            var fd = descriptor.take()
            defer { if fd >= 0 { Glibc.close(fd) } }
            result = sd_bus_message_append_basic(message, code("h"), &fd)  // sd-bus keeps its own duplicate
        case .bytes(let bytes):
            result = bytes.withUnsafeBytes { sd_bus_message_append_array(message, code("y"), $0.baseAddress, $0.count) }
        case .array(let element, let elements):
            try open(message, "a", element)
            for element in elements { try append(element, to: message) }
            result = sd_bus_message_close_container(message)
        case .dictionaryEntry(let key, let entryValue):
            try open(message, "e", key.signature + entryValue.signature)
            try append(key, to: message)
            try append(entryValue, to: message)
            result = sd_bus_message_close_container(message)
        case .structure(let fields):
            try open(message, "r", fields.map(\.signature).joined())
            for field in fields { try append(field, to: message) }
            result = sd_bus_message_close_container(message)
        case .variant(let inner):
            try open(message, "v", inner.signature)
            try append(inner, to: message)
            result = sd_bus_message_close_container(message)
        }
        guard result >= 0 else { throw .malformed("a \(value.signature) value could not be written", errno: -result) }
    }

    private static func open(_ message: OpaquePointer, _ type: Character, _ contents: String) throws(DBusError) {
        let result = contents.withCString { sd_bus_message_open_container(message, code(type), $0) }
        guard result >= 0 else { throw .malformed("a container '\(contents)' could not be written", errno: -result) }
    }

    private static func code(_ character: Character) -> CChar { CChar(bitPattern: character.asciiValue ?? 0) }
}
