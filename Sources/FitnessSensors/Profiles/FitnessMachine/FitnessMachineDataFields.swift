import ByteCoding

/// The layout of one Fitness Machine data characteristic as a table: the flags' width, then each field once, in
/// flag order (its bit, its wire type, the property it fills). Decoding, the flags, encoding and merging the parts of
/// a record are written once here, over the table.
///
/// Bluetooth FTMS 1.0 §4.6–§4.9: each characteristic is a flags field, then the fields whose bits are set, in bit
/// order (bit 0, More Data, is inverted: its field is present when the bit is 0). OpenHealthKit.
///
/// A class, like its fields, so that a decode touches one reference for the table and one a present field.
public final class FitnessMachineDataFields<Data: Sendable>: Sendable {
    /// A value with no field present, which decoding fills.
    let empty: Data
    /// The flags field's width on the wire: 16 bits, or 24 (Cross Trainer Data).
    let flagsWidth: Int
    let fields: [FitnessMachineDataField<Data>]
    /// Each field's flag bit and whether it is present with the bit set: what a decode tests before it reads.
    private let presence: [(mask: UInt32, whenSet: Bool)]

    /// `fields`, then the five every machine shares from bit `tail` on (``FitnessMachineDataTail``), then `after`.
    init(
        empty: Data, flagsWidth: Int = 16, _ fields: [FitnessMachineDataField<Data>], tail: Int,
        after: [FitnessMachineDataField<Data>] = []
    ) where Data: FitnessMachineData {
        self.empty = empty
        self.flagsWidth = flagsWidth
        self.fields = fields + FitnessMachineDataField.tail(from: tail) + after
        presence = self.fields.map { (1 << $0.bit, $0.presentWhenSet) }
        precondition(self.fields.first?.bit == 0, "a layout starts with its More Data field (bit 0)")
    }

    /// Reads the flags, then each field its bit names, in table order.
    ///
    /// - Throws: ``DecodeError`` naming the first flagged field that is cut short.
    func decode(_ bytes: [UInt8]) throws(DecodeError) -> Data {
        var reader = ByteReader(bytes)
        let flags = flagsWidth == 24 ? try reader.readUInt24("flags") : UInt32(try reader.readUInt16("flags"))
        var value = empty
        for index in presence.indices where (flags & presence[index].mask != 0) == presence[index].whenSet {
            try fields[index].read(&reader, &value)
        }
        return value
    }

    /// Whether a value has More Data set: its bit-0 field is absent.
    func hasMoreData(_ value: Data) -> Bool { !fields[0].isPresent(value) }

    /// The flags a value's fields set.
    func flags(of value: Data) -> UInt32 {
        var flags: UInt32 = 0
        for field in fields where field.isPresent(value) == field.presentWhenSet { flags |= 1 << field.bit }
        return flags
    }

    /// The flags, then the fields that are present, in table order.
    func encode(_ value: Data) -> [UInt8] {
        var writer = ByteWriter(capacity: 40)
        if flagsWidth == 24 { writer.writeUInt24(flags(of: value)) } else { writer.write(UInt16(flags(of: value))) }
        for field in fields where field.isPresent(value) { field.write(value, &writer) }
        return writer.bytes
    }

    /// `earlier` with the fields present in `later` laid over it (a field in both takes the later value).
    func merge(_ earlier: Data, _ later: Data) -> Data {
        var merged = earlier
        for field in fields { field.merge(&merged, later) }
        return merged
    }
}

/// One field of a Fitness Machine data characteristic: its flag bit and how it is read, written, found present and
/// merged, made from the property it fills. OpenHealthKit.
///
/// A property is named by an `access` closure that hands it, in place, to its argument (`{ $1(&$0.averagePower) }`):
/// a key path the optimizer sees through (a `WritableKeyPath` applied at run time costs ten times the decode).
///
/// A class, so that walking a table touches one reference a field rather than copying its four closures.
public final class FitnessMachineDataField<Data>: Sendable {
    /// How a field names its property: `{ $1(&$0.property) }`.
    typealias Access<Value> = @Sendable (inout Data, (inout Value) -> Void) -> Void

    let bit: Int
    /// True when the field is present with its bit set; false for More Data (bit 0), present with its bit clear.
    let presentWhenSet: Bool
    let read: @Sendable (inout ByteReader, inout Data) throws(DecodeError) -> Void
    /// Writes the field's bytes, when it is present.
    let write: @Sendable (Data, inout ByteWriter) -> Void
    let isPresent: @Sendable (Data) -> Bool
    let merge: @Sendable (inout Data, Data) -> Void

    private init(
        bit: Int, presentWhenSet: Bool,
        read: @escaping @Sendable (inout ByteReader, inout Data) throws(DecodeError) -> Void,
        write: @escaping @Sendable (Data, inout ByteWriter) -> Void, isPresent: @escaping @Sendable (Data) -> Bool,
        merge: @escaping @Sendable (inout Data, Data) -> Void
    ) {
        self.bit = bit
        self.presentWhenSet = presentWhenSet
        self.read = read
        self.write = write
        self.isPresent = isPresent
        self.merge = merge
    }

    /// A field on `bit` whose value fills the property `access` names; `names` name its parts in a ``DecodeError``.
    static func field<Value: FitnessMachineWireValue>(
        bit: Int, _ names: String..., access: @escaping Access<Value?>
    ) -> FitnessMachineDataField {
        FitnessMachineDataField(
            bit: bit, presentWhenSet: bit != 0,
            read: { (reader: inout ByteReader, value: inout Data) throws(DecodeError) in
                let field = try Value.read(from: &reader, names[...])
                access(&value) { $0 = field }
            },
            write: { value, writer in
                var value = value
                access(&value) { $0?.write(to: &writer) }
            },
            isPresent: { value in
                var (value, present) = (value, false)
                access(&value) { present = $0 != nil }
                return present
            },
            merge: { merged, later in
                var later = later
                access(&later) { field in if let field { access(&merged) { $0 = field } } }
            })
    }

    /// A flag with no bytes (Cross Trainer Data's movement direction); a later part's flag wins.
    static func flag(bit: Int, access: @escaping Access<Bool>) -> FitnessMachineDataField {
        FitnessMachineDataField(
            bit: bit, presentWhenSet: true,
            read: { (_: inout ByteReader, value: inout Data) throws(DecodeError) in access(&value) { $0 = true } },
            write: { _, _ in },
            isPresent: { value in
                var (value, set) = (value, false)
                access(&value) { set = $0 }
                return set
            },
            merge: { merged, later in
                var later = later
                access(&later) { flag in access(&merged) { $0 = flag } }
            })
    }
}

extension FitnessMachineDataField where Data: FitnessMachineData {
    /// The five fields every machine's data ends with (``FitnessMachineDataTail``), on five bits from `bit` on.
    static func tail(from bit: Int) -> [FitnessMachineDataField] {
        [
            .field(bit: bit, "total energy", "energy per hour", "energy per minute") { $1(&$0.tail.expendedEnergy) },
            .field(bit: bit + 1, "heart rate") { $1(&$0.tail.heartRate) },
            .field(bit: bit + 2, "metabolic equivalent") { $1(&$0.tail.metabolicEquivalent) },
            .field(bit: bit + 3, "elapsed time") { $1(&$0.tail.elapsedTime) },
            .field(bit: bit + 4, "remaining time") { $1(&$0.tail.remainingTime) },
        ]
    }
}

/// A value as a Fitness Machine data field carries it: little-endian, its parts in order.
protocol FitnessMachineWireValue: Sendable {
    /// Reads the value; `names` name its parts, in order, for a ``DecodeError``.
    static func read(from reader: inout ByteReader, _ names: ArraySlice<String>) throws(DecodeError) -> Self
    func write(to writer: inout ByteWriter)
}

/// An integer field: little-endian, in ``wireSize`` bytes.
protocol FitnessMachineWireInteger: FixedWidthInteger, FitnessMachineWireValue {
    static var wireSize: Int { get }
}

extension FitnessMachineWireInteger {
    static func read(from reader: inout ByteReader, _ names: ArraySlice<String>) throws(DecodeError) -> Self {
        let name = names[names.startIndex]
        switch wireSize {
        case 1: return Self(truncatingIfNeeded: try reader.readUInt8(name))
        case 2: return Self(truncatingIfNeeded: try reader.readUInt16(name))
        default: return Self(truncatingIfNeeded: try reader.readUInt24(name))
        }
    }
    func write(to writer: inout ByteWriter) {
        switch Self.wireSize {
        case 1: writer.write(UInt8(truncatingIfNeeded: self))
        case 2: writer.write(UInt16(truncatingIfNeeded: self))
        default: writer.writeUInt24(UInt32(truncatingIfNeeded: self))
        }
    }
}

extension UInt8: FitnessMachineWireInteger { static var wireSize: Int { 1 } }
extension UInt16: FitnessMachineWireInteger { static var wireSize: Int { 2 } }
extension Int16: FitnessMachineWireInteger { static var wireSize: Int { 2 } }
/// Total distance, the one 32-bit property: 24 bits on the wire (FTMS 1.0 §4.6–§4.9, "uint24").
extension UInt32: FitnessMachineWireInteger { static var wireSize: Int { 3 } }

/// A pair of values on one bit (Cross Trainer Data's step rates, elevation gains, inclination and ramp angle):
/// one element per name.
extension Array: FitnessMachineWireValue where Element: FitnessMachineWireValue {
    static func read(from reader: inout ByteReader, _ names: ArraySlice<String>) throws(DecodeError) -> Self {
        var values: [Element] = []
        for index in names.indices { values.append(try Element.read(from: &reader, names[index ... index])) }
        return values
    }
    func write(to writer: inout ByteWriter) { for value in self { value.write(to: &writer) } }
}

extension FitnessMachineEnergy: FitnessMachineWireValue {
    static func read(from reader: inout ByteReader, _ names: ArraySlice<String>) throws(DecodeError) -> Self {
        let first = names.startIndex
        return Self(
            total: try reader.readUInt16(names[first]), perHour: try reader.readUInt16(names[first + 1]),
            perMinute: try reader.readUInt8(names[first + 2]))
    }
    func write(to writer: inout ByteWriter) {
        writer.write(total)
        writer.write(perHour)
        writer.write(perMinute)
    }
}

/// Two values on one bit, in order (a rower's stroke rate and count, a treadmill's inclination and ramp angle).
protocol FitnessMachineWirePair: FitnessMachineWireValue {
    associatedtype First: FitnessMachineWireValue
    associatedtype Second: FitnessMachineWireValue
    init(wire first: First, _ second: Second)
    var wire: (First, Second) { get }
}

extension FitnessMachineWirePair {
    static func read(from reader: inout ByteReader, _ names: ArraySlice<String>) throws(DecodeError) -> Self {
        Self(
            wire: try First.read(from: &reader, names.prefix(1)), try Second.read(from: &reader, names.dropFirst()))
    }
    func write(to writer: inout ByteWriter) {
        wire.0.write(to: &writer)
        wire.1.write(to: &writer)
    }
}
