import ByteCoding

/// One Cross Trainer Data notification (characteristic 0x2ACE) from an elliptical trainer.
///
/// Flags **u24** (unlike the other data characteristics), then the fields ``layout`` lists (bit 0 clear:
/// instantaneous speed present; bit 15: the machine moves backward; bits 16–23 reserved).
///
/// Bluetooth FTMS 1.0 §4.7 (Cross Trainer Data).
public struct CrossTrainerData: FitnessMachineData {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.crossTrainerData }

    public var instantaneousSpeed: UInt16?
    public var averageSpeed: UInt16?
    public var totalDistance: UInt32?
    /// Steps per minute and average step rate.
    public var stepRate: [UInt16]?
    public var strideCount: UInt16?
    /// Positive and negative elevation gain.
    public var elevationGain: [UInt16]?
    /// Inclination and ramp angle setting.
    public var inclination: [Int16]?
    public var resistanceLevel: Int16?
    public var instantaneousPower: Int16?
    public var averagePower: Int16?
    /// Energy, heart rate, metabolic equivalent, elapsed and remaining time: the fields every machine shares.
    public var tail: FitnessMachineDataTail
    public var movesBackward: Bool

    public init(
        instantaneousSpeed: UInt16? = nil, averageSpeed: UInt16? = nil, totalDistance: UInt32? = nil,
        stepRate: [UInt16]? = nil, strideCount: UInt16? = nil, elevationGain: [UInt16]? = nil,
        inclination: [Int16]? = nil, resistanceLevel: Int16? = nil, instantaneousPower: Int16? = nil,
        averagePower: Int16? = nil, tail: FitnessMachineDataTail = FitnessMachineDataTail(),
        movesBackward: Bool = false
    ) {
        self.instantaneousSpeed = instantaneousSpeed
        self.averageSpeed = averageSpeed
        self.totalDistance = totalDistance.map { $0 & 0xFF_FFFF }
        self.stepRate = stepRate.map { Array(($0 + [0, 0]).prefix(2)) }
        self.strideCount = strideCount
        self.elevationGain = elevationGain.map { Array(($0 + [0, 0]).prefix(2)) }
        self.inclination = inclination.map { Array(($0 + [0, 0]).prefix(2)) }
        self.resistanceLevel = resistanceLevel
        self.instantaneousPower = instantaneousPower
        self.averagePower = averagePower
        self.tail = tail
        self.movesBackward = movesBackward
    }

    /// Each field once, in flag order: bit, property, name (wire type and unit in the comment); FTMS 1.0 §4.7.1.
    public static let layout = FitnessMachineDataFields<Self>(
        empty: Self(),
        flagsWidth: 24,
        [
            .field(bit: 0, "instantaneous speed") { $1(&$0.instantaneousSpeed) },  // u16, 1/100 km/h
            .field(bit: 1, "average speed") { $1(&$0.averageSpeed) },  // u16, 1/100 km/h
            .field(bit: 2, "total distance") { $1(&$0.totalDistance) },  // u24, m
            .field(bit: 3, "steps per minute", "average step rate") { $1(&$0.stepRate) },  // u16 · u16
            .field(bit: 4, "stride count") { $1(&$0.strideCount) },  // u16, 1/10
            // u16 · u16, m
            .field(bit: 5, "positive elevation gain", "negative elevation gain") { $1(&$0.elevationGain) },
            .field(bit: 6, "inclination", "ramp angle setting") { $1(&$0.inclination) },  // s16, 1/10 % · s16, 1/10 °
            .field(bit: 7, "resistance level") { $1(&$0.resistanceLevel) },  // s16, unitless
            .field(bit: 8, "instantaneous power") { $1(&$0.instantaneousPower) },  // s16, W
            .field(bit: 9, "average power") { $1(&$0.averagePower) },  // s16, W
        ], tail: 10, after: [.flag(bit: 15) { $1(&$0.movesBackward) }])  // the shared five on bits 10–14

    /// The flags field ``encode()`` writes (24 bits).
    public var flags: UInt32 { Self.layout.flags(of: self) }
}
