import ByteCoding

/// A Fitness Machine data characteristic (Treadmill, Cross Trainer, Rower or Indoor Bike Data): a flags field, then
/// the fields the flags name, in flag order.
///
/// Bit 0 of the flags is **More Data**, inverted from the other bits: 0 means the first field (instantaneous speed,
/// or a rower's stroke rate and count) is present and the record is complete; 1 means the field is absent and the
/// record goes on in the next notification. A machine whose record does not fit one notification (an ATT MTU of 23
/// leaves 20 bytes) sends its fields over several, the last with More Data 0; ``FitnessMachineReassembler`` joins
/// them.
///
/// Bluetooth FTMS 1.0 §4.4.1 (More Data), §4.5–§4.9.
public protocol FitnessMachineData: GATTCharacteristicValue {
    /// Whether the record goes on in a later notification (flags bit 0 = 1).
    var hasMoreData: Bool { get }
    /// This part of a record with the fields of a later part laid over it (a field in both takes the later value).
    func merging(_ later: Self) -> Self
}

/// Energy a fitness machine reports: total kcal, kcal per hour and kcal per minute.
///
/// Bluetooth FTMS 1.0 §4.4.1 (Expended Energy: u16 kcal · u16 kcal/h · u8 kcal/min).
public struct FitnessMachineEnergy: Hashable, Sendable {
    public var total: UInt16
    public var perHour: UInt16
    public var perMinute: UInt8

    public init(total: UInt16, perHour: UInt16, perMinute: UInt8) {
        self.total = total
        self.perHour = perHour
        self.perMinute = perMinute
    }

    static func read(if present: Bool, from reader: inout ByteReader) throws(DecodeError) -> FitnessMachineEnergy? {
        guard present else { return nil }
        return FitnessMachineEnergy(
            total: try reader.readUInt16("total energy"),
            perHour: try reader.readUInt16("energy per hour"),
            perMinute: try reader.readUInt8("energy per minute"))
    }

    func write(to writer: inout ByteWriter) {
        writer.write(total)
        writer.write(perHour)
        writer.write(perMinute)
    }
}

/// The flag-driven reads and writes every Fitness Machine data characteristic shares.
struct FlagFields {
    let flags: UInt32

    func has(_ bit: Int) -> Bool { flags & (1 << bit) != 0 }

    func uint8(_ bit: Int, _ reader: inout ByteReader, _ field: String) throws(DecodeError) -> UInt8? {
        has(bit) ? try reader.readUInt8(field) : nil
    }

    func uint16(_ bit: Int, _ reader: inout ByteReader, _ field: String) throws(DecodeError) -> UInt16? {
        has(bit) ? try reader.readUInt16(field) : nil
    }

    func int16(_ bit: Int, _ reader: inout ByteReader, _ field: String) throws(DecodeError) -> Int16? {
        has(bit) ? try reader.readInt16(field) : nil
    }

    func uint24(_ bit: Int, _ reader: inout ByteReader, _ field: String) throws(DecodeError) -> UInt32? {
        has(bit) ? try reader.readUInt24(field) : nil
    }

    /// Flags with bit `n` set for each present field, `present[n]`.
    static func flags(_ present: [Bool]) -> UInt32 {
        var flags: UInt32 = 0
        for (bit, isPresent) in present.enumerated() where isPresent { flags |= 1 << bit }
        return flags
    }
}

extension ByteWriter {
    mutating func writeIfPresent(_ value: UInt8?) { if let value { write(value) } }
    mutating func writeIfPresent(_ value: UInt16?) { if let value { write(value) } }
    mutating func writeIfPresent(_ value: Int16?) { if let value { write(value) } }
    mutating func writeUInt24IfPresent(_ value: UInt32?) { if let value { writeUInt24(value) } }
}

/// Units of the Fitness Machine data fields, for readers that want SI values.
public enum FitnessMachineUnits {
    /// Speed fields are in 1/100 km/h: metres per second per step.
    public static let metresPerSecondPerSpeedStep = 0.01 / 3.6
}
