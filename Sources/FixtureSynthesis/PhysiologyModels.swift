import FitnessSensors
import Foundation

/// A small, fast, seedable random number generator (SplitMix64), so a seed always gives the same fixture.
public struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Normally distributed (Box–Muller), mean 0.
    public mutating func gaussian(_ sigma: Double) -> Double {
        let u = max(unit(), 1e-12)
        return sigma * (-2 * log(u)).squareRoot() * cos(2 * .pi * unit())
    }
}

/// Heart rate that lags effort with a first-order response, and the RR intervals of the beats behind it.
///
/// Each second the rate moves towards `rest + effort × (max − rest)` (Karvonen) by `1 − e^(−1/τ)`, with τ = 25 s
/// rising and 40 s falling, plus a little noise. Beats are laid end to end: each RR interval is `60 / rate`
/// modulated by breathing (respiratory sinus arrhythmia, ±4 % at ~0.22 Hz) and beat-to-beat noise (1.5 %), so
/// RMSSD falls as the rate rises, as it does in people.
public struct HeartModel {
    public var rest = 55.0
    public var maximum = 188.0
    public private(set) var rate: Double
    private var nextBeat: Double
    private var tick: UInt32 = 0

    public init(start: Double = 72) {
        rate = start
        nextBeat = 0
    }

    /// Advances one second towards `effort` (0–1 of heart-rate reserve) and returns the rate and the RR intervals
    /// (in 1/1024 s) of the beats that ended during the second `[second, second + 1)`.
    public mutating func step(second: Double, effort: Double, random: inout SeededRandom) -> (bpm: UInt16, rr: [UInt16])
    {
        let target = rest + min(max(effort, 0), 1.05) * (maximum - rest)
        let tau = target > rate ? 25.0 : 40.0
        rate += (target - rate) * (1 - exp(-1 / tau)) + random.gaussian(0.4)
        rate = min(max(rate, 40), 205)
        var intervals: [UInt16] = []
        if nextBeat < second { nextBeat = second }
        while nextBeat < second + 1 {
            let breathing = 0.04 * sin(2 * .pi * 0.22 * nextBeat) * (rest / rate)
            let interval = 60 / rate * (1 + breathing + random.gaussian(0.015))
            nextBeat += interval
            intervals.append(UInt16(min(max(interval * 1024, 1), 65535).rounded()))
        }
        return (UInt16(rate.rounded()), intervals)
    }
}

/// A crank-and-wheel power meter's counters: cumulative revolutions and the 1/1024 s (crank) and 1/2048 s (wheel)
/// times of the last revolution, all wrapping as on the wire. Speed follows power over a flat road,
/// `v = 1.6 × P^(1/3)` m/s; cadence rises with power around 85 rpm.
public struct DrivetrainModel {
    /// Crank revolutions start near the uint16 limit and wheel revolutions near the uint32 limit, so both wrap.
    public var crankRevolutions: Double = 65_000
    public var wheelRevolutions: Double = Double(UInt32.max) - 2_000
    private var lastCrankEvent: Double = 0
    private var lastWheelEvent: Double = 0
    private var crankPhase = 0.0
    private var wheelPhase = 0.0
    public let wheelCircumference = 2.105

    public init() {}

    /// Moves the drivetrain over `[time, time + dt)` at `watts`; returns the cadence used.
    public mutating func advance(time: Double, dt: Double, watts: Double, random: inout SeededRandom) -> Double {
        guard watts > 0 else { return 0 }
        let cadence = min(max(85 + 12 * (watts - 200) / 200 + random.gaussian(1.5), 55), 115)
        let speed = 1.6 * pow(watts, 1.0 / 3.0)
        crankPhase += cadence / 60 * dt
        while crankPhase >= 1 {
            crankPhase -= 1
            crankRevolutions += 1
            lastCrankEvent = time + dt * (1 - crankPhase / max(cadence / 60 * dt, 1e-9))
        }
        wheelPhase += speed / wheelCircumference * dt
        let whole = wheelPhase.rounded(.down)
        if whole >= 1 {
            wheelPhase -= whole
            wheelRevolutions += whole
            lastWheelEvent = time + dt * (1 - wheelPhase / (speed / wheelCircumference * dt))
        }
        return cadence
    }

    public var crankData: CrankRevolutionData {
        CrankRevolutionData(
            cumulativeRevolutions: UInt16(truncatingIfNeeded: Int64(crankRevolutions)),
            lastEventTime: UInt16(truncatingIfNeeded: Int64(lastCrankEvent * 1024)))
    }

    /// Wheel data with the cycling power service's 1/2048 s event time.
    public var wheelData: WheelRevolutionData {
        WheelRevolutionData(
            cumulativeRevolutions: UInt32(truncatingIfNeeded: Int64(wheelRevolutions)),
            lastEventTime: UInt16(truncatingIfNeeded: Int64(lastWheelEvent * 2048)))
    }

    /// Wheel data with the CSC service's 1/1024 s event time.
    public var cscWheelData: WheelRevolutionData {
        WheelRevolutionData(
            cumulativeRevolutions: UInt32(truncatingIfNeeded: Int64(wheelRevolutions)),
            lastEventTime: UInt16(truncatingIfNeeded: Int64(lastWheelEvent * 1024)))
    }
}
