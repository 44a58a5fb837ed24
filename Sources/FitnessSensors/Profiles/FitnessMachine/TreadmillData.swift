import ByteCoding

/// One Treadmill Data notification (characteristic 0x2ACD).
///
/// | flags bit | field | type / unit |
/// |---|---|---|
/// | 0 | More Data: **0** = instantaneous speed present | u16, 1/100 km/h |
/// | 1 | average speed | u16, 1/100 km/h |
/// | 2 | total distance | u24, m |
/// | 3 | inclination · ramp angle setting | s16, 1/10 % · s16, 1/10 ° |
/// | 4 | positive · negative elevation gain | u16 · u16, 1/10 m |
/// | 5 | instantaneous pace | u8, 1/10 km/min |
/// | 6 | average pace | u8, 1/10 km/min |
/// | 7 | expended energy | see ``FitnessMachineEnergy`` |
/// | 8 | heart rate | u8, bpm |
/// | 9 | metabolic equivalent | u8, 1/10 |
/// | 10 | elapsed time | u16, s |
/// | 11 | remaining time | u16, s |
/// | 12 | force on belt · power output | s16, N · s16, W |
/// | 13–15 | reserved, ignored | |
///
/// Flags are a little-endian u16. Bytes after the last flagged field are ignored.
///
/// Bluetooth FTMS 1.0 §4.6 (Treadmill Data).
public struct TreadmillData: FitnessMachineData {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.treadmillData }

    /// Inclination (1/10 %) and ramp angle setting (1/10 °).
    public struct Inclination: Hashable, Sendable {
        public var inclination: Int16
        public var rampAngle: Int16
        public init(inclination: Int16, rampAngle: Int16) {
            self.inclination = inclination
            self.rampAngle = rampAngle
        }
        /// The inclination in percent.
        public var percent: Double { Double(inclination) / 10 }
    }

    /// Positive and negative elevation gain, in 1/10 m.
    public struct ElevationGain: Hashable, Sendable {
        public var positive: UInt16
        public var negative: UInt16
        public init(positive: UInt16, negative: UInt16) {
            self.positive = positive
            self.negative = negative
        }
    }

    /// Force on the belt (N) and power output (W).
    public struct BeltPower: Hashable, Sendable {
        public var force: Int16
        public var power: Int16
        public init(force: Int16, power: Int16) {
            self.force = force
            self.power = power
        }
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

    /// Decodes a Treadmill Data value.
    ///
    /// - Throws: ``DecodeError`` naming the first flagged field that is cut short.
    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        let f = FlagFields(flags: UInt32(try reader.readUInt16("flags")))
        instantaneousSpeed = f.has(0) ? nil : try reader.readUInt16("instantaneous speed")
        averageSpeed = try f.uint16(1, &reader, "average speed")
        totalDistance = try f.uint24(2, &reader, "total distance")
        inclination =
            f.has(3)
            ? Inclination(
                inclination: try reader.readInt16("inclination"),
                rampAngle: try reader.readInt16("ramp angle setting")) : nil
        elevationGain =
            f.has(4)
            ? ElevationGain(
                positive: try reader.readUInt16("positive elevation gain"),
                negative: try reader.readUInt16("negative elevation gain")) : nil
        instantaneousPace = try f.uint8(5, &reader, "instantaneous pace")
        averagePace = try f.uint8(6, &reader, "average pace")
        tail = try FitnessMachineDataTail.read(f, firstBit: 7, from: &reader)
        beltPower =
            f.has(12)
            ? BeltPower(
                force: try reader.readInt16("force on belt"),
                power: try reader.readInt16("power output")) : nil
    }

    public var hasMoreData: Bool { instantaneousSpeed == nil }

    /// The flags field ``encode()`` writes.
    public var flags: UInt16 {
        UInt16(
            FlagFields.flags(
                [
                    instantaneousSpeed == nil, averageSpeed != nil, totalDistance != nil, inclination != nil,
                    elevationGain != nil, instantaneousPace != nil, averagePace != nil,
                ] + tail.presence + [
                    beltPower != nil
                ]))
    }

    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 34)
        writer.write(flags)
        writer.writeIfPresent(instantaneousSpeed)
        writer.writeIfPresent(averageSpeed)
        writer.writeUInt24IfPresent(totalDistance)
        if let inclination {
            writer.write(inclination.inclination)
            writer.write(inclination.rampAngle)
        }
        if let elevationGain {
            writer.write(elevationGain.positive)
            writer.write(elevationGain.negative)
        }
        writer.writeIfPresent(instantaneousPace)
        writer.writeIfPresent(averagePace)
        tail.write(to: &writer)
        if let beltPower {
            writer.write(beltPower.force)
            writer.write(beltPower.power)
        }
        return writer.bytes
    }

    public func merging(_ later: TreadmillData) -> TreadmillData {
        TreadmillData(
            instantaneousSpeed: later.instantaneousSpeed ?? instantaneousSpeed,
            averageSpeed: later.averageSpeed ?? averageSpeed,
            totalDistance: later.totalDistance ?? totalDistance, inclination: later.inclination ?? inclination,
            elevationGain: later.elevationGain ?? elevationGain,
            instantaneousPace: later.instantaneousPace ?? instantaneousPace,
            averagePace: later.averagePace ?? averagePace,
            tail: tail.merging(later.tail),
            beltPower: later.beltPower ?? beltPower)
    }

    /// Instantaneous speed in m/s, when present.
    public var speedMetresPerSecond: Double? {
        instantaneousSpeed.map { Double($0) * FitnessMachineUnits.metresPerSecondPerSpeedStep }
    }
}
