import ByteCoding

/// One Treadmill Data notification (characteristic 0x2ACD).
///
/// Flags u16, then the fields ``layout`` lists (bit 0 clear: instantaneous speed present; bits 13–15 reserved).
/// Bytes after the last flagged field are ignored.
///
/// Bluetooth FTMS 1.0 §4.6 (Treadmill Data).
public struct TreadmillData: FitnessMachineData {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.treadmillData }

    /// Inclination (1/10 %) and ramp angle setting (1/10 °).
    public struct Inclination: Hashable, Sendable, FitnessMachineWirePair {
        public var inclination: Int16
        public var rampAngle: Int16
        public init(inclination: Int16, rampAngle: Int16) {
            (self.inclination, self.rampAngle) = (inclination, rampAngle)
        }
        init(wire inclination: Int16, _ rampAngle: Int16) { self.init(inclination: inclination, rampAngle: rampAngle) }
        var wire: (Int16, Int16) { (inclination, rampAngle) }
        /// The inclination in percent.
        public var percent: Double { Double(inclination) / 10 }
    }

    /// Positive and negative elevation gain, in 1/10 m.
    public struct ElevationGain: Hashable, Sendable, FitnessMachineWirePair {
        public var positive: UInt16
        public var negative: UInt16
        public init(positive: UInt16, negative: UInt16) { (self.positive, self.negative) = (positive, negative) }
        init(wire positive: UInt16, _ negative: UInt16) { self.init(positive: positive, negative: negative) }
        var wire: (UInt16, UInt16) { (positive, negative) }
    }

    /// Force on the belt (N) and power output (W).
    public struct BeltPower: Hashable, Sendable, FitnessMachineWirePair {
        public var force: Int16
        public var power: Int16
        public init(force: Int16, power: Int16) { (self.force, self.power) = (force, power) }
        init(wire force: Int16, _ power: Int16) { self.init(force: force, power: power) }
        var wire: (Int16, Int16) { (force, power) }
    }

    /// Instantaneous speed in 1/100 km/h; nil when this part of the record has More Data set.
    public var instantaneousSpeed: UInt16?
    public var averageSpeed: UInt16?
    /// Total distance in metres (24 bits).
    public var totalDistance: UInt32?
    public var inclination: Inclination?
    public var elevationGain: ElevationGain?
    /// Instantaneous pace in 1/10 km/min.
    public var instantaneousPace: UInt8?
    public var averagePace: UInt8?
    /// Energy, heart rate, metabolic equivalent, elapsed and remaining time: the fields every machine shares.
    public var tail: FitnessMachineDataTail
    public var beltPower: BeltPower?

    public init(
        instantaneousSpeed: UInt16? = nil, averageSpeed: UInt16? = nil, totalDistance: UInt32? = nil,
        inclination: Inclination? = nil, elevationGain: ElevationGain? = nil, instantaneousPace: UInt8? = nil,
        averagePace: UInt8? = nil, tail: FitnessMachineDataTail = FitnessMachineDataTail(),
        beltPower: BeltPower? = nil
    ) {
        self.instantaneousSpeed = instantaneousSpeed
        self.averageSpeed = averageSpeed
        self.totalDistance = totalDistance.map { $0 & 0xFF_FFFF }
        self.inclination = inclination
        self.elevationGain = elevationGain
        self.instantaneousPace = instantaneousPace
        self.averagePace = averagePace
        self.tail = tail
        self.beltPower = beltPower
    }

    /// Each field once, in flag order: bit, property, name (wire type and unit in the comment); FTMS 1.0 §4.6.1.
    public static let layout = FitnessMachineDataFields<Self>(
        empty: Self(),
        [
            .field(bit: 0, "instantaneous speed") { $1(&$0.instantaneousSpeed) },  // u16, 1/100 km/h
            .field(bit: 1, "average speed") { $1(&$0.averageSpeed) },  // u16, 1/100 km/h
            .field(bit: 2, "total distance") { $1(&$0.totalDistance) },  // u24, m
            .field(bit: 3, "inclination", "ramp angle setting") { $1(&$0.inclination) },  // s16, 1/10 % · s16, 1/10 °
            // u16 · u16, 1/10 m
            .field(bit: 4, "positive elevation gain", "negative elevation gain") { $1(&$0.elevationGain) },
            .field(bit: 5, "instantaneous pace") { $1(&$0.instantaneousPace) },  // u8, 1/10 km/min
            .field(bit: 6, "average pace") { $1(&$0.averagePace) },  // u8, 1/10 km/min
        ], tail: 7,  // energy, heart rate, MET, elapsed, remaining time: bits 7–11
        after: [.field(bit: 12, "force on belt", "power output") { $1(&$0.beltPower) }])  // s16, N · s16, W

    /// The flags field ``encode()`` writes.
    public var flags: UInt16 { UInt16(Self.layout.flags(of: self)) }

    /// Instantaneous speed in m/s, when present.
    public var speedMetresPerSecond: Double? {
        instantaneousSpeed.map { Double($0) * FitnessMachineUnits.metresPerSecondPerSpeedStep }
    }
}
