import ByteCoding

/// A cumulative wheel revolution count and the time of the last wheel event, as sent by cycling
/// speed sensors and power meters.
///
/// The revolution counter is 32 bits and the event time is a free-running 16-bit counter of
/// ticks; both wrap. The tick length depends on the characteristic: **1/2048 s** in Cycling Power
/// Measurement (``CyclingPowerMeasurement/wheelEventTicksPerSecond``) and **1/1024 s** in CSC
/// Measurement (``CSCMeasurement/eventTicksPerSecond``). Feed these to ``WheelSpeedCalculator``
/// with the matching resolution.
///
/// Bluetooth CPS 1.1 §3.2.1; CSCS 1.0 §3.1.
public struct WheelRevolutionData: Hashable, Sendable {
    /// Wheel revolutions since the sensor was reset (wraps at 2^32).
    public var cumulativeRevolutions: UInt32
    /// Time of the last wheel event, in ticks (wraps at 2^16).
    public var lastEventTime: UInt16

    public init(cumulativeRevolutions: UInt32, lastEventTime: UInt16) {
        self.cumulativeRevolutions = cumulativeRevolutions
        self.lastEventTime = lastEventTime
    }

    static func read(from reader: inout ByteReader) throws(DecodeError) -> WheelRevolutionData {
        let revolutions = try reader.readUInt32("cumulative wheel revolutions")
        let time = try reader.readUInt16("last wheel event time")
        return WheelRevolutionData(cumulativeRevolutions: revolutions, lastEventTime: time)
    }

    func write(to writer: inout ByteWriter) {
        writer.write(cumulativeRevolutions)
        writer.write(lastEventTime)
    }
}

/// A cumulative crank revolution count and the time of the last crank event, as sent by cadence
/// sensors and power meters.
///
/// Both fields are 16 bits and wrap; the event time is in units of 1/1024 s in both Cycling Power
/// Measurement and CSC Measurement. Feed these to ``CrankCadenceCalculator``.
///
/// Bluetooth CPS 1.1 §3.2.1; CSCS 1.0 §3.1.
public struct CrankRevolutionData: Hashable, Sendable {
    /// Crank revolutions since the sensor was reset (wraps at 2^16).
    public var cumulativeRevolutions: UInt16
    /// Time of the last crank event in 1/1024 s (wraps at 2^16, every 64 s).
    public var lastEventTime: UInt16

    /// The event time unit: 1/1024 s.
    public static let ticksPerSecond: Double = 1024

    public init(cumulativeRevolutions: UInt16, lastEventTime: UInt16) {
        self.cumulativeRevolutions = cumulativeRevolutions
        self.lastEventTime = lastEventTime
    }

    static func read(from reader: inout ByteReader) throws(DecodeError) -> CrankRevolutionData {
        let revolutions = try reader.readUInt16("cumulative crank revolutions")
        let time = try reader.readUInt16("last crank event time")
        return CrankRevolutionData(cumulativeRevolutions: revolutions, lastEventTime: time)
    }

    func write(to writer: inout ByteWriter) {
        writer.write(cumulativeRevolutions)
        writer.write(lastEventTime)
    }
}
