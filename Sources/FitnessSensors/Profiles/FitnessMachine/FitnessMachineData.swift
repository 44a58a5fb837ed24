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
    /// The fields every machine's data shares (energy, heart rate, MET, elapsed and remaining time).
    var tail: FitnessMachineDataTail { get set }
}

extension FitnessMachineData {
    public var expendedEnergy: FitnessMachineEnergy? {
        get { tail.expendedEnergy }
        set { tail.expendedEnergy = newValue }
    }
    /// Heart rate in bpm, from a machine's own contact grips or a strap it reads.
    public var heartRate: UInt8? {
        get { tail.heartRate }
        set { tail.heartRate = newValue }
    }
    /// Metabolic equivalent in 1/10.
    public var metabolicEquivalent: UInt8? {
        get { tail.metabolicEquivalent }
        set { tail.metabolicEquivalent = newValue }
    }
    /// Seconds since the machine's workout began.
    public var elapsedTime: UInt16? {
        get { tail.elapsedTime }
        set { tail.elapsedTime = newValue }
    }
    /// Seconds left in the machine's programmed workout.
    public var remainingTime: UInt16? {
        get { tail.remainingTime }
        set { tail.remainingTime = newValue }
    }
}

/// Five fields every Fitness Machine data characteristic carries, on five consecutive flag bits in this order:
/// expended energy (u16 kcal · u16 kcal/h · u8 kcal/min), heart rate (u8 bpm), metabolic equivalent (u8, 1/10),
/// elapsed time (u16 s), remaining time (u16 s). Indoor Bike Data has them on bits 8–12, Rower Data 8–12, Treadmill
/// Data 7–11 and Cross Trainer Data 10–14: one type, decoded, encoded and merged in one place for all four.
///
/// Bluetooth FTMS 1.0 §4.4.1, §4.5.1, §4.7.1, §4.8.1, §4.9.1.
public struct FitnessMachineDataTail: Hashable, Sendable {
    public var expendedEnergy: FitnessMachineEnergy?
    public var heartRate: UInt8?
    public var metabolicEquivalent: UInt8?
    public var elapsedTime: UInt16?
    public var remainingTime: UInt16?

    public init(
        expendedEnergy: FitnessMachineEnergy? = nil, heartRate: UInt8? = nil, metabolicEquivalent: UInt8? = nil,
        elapsedTime: UInt16? = nil, remainingTime: UInt16? = nil
    ) {
        self.expendedEnergy = expendedEnergy
        self.heartRate = heartRate
        self.metabolicEquivalent = metabolicEquivalent
        self.elapsedTime = elapsedTime
        self.remainingTime = remainingTime
    }

    /// Reads the fields whose flags, from `firstBit` on, are set.
    static func read(_ f: FlagFields, firstBit bit: Int, from reader: inout ByteReader) throws(DecodeError) -> Self {
        Self(
            expendedEnergy: try FitnessMachineEnergy.read(if: f.has(bit), from: &reader),
            heartRate: try f.uint8(bit + 1, &reader, "heart rate"),
            metabolicEquivalent: try f.uint8(bit + 2, &reader, "metabolic equivalent"),
            elapsedTime: try f.uint16(bit + 3, &reader, "elapsed time"),
            remainingTime: try f.uint16(bit + 4, &reader, "remaining time"))
    }

    /// Which fields are present, in flag order.
    var presence: [Bool] {
        [expendedEnergy != nil, heartRate != nil, metabolicEquivalent != nil, elapsedTime != nil, remainingTime != nil]
    }

    func write(to writer: inout ByteWriter) {
        expendedEnergy?.write(to: &writer)
        writer.writeIfPresent(heartRate)
        writer.writeIfPresent(metabolicEquivalent)
        writer.writeIfPresent(elapsedTime)
        writer.writeIfPresent(remainingTime)
    }

    /// These fields with a later part's laid over them.
    func merging(_ later: Self) -> Self {
        Self(
            expendedEnergy: later.expendedEnergy ?? expendedEnergy, heartRate: later.heartRate ?? heartRate,
            metabolicEquivalent: later.metabolicEquivalent ?? metabolicEquivalent,
            elapsedTime: later.elapsedTime ?? elapsedTime, remainingTime: later.remainingTime ?? remainingTime)
    }
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
