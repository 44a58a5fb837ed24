import ByteCoding

/// The layout of one Fitness Machine data characteristic as a table: the flags' width, then each field once, in
/// flag order (its bit, its wire type, the property it fills). Decoding, the flags, encoding and merging the parts of
/// a record are written once here, over the table.
///
/// Bluetooth FTMS 1.0 §4.6–§4.9: each characteristic is a flags field, then the fields whose bits are set, in bit
/// order (bit 0, More Data, is inverted: its field is present when the bit is 0). OpenHealthKit.
public struct FitnessMachineDataFields<Data: Sendable>: Sendable {
    /// A value with no field present, which decoding fills.
    let empty: Data
    /// The flags field's width on the wire: 16 bits, or 24 (Cross Trainer Data).
    let flagsWidth: Int
    let fields: [FitnessMachineDataField<Data>]

    /// `fields`, then the five every machine shares from bit `tail` on (``FitnessMachineDataTail``), then `after`.
    init(
        empty: Data, flagsWidth: Int = 16, _ fields: [FitnessMachineDataField<Data>], tail: Int,
        after: [FitnessMachineDataField<Data>] = []
    ) where Data: FitnessMachineData {
        self.empty = empty
        self.flagsWidth = flagsWidth
        self.fields = fields + FitnessMachineDataField.tail(from: tail) + after
    }

    /// Reads the flags, then each field its bit names, in table order.
    ///
    /// - Throws: ``DecodeError`` naming the first flagged field that is cut short.
    func decode(_ bytes: [UInt8]) throws(DecodeError) -> Data {
        var reader = ByteReader(bytes)
        let flags = flagsWidth == 24 ? try reader.readUInt24("flags") : UInt32(try reader.readUInt16("flags"))
        var value = empty
        for field in fields where (flags & 1 << field.bit != 0) == field.presentWhenSet {
            try field.read(&reader, &value)
        }
        return value
    }

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
public struct FitnessMachineDataField<Data>: Sendable {
    let bit: Int
    /// True when the field is present with its bit set; false for More Data (bit 0), present with its bit clear.
    let presentWhenSet: Bool
    let read: @Sendable (inout ByteReader, inout Data) throws(DecodeError) -> Void
    let write: @Sendable (Data, inout ByteWriter) -> Void
    let isPresent: @Sendable (Data) -> Bool
    let merge: @Sendable (inout Data, Data) -> Void

    /// A field on `bit` whose value fills `property`; `names` name its parts in a ``DecodeError``.
    static func field<Value: FitnessMachineWireValue>(
        _ property: WritableKeyPath<Data, Value?> & Sendable, bit: Int, _ names: String...
    ) -> Self {
        Self(
            bit: bit, presentWhenSet: bit != 0,
            read: { (reader: inout ByteReader, value: inout Data) throws(DecodeError) in
                value[keyPath: property] = try Value.read(from: &reader, names)
            },
            write: { value, writer in value[keyPath: property]?.write(to: &writer) },
            isPresent: { $0[keyPath: property] != nil },
            merge: { merged, later in
                if let field = later[keyPath: property] { merged[keyPath: property] = field }
            })
    }

    /// A flag with no bytes (Cross Trainer Data's movement direction); a later part's flag wins.
    static func flag(_ property: WritableKeyPath<Data, Bool> & Sendable, bit: Int) -> Self {
        Self(
            bit: bit, presentWhenSet: true,
            read: { (_: inout ByteReader, value: inout Data) throws(DecodeError) in value[keyPath: property] = true },
            write: { _, _ in }, isPresent: { $0[keyPath: property] },
            merge: { merged, later in merged[keyPath: property] = later[keyPath: property] })
    }
}

extension FitnessMachineDataField where Data: FitnessMachineData {
    /// The five fields every machine's data ends with (``FitnessMachineDataTail``), on five bits from `bit` on.
    static func tail(from bit: Int) -> [Self] {
        [
            .field(\.tail.expendedEnergy, bit: bit, "total energy", "energy per hour", "energy per minute"),
            .field(\.tail.heartRate, bit: bit + 1, "heart rate"),
            .field(\.tail.metabolicEquivalent, bit: bit + 2, "metabolic equivalent"),
            .field(\.tail.elapsedTime, bit: bit + 3, "elapsed time"),
            .field(\.tail.remainingTime, bit: bit + 4, "remaining time"),
        ]
    }
}

/// A value as a Fitness Machine data field carries it: little-endian, its parts in order.
protocol FitnessMachineWireValue: Sendable {
    /// Reads the value; `names` name its parts, in order, for a ``DecodeError``.
    static func read(from reader: inout ByteReader, _ names: [String]) throws(DecodeError) -> Self
    func write(to writer: inout ByteWriter)
}

/// An integer field: little-endian, in ``wireSize`` bytes.
protocol FitnessMachineWireInteger: FixedWidthInteger, FitnessMachineWireValue {
    static var wireSize: Int { get }
}

extension FitnessMachineWireInteger {
    static func read(from reader: inout ByteReader, _ names: [String]) throws(DecodeError) -> Self {
        let bytes = try reader.readBytes(wireSize, names[0])
        var value: UInt32 = 0
        for (shift, byte) in zip(stride(from: 0, to: 32, by: 8), bytes) { value |= UInt32(byte) << shift }
        return Self(truncatingIfNeeded: value)
    }
    func write(to writer: inout ByteWriter) {
        let value = UInt32(truncatingIfNeeded: self)
        for shift in stride(from: 0, to: 8 * Self.wireSize, by: 8) { writer.write(UInt8(truncatingIfNeeded: value >> shift)) }
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
    static func read(from reader: inout ByteReader, _ names: [String]) throws(DecodeError) -> Self {
        var values: [Element] = []
        for name in names { values.append(try Element.read(from: &reader, [name])) }
        return values
    }
    func write(to writer: inout ByteWriter) { for value in self { value.write(to: &writer) } }
}

extension FitnessMachineEnergy: FitnessMachineWireValue {
    static func read(from reader: inout ByteReader, _ names: [String]) throws(DecodeError) -> Self {
        Self(
            total: try reader.readUInt16(names[0]), perHour: try reader.readUInt16(names[1]),
            perMinute: try reader.readUInt8(names[2]))
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
    static func read(from reader: inout ByteReader, _ names: [String]) throws(DecodeError) -> Self {
        Self(wire: try First.read(from: &reader, [names[0]]), try Second.read(from: &reader, [names[1]]))
    }
    func write(to writer: inout ByteWriter) {
        wire.0.write(to: &writer)
        wire.1.write(to: &writer)
    }
}
