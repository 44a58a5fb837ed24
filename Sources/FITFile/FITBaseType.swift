/// A FIT base type: how a field's bytes are laid out and which value means "invalid".
///
/// FIT protocol, "Base Types" table (FIT SDK `fit_base_type`): the id's low 5 bits number the type and
/// bit 7 marks a multi-byte type whose byte order follows the definition's architecture.
/// A field whose size is a multiple of its base type's size is an array of that type.
public struct FITBaseType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let `enum` = FITBaseType(rawValue: 0x00)
    public static let sint8 = FITBaseType(rawValue: 0x01)
    public static let uint8 = FITBaseType(rawValue: 0x02)
    public static let sint16 = FITBaseType(rawValue: 0x83)
    public static let uint16 = FITBaseType(rawValue: 0x84)
    public static let sint32 = FITBaseType(rawValue: 0x85)
    public static let uint32 = FITBaseType(rawValue: 0x86)
    public static let string = FITBaseType(rawValue: 0x07)
    public static let float32 = FITBaseType(rawValue: 0x88)
    public static let float64 = FITBaseType(rawValue: 0x89)
    public static let uint8z = FITBaseType(rawValue: 0x0A)
    public static let uint16z = FITBaseType(rawValue: 0x8B)
    public static let uint32z = FITBaseType(rawValue: 0x8C)
    public static let byte = FITBaseType(rawValue: 0x0D)
    public static let sint64 = FITBaseType(rawValue: 0x8E)
    public static let uint64 = FITBaseType(rawValue: 0x8F)
    public static let uint64z = FITBaseType(rawValue: 0x90)

    /// Every base type the protocol defines, in the order of their numbers.
    public static let allKnown: [FITBaseType] = [
        .enum, .sint8, .uint8, .sint16, .uint16, .sint32, .uint32, .string, .float32, .float64,
        .uint8z, .uint16z, .uint32z, .byte, .sint64, .uint64, .uint64z,
    ]

    /// The kind of value a base type holds.
    public enum Kind: Sendable { case unsigned, signed, float, string, bytes }

    /// Whether the protocol defines this base type. An unknown one is read as bytes, never an error
    /// (a newer profile may add types).
    public var isKnown: Bool { Self.table[Int(rawValue & 0x1F)].id == rawValue }

    /// The size in bytes of one element (1 for unknown types, read as bytes).
    public var size: Int { isKnown ? Self.table[Int(rawValue & 0x1F)].size : 1 }

    public var kind: Kind { isKnown ? Self.table[Int(rawValue & 0x1F)].kind : .bytes }

    /// The invalid value's bit pattern (for floats, all ones; for strings, 0).
    public var invalidPattern: UInt64 { isKnown ? Self.table[Int(rawValue & 0x1F)].invalid : 0xFF }

    public var description: String {
        isKnown ? Self.table[Int(rawValue & 0x1F)].name : "base type 0x\(String(rawValue, radix: 16))"
    }

    private struct Entry {
        let id: UInt8, size: Int, kind: Kind, invalid: UInt64, name: String
    }

    /// Indexed by the low 5 bits of the id.
    private static let table: [Entry] = {
        var entries = [Entry](repeating: Entry(id: 0xFF, size: 1, kind: .bytes, invalid: 0xFF, name: "?"), count: 32)
        for entry in [
            Entry(id: 0x00, size: 1, kind: .unsigned, invalid: 0xFF, name: "enum"),
            Entry(id: 0x01, size: 1, kind: .signed, invalid: 0x7F, name: "sint8"),
            Entry(id: 0x02, size: 1, kind: .unsigned, invalid: 0xFF, name: "uint8"),
            Entry(id: 0x83, size: 2, kind: .signed, invalid: 0x7FFF, name: "sint16"),
            Entry(id: 0x84, size: 2, kind: .unsigned, invalid: 0xFFFF, name: "uint16"),
            Entry(id: 0x85, size: 4, kind: .signed, invalid: 0x7FFF_FFFF, name: "sint32"),
            Entry(id: 0x86, size: 4, kind: .unsigned, invalid: 0xFFFF_FFFF, name: "uint32"),
            Entry(id: 0x07, size: 1, kind: .string, invalid: 0, name: "string"),
            Entry(id: 0x88, size: 4, kind: .float, invalid: 0xFFFF_FFFF, name: "float32"),
            Entry(id: 0x89, size: 8, kind: .float, invalid: UInt64.max, name: "float64"),
            Entry(id: 0x0A, size: 1, kind: .unsigned, invalid: 0, name: "uint8z"),
            Entry(id: 0x8B, size: 2, kind: .unsigned, invalid: 0, name: "uint16z"),
            Entry(id: 0x8C, size: 4, kind: .unsigned, invalid: 0, name: "uint32z"),
            Entry(id: 0x0D, size: 1, kind: .bytes, invalid: 0xFF, name: "byte"),
            Entry(id: 0x8E, size: 8, kind: .signed, invalid: 0x7FFF_FFFF_FFFF_FFFF, name: "sint64"),
            Entry(id: 0x8F, size: 8, kind: .unsigned, invalid: UInt64.max, name: "uint64"),
            Entry(id: 0x90, size: 8, kind: .unsigned, invalid: 0, name: "uint64z"),
        ] {
            entries[Int(entry.id & 0x1F)] = entry
        }
        return entries
    }()
}
