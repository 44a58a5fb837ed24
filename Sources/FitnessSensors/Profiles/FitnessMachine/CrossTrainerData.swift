import ByteCoding

/// One Cross Trainer Data notification (characteristic 0x2ACE) from an elliptical trainer.
///
/// | flags bit | field | type / unit |
/// |---|---|---|
/// | 0 | More Data: **0** = instantaneous speed present | u16, 1/100 km/h |
/// | 1 | average speed | u16, 1/100 km/h |
/// | 2 | total distance | u24, m |
/// | 3 | steps per minute · average step rate | u16 · u16 |
/// | 4 | stride count | u16, 1/10 |
/// | 5 | positive · negative elevation gain | u16 · u16, m |
/// | 6 | inclination · ramp angle setting | s16, 1/10 % · s16, 1/10 ° |
/// | 7 | resistance level | s16, unitless |
/// | 8 | instantaneous power | s16, W |
/// | 9 | average power | s16, W |
/// | 10 | expended energy | see ``FitnessMachineEnergy`` |
/// | 11 | heart rate | u8, bpm |
/// | 12 | metabolic equivalent | u8, 1/10 |
/// | 13 | elapsed time | u16, s |
/// | 14 | remaining time | u16, s |
/// | 15 | movement direction: 1 = backward | flag only |
/// | 16–23 | reserved, ignored | |
///
/// Flags are a little-endian **u24**, unlike the other data characteristics.
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

    /// Decodes a Cross Trainer Data value.
    ///
    /// - Throws: ``DecodeError`` naming the first flagged field that is cut short.
    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        let f = FlagFields(flags: try reader.readUInt24("flags"))
        instantaneousSpeed = f.has(0) ? nil : try reader.readUInt16("instantaneous speed")
        averageSpeed = try f.uint16(1, &reader, "average speed")
        totalDistance = try f.uint24(2, &reader, "total distance")
        stepRate =
            f.has(3) ? [try reader.readUInt16("steps per minute"), try reader.readUInt16("average step rate")] : nil
        strideCount = try f.uint16(4, &reader, "stride count")
        elevationGain =
            f.has(5)
            ? [
                try reader.readUInt16("positive elevation gain"),
                try reader.readUInt16("negative elevation gain"),
            ] : nil
        inclination =
            f.has(6) ? [try reader.readInt16("inclination"), try reader.readInt16("ramp angle setting")] : nil
        resistanceLevel = try f.int16(7, &reader, "resistance level")
        instantaneousPower = try f.int16(8, &reader, "instantaneous power")
        averagePower = try f.int16(9, &reader, "average power")
        tail = try FitnessMachineDataTail.read(f, firstBit: 10, from: &reader)
        movesBackward = f.has(15)
    }

    public var hasMoreData: Bool { instantaneousSpeed == nil }

    /// The flags field ``encode()`` writes (24 bits).
    public var flags: UInt32 {
        FlagFields.flags(
            [
                instantaneousSpeed == nil, averageSpeed != nil, totalDistance != nil, stepRate != nil,
                strideCount != nil,
                elevationGain != nil, inclination != nil, resistanceLevel != nil, instantaneousPower != nil,
                averagePower != nil,
            ] + tail.presence + [
                movesBackward
            ])
    }

    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 40)
        writer.writeUInt24(flags)
        writer.writeIfPresent(instantaneousSpeed)
        writer.writeIfPresent(averageSpeed)
        writer.writeUInt24IfPresent(totalDistance)
        for value in stepRate ?? [] { writer.write(value) }
        writer.writeIfPresent(strideCount)
        for value in elevationGain ?? [] { writer.write(value) }
        for value in inclination ?? [] { writer.write(value) }
        writer.writeIfPresent(resistanceLevel)
        writer.writeIfPresent(instantaneousPower)
        writer.writeIfPresent(averagePower)
        tail.write(to: &writer)
        return writer.bytes
    }

    public func merging(_ later: CrossTrainerData) -> CrossTrainerData {
        CrossTrainerData(
            instantaneousSpeed: later.instantaneousSpeed ?? instantaneousSpeed,
            averageSpeed: later.averageSpeed ?? averageSpeed,
            totalDistance: later.totalDistance ?? totalDistance, stepRate: later.stepRate ?? stepRate,
            strideCount: later.strideCount ?? strideCount, elevationGain: later.elevationGain ?? elevationGain,
            inclination: later.inclination ?? inclination, resistanceLevel: later.resistanceLevel ?? resistanceLevel,
            instantaneousPower: later.instantaneousPower ?? instantaneousPower,
            averagePower: later.averagePower ?? averagePower,
            tail: tail.merging(later.tail), movesBackward: later.movesBackward)
    }
}
