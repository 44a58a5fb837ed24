import FitnessSensors
import Foundation

/// A plausible heart-rate signal for a simulated strap: a rate drifting between about 115 and
/// 145 bpm over two minutes, the RR intervals of the beats that fell in each notification period,
/// contact detected, and energy expended in every tenth notification (as real straps do).
///
/// Deterministic: the same sequence of ``next()`` calls gives the same values, so tests can
/// compute what the sensor should report. Bluetooth HRS 1.0 §3.1.
public struct HeartRateSignal: Sendable {
    /// Seconds between notifications.
    public let interval: Double
    private var time: Double = 0
    private var beatPhase: Double = 0
    private var energyJoules: Double = 0
    private var count = 0

    public init(interval: Double = 1) { self.interval = interval }

    /// The next measurement.
    public mutating func next() -> HeartRateMeasurement {
        time += interval
        count += 1
        let bpm = 130 + 15 * sin(2 * Double.pi * time / 120)
        let rr = 60 / bpm
        var intervals: [UInt16] = []
        beatPhase += interval
        while beatPhase >= rr, intervals.count < 9 {
            intervals.append(UInt16((rr * HeartRateMeasurement.rrIntervalTicksPerSecond).rounded()))
            beatPhase -= rr
        }
        energyJoules += interval * bpm * 70  // roughly 70 J per beat-minute at moderate effort
        let energy = count % 10 == 0 ? UInt16(min(energyJoules / 1000, 65535)) : nil
        return HeartRateMeasurement(
            heartRate: UInt16(bpm.rounded()), sensorContact: .detected,
            energyExpended: energy, rrIntervals: intervals)
    }
}

/// A plausible power-meter signal: power around 200 W, cadence about 90 rpm, wheel speed about
/// 9 m/s, with crank and wheel revolution counters and event times that start just below their
/// wrap so that every run exercises the wrap within seconds.
///
/// Bluetooth CPS 1.1 §3.2: crank event time in 1/1024 s, wheel event time in 1/2048 s.
public struct CyclingPowerSignal: Sendable {
    /// Seconds between notifications.
    public let interval: Double
    public let wheelCircumference: Double
    private var time: Double = 0
    private var crankRevolutions: UInt16 = 65_530
    private var lastCrankEvent: Double = 0
    private var wheelRevolutions: UInt32 = UInt32.max - 10
    private var lastWheelEvent: Double = 0
    // Event clocks start near 0xFFFF ticks so that the 16-bit event times wrap early.
    private let crankTickOffset = 63.5
    private let wheelTickOffset = 31.0

    public init(interval: Double = 0.25, wheelCircumference: Double = 2.105) {
        self.interval = interval
        self.wheelCircumference = wheelCircumference
    }

    /// The cadence the signal pedals at, in rpm, at `time` seconds.
    public static func cadence(at time: Double) -> Double { 90 + 4 * sin(2 * Double.pi * time / 45) }
    /// The speed the signal rides at, in m/s, at `time` seconds.
    public static func speed(at time: Double) -> Double { 9 + 0.5 * sin(2 * Double.pi * time / 60) }

    /// The next measurement.
    public mutating func next() -> CyclingPowerMeasurement {
        let start = time
        time += interval
        var next = lastCrankEvent + 60 / Self.cadence(at: lastCrankEvent)
        while next <= time {
            crankRevolutions &+= 1
            lastCrankEvent = next
            next = lastCrankEvent + 60 / Self.cadence(at: lastCrankEvent)
        }
        var nextWheel = lastWheelEvent + wheelCircumference / Self.speed(at: lastWheelEvent)
        while nextWheel <= time {
            wheelRevolutions &+= 1
            lastWheelEvent = nextWheel
            nextWheel = lastWheelEvent + wheelCircumference / Self.speed(at: lastWheelEvent)
        }
        let watts = 200 + 25 * sin(2 * Double.pi * start / 60) + 10 * sin(2 * Double.pi * start / 7)
        return CyclingPowerMeasurement(
            instantaneousPower: Int16(watts.rounded()),
            wheelRevolutions: WheelRevolutionData(
                cumulativeRevolutions: wheelRevolutions,
                lastEventTime: Self.ticks(
                    lastWheelEvent + wheelTickOffset, perSecond: CyclingPowerMeasurement.wheelEventTicksPerSecond)),
            crankRevolutions: CrankRevolutionData(
                cumulativeRevolutions: crankRevolutions,
                lastEventTime: Self.ticks(
                    lastCrankEvent + crankTickOffset, perSecond: CyclingPowerMeasurement.crankEventTicksPerSecond)))
    }

    private static func ticks(_ seconds: Double, perSecond: Double) -> UInt16 {
        UInt16(truncatingIfNeeded: Int((seconds * perSecond).rounded()))
    }
}
