import ByteCoding

/// One Rower Data notification (characteristic 0x2AD1).
///
/// Flags u16, then the fields ``layout`` lists (bit 0 clear: stroke rate and count present; bits 13–15 reserved).
///
/// Bluetooth FTMS 1.0 §4.8 (Rower Data).
public struct RowerData: FitnessMachineData {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.rowerData }

    /// The stroke rate (1/2 strokes per minute) and the strokes since the workout began.
    public struct Strokes: Hashable, Sendable, FitnessMachineWirePair {
        public var rate: UInt8
        public var count: UInt16
        public init(rate: UInt8, count: UInt16) { (self.rate, self.count) = (rate, count) }
        init(wire rate: UInt8, _ count: UInt16) { self.init(rate: rate, count: count) }
        var wire: (UInt8, UInt16) { (rate, count) }
        /// Strokes per minute.
        public var perMinute: Double { Double(rate) / 2 }
    }

    /// Stroke rate and count; nil when this part of the record has More Data set.
    public var strokes: Strokes?
    public var averageStrokeRate: UInt8?
    /// Total distance in metres (24 bits).
    public var totalDistance: UInt32?
    /// Instantaneous pace in seconds per 500 m.
    public var instantaneousPace: UInt16?
    public var averagePace: UInt16?
    public var instantaneousPower: Int16?
    public var averagePower: Int16?
    public var resistanceLevel: Int16?
    /// Energy, heart rate, metabolic equivalent, elapsed and remaining time: the fields every machine shares.
    public var tail: FitnessMachineDataTail

    public init(
        strokes: Strokes? = nil, averageStrokeRate: UInt8? = nil, totalDistance: UInt32? = nil,
        instantaneousPace: UInt16? = nil, averagePace: UInt16? = nil, instantaneousPower: Int16? = nil,
        averagePower: Int16? = nil, resistanceLevel: Int16? = nil,
        tail: FitnessMachineDataTail = FitnessMachineDataTail()
    ) {
        self.strokes = strokes
        self.averageStrokeRate = averageStrokeRate
        self.totalDistance = totalDistance.map { $0 & 0xFF_FFFF }
        self.instantaneousPace = instantaneousPace
        self.averagePace = averagePace
        self.instantaneousPower = instantaneousPower
        self.averagePower = averagePower
        self.resistanceLevel = resistanceLevel
        self.tail = tail
    }

    /// Each field once, in flag order: bit, property, name (wire type and unit in the comment); FTMS 1.0 §4.8.1.
    public static let layout = FitnessMachineDataFields<Self>(
        empty: Self(),
        [
            .field(bit: 0, "stroke rate", "stroke count") { $1(&$0.strokes) },  // u8, 1/2 per min · u16
            .field(bit: 1, "average stroke rate") { $1(&$0.averageStrokeRate) },  // u8, 1/2 per min
            .field(bit: 2, "total distance") { $1(&$0.totalDistance) },  // u24, m
            .field(bit: 3, "instantaneous pace") { $1(&$0.instantaneousPace) },  // u16, s per 500 m
            .field(bit: 4, "average pace") { $1(&$0.averagePace) },  // u16, s per 500 m
            .field(bit: 5, "instantaneous power") { $1(&$0.instantaneousPower) },  // s16, W
            .field(bit: 6, "average power") { $1(&$0.averagePower) },  // s16, W
            .field(bit: 7, "resistance level") { $1(&$0.resistanceLevel) },  // s16, unitless
        ], tail: 8)  // energy, heart rate, MET, elapsed, remaining time: bits 8–12

    /// The flags field ``encode()`` writes.
    public var flags: UInt16 { UInt16(Self.layout.flags(of: self)) }

    /// Boat speed in m/s from the instantaneous pace (500 m over the pace), when present and not zero.
    public var speedMetresPerSecond: Double? {
        guard let pace = instantaneousPace, pace > 0 else { return nil }
        return 500 / Double(pace)
    }
}
