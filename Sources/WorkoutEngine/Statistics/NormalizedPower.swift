import Foundation
import HealthKitModel

/// Normalized power (Coggan): the power a steady effort of the same physiological cost would have taken.
///
/// The rule, step by step (the reference formula NP = (mean(P30(t)⁴))^¼ over t ≥ 30 s):
/// 1. Resample to 1 Hz from the first sample to the last: second `s` takes the value of the latest sample starting
///    at or before it. A sample with a duration covers its span; a zero-length reading holds until the next one, at
///    most ``ReadingHold/power`` (5 s). A second no sample covers is a dropout and a second inside a pause
///    (``WorkoutPauses``) is not ridden: both are left out (missing, not zero), as the statistics treat silences.
/// 2. P30: the trailing mean of the last 30 of those seconds.
/// 3. NP: the fourth root of the mean of P30⁴, from the 30th second on. Fewer than 30 seconds give nil.
///
/// The first P30 is taken over the first 30 seconds of data (the canonical start), not over a zero-padded buffer
/// as GoldenCheetah's `Coggan.cpp` does; on short rides the two differ by a few watts.
///
/// OpenHealthKit extension: HealthKit has no normalized power. Pure: no clock, no store.
public enum NormalizedPower {
    /// The rolling window, in seconds.
    public static let window = 30

    /// One power value: `end == start` for a zero-length reading.
    public struct Sample: Sendable, Hashable {
        public var start: Date
        public var end: Date
        public var watts: Double

        public init(start: Date, end: Date? = nil, watts: Double) {
            self.start = start
            self.end = max(end ?? start, start)
            self.watts = watts
        }
    }

    /// The 1 Hz series of step 1: the values of the seconds covered and not paused, in time order.
    ///
    /// - Parameters:
    ///   - samples: power samples in any order.
    ///   - pauses: intervals during which the workout was paused.
    public static func perSecond(_ samples: [Sample], pauses: [DateInterval] = []) -> [Double] {
        let sorted = samples.sorted { $0.start < $1.start }
        guard let first = sorted.first, let lastStart = sorted.last?.start else { return [] }
        let lastEnd = sorted.map(\.end).max() ?? lastStart
        var values: [Double] = []
        values.reserveCapacity(Int(max(lastStart, lastEnd).timeIntervalSince(first.start)) + 1)
        var index = 0
        var second = first.start
        while second <= lastStart || second < lastEnd {
            while index + 1 < sorted.count, sorted[index + 1].start <= second { index += 1 }
            let sample = sorted[index]
            let covered =
                sample.end > sample.start
                ? second < sample.end
                : second.timeIntervalSince(sample.start) <= ReadingHold.power
            if covered, !pauses.contains(where: { $0.start <= second && second < $0.end }) {
                values.append(sample.watts)
            }
            second = second.addingTimeInterval(1)
        }
        return values
    }

    /// Normalized power of a 1 Hz series (steps 2 and 3), or nil for fewer than 30 values.
    public static func normalized(perSecond values: [Double]) -> Double? {
        guard values.count >= window else { return nil }
        var sum = values[0 ..< window].reduce(0, +)
        var fourthPowers = pow(sum / Double(window), 4)
        var count = 1.0
        for i in window ..< values.count {
            sum += values[i] - values[i - window]
            fourthPowers += pow(sum / Double(window), 4)
            count += 1
        }
        return pow(fourthPowers / count, 0.25)
    }

    /// Normalized power of samples, with paused time left out.
    public static func normalized(_ samples: [Sample], pauses: [DateInterval] = []) -> Double? {
        normalized(perSecond: perSecond(samples, pauses: pauses))
    }

    /// Normalized power in watts of zero-length readings `(date, watts)`; nil below 30 s of data.
    public static func watts(_ readings: [(date: Date, watts: Double)]) -> Double? {
        normalized(readings.map { Sample(start: $0.date, watts: $0.watts) })
    }
}
