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
/// Each characteristic declares its fields once, in ``layout`` (bit, wire type, property, unit); decoding, the flags,
/// encoding and merging follow the table.
///
/// Bluetooth FTMS 1.0 §4.4.1 (More Data), §4.5–§4.9.
public protocol FitnessMachineData: GATTCharacteristicValue {
    /// The fields every machine's data shares (energy, heart rate, MET, elapsed and remaining time).
    var tail: FitnessMachineDataTail { get set }
    /// The characteristic's fields, each declared once: what decoding, encoding and merging follow. OpenHealthKit.
    static var layout: FitnessMachineDataFields<Self> { get }
}

extension FitnessMachineData {
    /// Decodes a value: the flags, then each field they name.
    ///
    /// - Throws: ``DecodeError`` naming the first flagged field that is cut short.
    public init(bytes: [UInt8]) throws(DecodeError) { self = try Self.layout.decode(bytes) }

    public func encode() -> [UInt8] { Self.layout.encode(self) }

    /// Whether the record goes on in a later notification (flags bit 0 = 1).
    public var hasMoreData: Bool { Self.layout.hasMoreData(self) }

    /// This part of a record with the fields of a later part laid over it (a field in both takes the later value).
    public func merging(_ later: Self) -> Self { Self.layout.merge(self, later) }

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
/// Data 7–11 and Cross Trainer Data 10–14: one type, laid out once for all four (``FitnessMachineDataField/tail(from:)``).
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
}

/// Units of the Fitness Machine data fields, for readers that want SI values.
public enum FitnessMachineUnits {
    /// Speed fields are in 1/100 km/h: metres per second per step.
    public static let metresPerSecondPerSpeedStep = 0.01 / 3.6
}
