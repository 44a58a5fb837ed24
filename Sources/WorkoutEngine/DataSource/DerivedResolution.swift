import Foundation
import HealthKitModel

/// The resolutions at which a live data source stores the values it derives (cadence and speed from revolution
/// counters, distance from wheel revolutions, energy from power), so that condensed series store them as small
/// integers.
///
/// A derived value is computed from event times and arrival times, so at full precision it is an arbitrary `Double`
/// (80.94861660079052 rpm) that no integer form can hold; the series codec then stores its 8 bytes (see
/// ``QuantitySeriesCodec``). Each resolution is at least as fine as the field that holds the value in a FIT
/// `record` message (FIT profile: cadence 1 rpm, speed 0.001 m/s, distance 0.01 m; FIT has no per-record energy, its
/// session `total_calories` is 1 kcal) and finer than the sensors' own precision (a crank event time ticks at
/// 1/1024 s: at 90 rpm one tick moves the cadence by about 0.13 rpm; 2 wheel revolutions of 2.105 m per half second
/// give speeds in steps of about 0.02 m/s):
///
/// | value | storage unit | resolution |
/// |---|---|---|
/// | cycling cadence | count/min | 0.1 |
/// | cycling and running speed | m/s | 0.001 |
/// | distance | m | 0.01 (cumulative, see below) |
/// | active energy from power | kcal | 0.001 (cumulative, see below) |
/// | step count from a foot pod's cadence | count | 0.001 (cumulative, see below) |
///
/// Heart rate (whole bpm) and power (whole watts) arrive as integers and are stored as they come. Sample times are
/// arrival times rounded to the millisecond (``millisecond(_:)``).
///
/// **Cumulative values never drift.** Distance, energy and steps are rounded as running totals: each sample holds the
/// rounded total so far minus the rounded total before it (``CumulativeRounding``), so the sum of a workout's
/// samples is the true total rounded once, never the sum of many rounding errors.
///
/// Measured on the 90-minute ride fixture (`SeriesBenchmark ride`): the condensed values of cadence, speed, energy
/// and distance take 63.5, 84.5, 83.9 and 28.7 KB at full precision and 10.3, 24.0, 10.8 and 14.8 KB at these
/// resolutions.
///
/// OpenHealthKit's choice: HealthKit does not document the precision of the samples a live data source makes.
package enum DerivedResolution {
    /// Steps per storage unit: cadence in tenths of an rpm.
    package static let cadence: Double = 10
    /// Steps per storage unit: speed in mm/s.
    package static let speed: Double = 1000
    /// Steps per storage unit: distance in cm.
    package static let distance: Double = 100
    /// Steps per storage unit: energy in thousandths of a kcal.
    package static let energy: Double = 1000
    /// Steps per storage unit: a foot pod's step count in thousandths of a step, so that a one-second sample's steps
    /// give back its cadence to 0.06 steps a minute (``RunningCadence``); whole steps would read 173 steps a minute
    /// as 180 and 120 by turns.
    package static let steps: Double = 1000

    /// A reading's arrival time (seconds since 2001) rounded to the millisecond, as `Double(ms) / 1000`: the time of
    /// the samples the reading makes. A wall clock's time carries a tenth of a microsecond (the resolution of a
    /// `Double` near 8·10⁸ s), which no series can store in fewer than about three bytes; a millisecond is finer
    /// than a BLE connection interval (7.5 ms at the least, Bluetooth Core 5.3 Vol 6 Part B §4.5.1), the
    /// granularity at which notifications arrive anyway. A replayed fixture's times are already whole
    /// milliseconds. A time that is not finite is returned as it is.
    package static func millisecond(_ time: Double) -> Double {
        guard let milliseconds = integerSteps(time, steps: 1000) else { return time }
        return Double(milliseconds) / 1000
    }

    /// `value` rounded to the nearest multiple of `1 / steps` (halves away from zero), as `Double(integer) / steps`,
    /// the exact form the series codec reads back; nil when it is not finite or too large to count in steps.
    package static func rounded(_ value: Double, steps: Double) -> Double? {
        guard let integer = integerSteps(value, steps: steps) else { return nil }
        return Double(integer) / steps
    }

    package static func integerSteps(_ value: Double, steps: Double) -> Int64? {
        let scaled = (value * steps).rounded()
        guard scaled.isFinite, abs(scaled) < 9e15 else { return nil }
        return Int64(scaled)
    }
}

/// A running total rounded to a resolution: each ``add(_:)`` returns the rounded total minus what it returned
/// before, so the returned values sum to the rounded total exactly and no rounding error accumulates.
///
/// ```swift
/// var metres = CumulativeRounding(steps: 100)   // centimetres
/// metres.add(0.004)   // 0     (total 0.004 m → 0 cm)
/// metres.add(0.004)   // 0.01  (total 0.008 m → 1 cm)
/// metres.add(0.004)   // 0     (total 0.012 m → 1 cm)
/// ```
package struct CumulativeRounding {
    package let steps: Double
    package private(set) var total: Double = 0
    private var emitted: Int64 = 0

    package init(steps: Double) {
        self.steps = steps
    }

    /// Adds `amount` to the total; returns the increment of the rounded total, in storage units (0 when the rounded
    /// total did not move; nil, with nothing added, when the amount is not finite).
    package mutating func add(_ amount: Double) -> Double? {
        guard amount.isFinite, let rounded = DerivedResolution.integerSteps(total + amount, steps: steps) else {
            return nil
        }
        total += amount
        defer { emitted = rounded }
        return Double(rounded &- emitted) / steps
    }
}
