import Glibc
import Synchronization

/// One D-Bus value, as a message body carries it: what sd-bus reads out of a reply or a signal and what a call
/// is written from.
///
/// Reading is generic (``DBusMessageReader``): every body becomes a tree of these, and the BlueZ layer then takes
/// apart only what it expects, with one clear error for anything else (``BlueZReplyError``), so a malformed or
/// unexpected reply never reaches an unchecked cast.
///
/// D-Bus Specification 0.41, "Type System".
public indirect enum DBusValue: Sendable, Equatable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// A file descriptor passed with the message, duplicated for the reader (closed when the last reference goes).
    case unixFD(OwnedDescriptor)
    /// `ay`, kept as bytes (characteristic values).
    case bytes([UInt8])
    /// An array of any other element type, with that type's signature (needed to write an empty one).
    case array(elementSignature: String, [DBusValue])
    /// A dictionary entry; only inside an array (`a{…}`).
    case dictionaryEntry(DBusValue, DBusValue)
    case structure([DBusValue])
    case variant(DBusValue)

    /// The value's type signature.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .bytes: "ay"
        case .array(let element, _): "a" + element
        case .dictionaryEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    /// A string array (`as`).
    public static func strings(_ values: [String]) -> DBusValue {
        .array(elementSignature: "s", values.map(DBusValue.string))
    }

    /// A property map (`a{sv}`).
    public static func properties(_ entries: [(String, DBusValue)]) -> DBusValue {
        .array(elementSignature: "{sv}", entries.map { .dictionaryEntry(.string($0.0), .variant($0.1)) })
    }

    // MARK: - Taking values apart

    /// The value inside any number of variants.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    public var string: String? {
        switch unwrapped {
        case .string(let value), .objectPath(let value): value
        default: nil
        }
    }

    public var bool: Bool? {
        if case .boolean(let value) = unwrapped { return value }
        return nil
    }

    /// Any integer type that fits an `Int`.
    public var integer: Int? {
        switch unwrapped {
        case .byte(let value): Int(value)
        case .int16(let value): Int(value)
        case .uint16(let value): Int(value)
        case .int32(let value): Int(value)
        case .uint32(let value): Int(value)
        case .int64(let value): Int(value)
        case .uint64(let value): Int(exactly: value)
        default: nil
        }
    }

    /// `ay` (or an array of bytes written element by element).
    public var byteArray: [UInt8]? {
        switch unwrapped {
        case .bytes(let bytes): return bytes
        case .array("y", let elements):
            return elements.map { if case .byte(let byte) = $0 { byte } else { 0 } }
        default: return nil
        }
    }

    /// `as` or `ao`.
    public var stringArray: [String]? {
        guard case .array(_, let elements) = unwrapped else { return nil }
        let strings = elements.compactMap(\.string)
        return strings.count == elements.count ? strings : nil
    }

    /// A dictionary with string or object-path keys (`a{sv}`, `a{oa{…}}`, …); later duplicates win.
    public var stringKeyed: [String: DBusValue]? {
        guard case .array(_, let elements) = unwrapped else { return nil }
        var dictionary: [String: DBusValue] = [:]
        for element in elements {
            guard case .dictionaryEntry(let key, let value) = element, let key = key.string else { return nil }
            dictionary[key] = value
        }
        return dictionary
    }
}

/// A file descriptor that closes itself when the last reference to it goes, unless taken.
public final class OwnedDescriptor: Sendable, Equatable {
    private let descriptor: Atomic<Int32>

    public init(_ fd: Int32) { descriptor = Atomic(fd) }

    deinit {
        let fd = descriptor.load(ordering: .acquiring)
        if fd >= 0 { Glibc.close(fd) }
    }

    /// The descriptor, now the caller's to close; -1 when already taken.
    public func take() -> Int32 { descriptor.exchange(-1, ordering: .acquiringAndReleasing) }

    public static func == (lhs: OwnedDescriptor, rhs: OwnedDescriptor) -> Bool { lhs === rhs }
}
