import ByteCoding

/// One Indoor Bike Data notification (characteristic 0x2AD2) from a smart trainer or exercise bike.
///
/// ```
/// flags u16 · fields in flag order
/// ```
///
/// | flags bit | field | type / unit |
/// |---|---|---|
/// | 0 | More Data: **0** = instantaneous speed present | u16, 1/100 km/h |
/// | 1 | average speed | u16, 1/100 km/h |
/// | 2 | instantaneous cadence | u16, 1/2 rpm |
/// | 3 | average cadence | u16, 1/2 rpm |
/// | 4 | total distance | u24, m |
/// | 5 | resistance level | s16, unitless |
/// | 6 | instantaneous power | s16, W |
/// | 7 | average power | s16, W |
/// | 8 | expended energy | see ``FitnessMachineEnergy`` |
/// | 9 | heart rate | u8, bpm |
/// | 10 | metabolic equivalent | u8, 1/10 |
/// | 11 | elapsed time | u16, s |
/// | 12 | remaining time | u16, s |
/// | 13–15 | reserved, ignored | |
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

    /// Decodes an Indoor Bike Data value.
    ///
    /// - Throws: ``DecodeError`` naming the first flagged field that is cut short.
    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        let f = FlagFields(flags: UInt32(try reader.readUInt16("flags")))
        instantaneousSpeed = f.has(0) ? nil : try reader.readUInt16("instantaneous speed")
        averageSpeed = try f.uint16(1, &reader, "average speed")
        instantaneousCadence = try f.uint16(2, &reader, "instantaneous cadence")
        averageCadence = try f.uint16(3, &reader, "average cadence")
        totalDistance = try f.uint24(4, &reader, "total distance")
        resistanceLevel = try f.int16(5, &reader, "resistance level")
        instantaneousPower = try f.int16(6, &reader, "instantaneous power")
        averagePower = try f.int16(7, &reader, "average power")
        tail = try FitnessMachineDataTail.read(f, firstBit: 8, from: &reader)
    }

    public var hasMoreData: Bool { instantaneousSpeed == nil }

    /// The flags field ``encode()`` writes.
    public var flags: UInt16 {
        UInt16(
            FlagFields.flags(
                [
                    instantaneousSpeed == nil, averageSpeed != nil, instantaneousCadence != nil, averageCadence != nil,
                    totalDistance != nil, resistanceLevel != nil, instantaneousPower != nil, averagePower != nil,
                ] + tail.presence))
    }

    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 30)
        writer.write(flags)
        writer.writeIfPresent(instantaneousSpeed)
        writer.writeIfPresent(averageSpeed)
        writer.writeIfPresent(instantaneousCadence)
        writer.writeIfPresent(averageCadence)
        writer.writeUInt24IfPresent(totalDistance)
        writer.writeIfPresent(resistanceLevel)
        writer.writeIfPresent(instantaneousPower)
        writer.writeIfPresent(averagePower)
        tail.write(to: &writer)
        return writer.bytes
    }

    public func merging(_ later: IndoorBikeData) -> IndoorBikeData {
        IndoorBikeData(
            instantaneousSpeed: later.instantaneousSpeed ?? instantaneousSpeed,
            averageSpeed: later.averageSpeed ?? averageSpeed,
            instantaneousCadence: later.instantaneousCadence ?? instantaneousCadence,
            averageCadence: later.averageCadence ?? averageCadence, totalDistance: later.totalDistance ?? totalDistance,
            resistanceLevel: later.resistanceLevel ?? resistanceLevel,
            instantaneousPower: later.instantaneousPower ?? instantaneousPower,
            averagePower: later.averagePower ?? averagePower,
            tail: tail.merging(later.tail))
    }

    /// Instantaneous speed in m/s, when present.
    public var speedMetresPerSecond: Double? {
        instantaneousSpeed.map { Double($0) * FitnessMachineUnits.metresPerSecondPerSpeedStep }
    }
    /// Instantaneous cadence in rpm, when present.
    public var cadenceRPM: Double? { instantaneousCadence.map { Double($0) / 2 } }
}
