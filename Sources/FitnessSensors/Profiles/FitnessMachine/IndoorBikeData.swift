import ByteCoding

/// One Indoor Bike Data notification (characteristic 0x2AD2) from a smart trainer or exercise bike.
///
/// Flags u16, then the fields ``layout`` lists (bit 0 clear: instantaneous speed present; bits 13–15 reserved).
///
/// ```swift
/// // A Saris H3 frame: 30.00 km/h, average speed 0, 90 rpm, 250 W.
/// let d = try IndoorBikeData(bytes: [0x46, 0x00, 0xB8, 0x0B, 0x00, 0x00, 0xB4, 0x00, 0xFA, 0x00])
/// d.instantaneousPower  // 250
/// ```
///
/// Bluetooth FTMS 1.0 §4.9 (Indoor Bike Data).
public struct IndoorBikeData: FitnessMachineData {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.indoorBikeData }

    /// Instantaneous speed in 1/100 km/h; nil when this part of the record has More Data set.
    public var instantaneousSpeed: UInt16?
    public var averageSpeed: UInt16?
    /// Instantaneous cadence in 1/2 rpm.
    public var instantaneousCadence: UInt16?
    public var averageCadence: UInt16?
    /// Total distance in metres (24 bits).
    public var totalDistance: UInt32?
    public var resistanceLevel: Int16?
    /// Instantaneous power in watts.
    public var instantaneousPower: Int16?
    public var averagePower: Int16?
    /// Energy, heart rate, metabolic equivalent, elapsed and remaining time: the fields every machine shares.
    public var tail: FitnessMachineDataTail

    public init(
        instantaneousSpeed: UInt16? = nil, averageSpeed: UInt16? = nil, instantaneousCadence: UInt16? = nil,
        averageCadence: UInt16? = nil, totalDistance: UInt32? = nil, resistanceLevel: Int16? = nil,
        instantaneousPower: Int16? = nil, averagePower: Int16? = nil,
        tail: FitnessMachineDataTail = FitnessMachineDataTail()
    ) {
        self.instantaneousSpeed = instantaneousSpeed
        self.averageSpeed = averageSpeed
        self.instantaneousCadence = instantaneousCadence
        self.averageCadence = averageCadence
        self.totalDistance = totalDistance.map { $0 & 0xFF_FFFF }
        self.resistanceLevel = resistanceLevel
        self.instantaneousPower = instantaneousPower
        self.averagePower = averagePower
        self.tail = tail
    }

    /// Each field once, in flag order: bit, property, name (wire type and unit in the comment); FTMS 1.0 §4.9.1.
    public static let layout = FitnessMachineDataFields<Self>(
        empty: Self(),
        [
            .field(bit: 0, "instantaneous speed") { $1(&$0.instantaneousSpeed) },  // u16, 1/100 km/h
            .field(bit: 1, "average speed") { $1(&$0.averageSpeed) },  // u16, 1/100 km/h
            .field(bit: 2, "instantaneous cadence") { $1(&$0.instantaneousCadence) },  // u16, 1/2 rpm
            .field(bit: 3, "average cadence") { $1(&$0.averageCadence) },  // u16, 1/2 rpm
            .field(bit: 4, "total distance") { $1(&$0.totalDistance) },  // u24, m
            .field(bit: 5, "resistance level") { $1(&$0.resistanceLevel) },  // s16, unitless
            .field(bit: 6, "instantaneous power") { $1(&$0.instantaneousPower) },  // s16, W
            .field(bit: 7, "average power") { $1(&$0.averagePower) },  // s16, W
        ], tail: 8)  // energy, heart rate, MET, elapsed, remaining time: bits 8–12

    /// The flags field ``encode()`` writes.
    public var flags: UInt16 { UInt16(Self.layout.flags(of: self)) }

    /// Instantaneous speed in m/s, when present.
    public var speedMetresPerSecond: Double? {
        instantaneousSpeed.map { Double($0) * FitnessMachineUnits.metresPerSecondPerSpeedStep }
    }
    /// Instantaneous cadence in rpm, when present.
    public var cadenceRPM: Double? { instantaneousCadence.map { Double($0) / 2 } }
}
