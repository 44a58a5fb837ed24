import ByteCoding

/// One Rower Data notification (characteristic 0x2AD1).
///
/// | flags bit | field | type / unit |
/// |---|---|---|
/// | 0 | More Data: **0** = stroke rate and stroke count present | u8, 1/2 per min · u16 |
/// | 1 | average stroke rate | u8, 1/2 per min |
/// | 2 | total distance | u24, m |
/// | 3 | instantaneous pace | u16, s per 500 m |
/// | 4 | average pace | u16, s per 500 m |
/// | 5 | instantaneous power | s16, W |
/// | 6 | average power | s16, W |
/// | 7 | resistance level | s16, unitless |
/// | 8 | expended energy | see ``FitnessMachineEnergy`` |
/// | 9 | heart rate | u8, bpm |
/// | 10 | metabolic equivalent | u8, 1/10 |
/// | 11 | elapsed time | u16, s |
/// | 12 | remaining time | u16, s |
/// | 13–15 | reserved, ignored | |
///
/// Bluetooth FTMS 1.0 §4.8 (Rower Data).
public struct RowerData: FitnessMachineData {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.rowerData }

    /// The stroke rate (1/2 strokes per minute) and the strokes since the workout began.
    public struct Strokes: Hashable, Sendable {
        public var rate: UInt8
        public var count: UInt16
        public init(rate: UInt8, count: UInt16) {
            self.rate = rate
            self.count = count
        }
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

    /// Decodes a Rower Data value.
    ///
    /// - Throws: ``DecodeError`` naming the first flagged field that is cut short.
    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        let f = FlagFields(flags: UInt32(try reader.readUInt16("flags")))
        strokes =
            f.has(0)
            ? nil : Strokes(rate: try reader.readUInt8("stroke rate"), count: try reader.readUInt16("stroke count"))
        averageStrokeRate = try f.uint8(1, &reader, "average stroke rate")
        totalDistance = try f.uint24(2, &reader, "total distance")
        instantaneousPace = try f.uint16(3, &reader, "instantaneous pace")
        averagePace = try f.uint16(4, &reader, "average pace")
        instantaneousPower = try f.int16(5, &reader, "instantaneous power")
        averagePower = try f.int16(6, &reader, "average power")
        resistanceLevel = try f.int16(7, &reader, "resistance level")
        tail = try FitnessMachineDataTail.read(f, firstBit: 8, from: &reader)
    }

    public var hasMoreData: Bool { strokes == nil }

    /// The flags field ``encode()`` writes.
    public var flags: UInt16 {
        UInt16(
            FlagFields.flags(
                [
                    strokes == nil, averageStrokeRate != nil, totalDistance != nil, instantaneousPace != nil,
                    averagePace != nil,
                    instantaneousPower != nil, averagePower != nil, resistanceLevel != nil,
                ] + tail.presence))
    }

    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 30)
        writer.write(flags)
        if let strokes {
            writer.write(strokes.rate)
            writer.write(strokes.count)
        }
        writer.writeIfPresent(averageStrokeRate)
        writer.writeUInt24IfPresent(totalDistance)
        writer.writeIfPresent(instantaneousPace)
        writer.writeIfPresent(averagePace)
        writer.writeIfPresent(instantaneousPower)
        writer.writeIfPresent(averagePower)
        writer.writeIfPresent(resistanceLevel)
        tail.write(to: &writer)
        return writer.bytes
    }

    public func merging(_ later: RowerData) -> RowerData {
        RowerData(
            strokes: later.strokes ?? strokes, averageStrokeRate: later.averageStrokeRate ?? averageStrokeRate,
            totalDistance: later.totalDistance ?? totalDistance,
            instantaneousPace: later.instantaneousPace ?? instantaneousPace,
            averagePace: later.averagePace ?? averagePace,
            instantaneousPower: later.instantaneousPower ?? instantaneousPower,
            averagePower: later.averagePower ?? averagePower,
            resistanceLevel: later.resistanceLevel ?? resistanceLevel,
            tail: tail.merging(later.tail))
    }

    /// Boat speed in m/s from the instantaneous pace (500 m over the pace), when present and not zero.
    public var speedMetresPerSecond: Double? {
        guard let pace = instantaneousPace, pace > 0 else { return nil }
        return 500 / Double(pace)
    }
}
