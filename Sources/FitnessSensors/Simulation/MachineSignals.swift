import Foundation

/// A plausible foot-pod signal: a runner at about 3.3 m/s (5:03 min/km) drifting ±0.3 m/s over three minutes,
/// cadence 170–176 steps/min, step length = speed ÷ cadence, and a total distance in decimetres.
///
/// Deterministic, as the other signals. Bluetooth RSCS 1.0 §3.1.
public struct FootPodSignal: Sendable {
    public let interval: Double
    private var time: Double = 0
    private var metres: Double = 0

    public init(interval: Double = 1) { self.interval = interval }

    /// The speed the runner runs at, in m/s, at `time` seconds.
    public static func speed(at time: Double) -> Double { 3.3 + 0.3 * sin(2 * Double.pi * time / 180) }
    /// The cadence, in steps per minute.
    public static func cadence(at time: Double) -> Double { 173 + 3 * sin(2 * Double.pi * time / 180) }

    public mutating func next() -> RSCMeasurement {
        time += interval
        let speed = Self.speed(at: time)
        let cadence = Self.cadence(at: time)
        metres += speed * interval
        return RSCMeasurement(
            speed: UInt16((speed * 256).rounded()), cadence: UInt8(cadence.rounded()),
            strideLength: UInt16((speed * 60 / cadence * 100).rounded()),
            totalDistance: UInt32((metres * 10).rounded()), isRunning: true)
    }
}

/// A plausible smart trainer: power follows the target (ERG) with a first-order lag of ``lag`` seconds and a few
/// watts of pedalling ripple; cadence about 88 rpm; a virtual speed from power (v = ∛(P / 0.26), about 33 km/h at
/// 200 W) and its distance. Every tenth record is split over two notifications ("More Data": cadence and power
/// first, then speed and distance), as a trainer on a 23-byte ATT MTU does.
///
/// Bluetooth FTMS 1.0 §4.9.
public struct SmartTrainerSignal: Sendable {
    public let interval: Double
    /// Seconds for power to close 63 % of the gap to a new target.
    public static let lag: Double = 2
    /// The target power, in watts (150 W until set).
    public var targetPower: Double = 150
    /// The targets the trainer takes, in watts: what its Supported Power Range (0x2AD8) says.
    public var powerRange: ClosedRange<Int> = 0 ... 2000
    /// The power the trainer holds now, in watts.
    public private(set) var power: Double = 150
    private var time: Double = 0
    private var metres: Double = 0
    private var count = 0
    private var heldPart: IndoorBikeData?

    public init(interval: Double = 0.5) { self.interval = interval }

    public mutating func next() -> IndoorBikeData {
        if let part = heldPart {
            heldPart = nil
            return part
        }
        time += interval
        count += 1
        power += (targetPower - power) * (1 - exp(-interval / Self.lag))
        let watts = power + 4 * sin(2 * Double.pi * time / 1.4)
        let speed = cbrt(max(watts, 0) / 0.26)
        metres += speed * interval
        let cadence = 88 + 3 * sin(2 * Double.pi * time / 50)
        let record = IndoorBikeData(
            instantaneousSpeed: UInt16((speed * 3.6 * 100).rounded()),
            instantaneousCadence: UInt16((cadence * 2).rounded()),
            totalDistance: UInt32(metres), instantaneousPower: Int16(watts.rounded()))
        guard count % 10 == 0 else { return record }
        // More Data: the first part has no speed (bit 0 set); the rest follows in the next notification.
        heldPart = IndoorBikeData(instantaneousSpeed: record.instantaneousSpeed, totalDistance: record.totalDistance)
        return IndoorBikeData(
            instantaneousCadence: record.instantaneousCadence, instantaneousPower: record.instantaneousPower)
    }
}

/// A plausible treadmill: 10 km/h, with 2-minute blocks at 12 km/h every 6 minutes; incline 1 %, 4 % during the
/// fast blocks; total distance, elapsed time.
///
/// Bluetooth FTMS 1.0 §4.6.
public struct TreadmillSignal: Sendable {
    public let interval: Double
    private var time: Double = 0
    private var metres: Double = 0

    public init(interval: Double = 1) { self.interval = interval }

    /// Whether `time` falls in a fast block.
    public static func isFast(at time: Double) -> Bool { time.truncatingRemainder(dividingBy: 360) >= 240 }
    /// Speed in km/h at `time`.
    public static func kilometresPerHour(at time: Double) -> Double { isFast(at: time) ? 12 : 10 }

    public mutating func next() -> TreadmillData {
        time += interval
        let kmh = Self.kilometresPerHour(at: time)
        metres += kmh / 3.6 * interval
        let incline: Int16 = Self.isFast(at: time) ? 40 : 10
        return TreadmillData(
            instantaneousSpeed: UInt16(kmh * 100), totalDistance: UInt32(metres),
            inclination: .init(inclination: incline, rampAngle: 0),
            tail: .init(elapsedTime: UInt16(truncatingIfNeeded: Int(time))))
    }
}

/// A plausible rower: 26 strokes/min, a 2:00/500 m pace drifting ±5 s, power from pace (Concept2's
/// P = 2.80 / (pace per metre)³, about 203 W at 2:00), stroke count and distance.
///
/// Bluetooth FTMS 1.0 §4.8.
public struct RowerSignal: Sendable {
    public let interval: Double
    private var time: Double = 0
    private var metres: Double = 0
    private var strokes: Double = 0

    public init(interval: Double = 1) { self.interval = interval }

    public mutating func next() -> RowerData {
        time += interval
        let pace = 120 + 5 * sin(2 * Double.pi * time / 240)
        let rate = 26.0
        metres += 500 / pace * interval
        strokes += rate / 60 * interval
        let watts = 2.80 / pow(pace / 500, 3)
        return RowerData(
            strokes: .init(rate: UInt8(rate * 2), count: UInt16(truncatingIfNeeded: Int(strokes))),
            totalDistance: UInt32(metres), instantaneousPace: UInt16(pace.rounded()),
            instantaneousPower: Int16(watts.rounded()))
    }
}
