import Foundation
import HealthKitModel

/// Running cadence: the one rule for a run's steps a minute, shared by the live data source (which counts a foot
/// pod's cadence into steps), the import of a file's cadence, `workout replay`'s summary, `workout show`, and the FIT
/// and TCX exports.
///
/// HealthKit has no running cadence type: a run's cadence is kept as `stepCount` samples, each holding the steps
/// of its span. OpenHealthKit counts and reads them by one rule:
/// - **Counting.** A cadence reading counts its steps a minute over the time since the previous reading, when that
///   is at most ``maximumGap`` (3 s): a longer silence (a dropout, a pause) and a cadence of 0 (standing) count no
///   steps. So a step sample spans the time between two readings and holds the later reading's cadence.
/// - **A sample's cadence** is its steps ÷ the minutes it spans (``stepsPerMinute(steps:over:)``); a sample of no
///   length has none.
/// - **The average** over a span is the steps of the step samples starting in it ÷ the minutes those samples cover:
///   the time-weighted mean of their cadences. Time without steps is left out, as watches leave out zero cadence.
/// - **The maximum** is the highest cadence of one step sample.
///
/// Cadence here is steps a minute, as a foot pod (RSCS 1.0) and Apple's Workout app count it; FIT and TCX count
/// strides (two steps) a minute (``stridesPerMinute(stepsPerMinute:)``).
///
/// OpenHealthKit extension: HealthKit has no running cadence. Pure: no clock, no store.
public enum RunningCadence {
    /// The longest time between two cadence readings over which steps are counted, in seconds.
    public static let maximumGap: TimeInterval = 3
    /// Steps a minute (HealthKit's `count/min`).
    public static let unit = HKUnit.count().unitDivided(by: .minute())

    /// The steps a cadence reading counts: `stepsPerMinute` held over the time since the previous reading; nil when
    /// the cadence is not above 0 or not finite, or the time since `previous` is not in (0, ``maximumGap``].
    ///
    /// - Parameters:
    ///   - stepsPerMinute: The reading's cadence.
    ///   - previous: The previous reading's time, in seconds on any scale `time` shares.
    ///   - time: The reading's time.
    public static func steps(stepsPerMinute: Double, from previous: Double, to time: Double) -> Double? {
        let gap = time - previous
        guard stepsPerMinute.isFinite, stepsPerMinute > 0, gap > 0, gap <= maximumGap else { return nil }
        return stepsPerMinute * gap / 60
    }

    /// The cadence of a step sample: its steps ÷ the minutes it spans; nil for a sample of no length.
    public static func stepsPerMinute(steps: Double, over interval: DateInterval) -> Double? {
        guard interval.duration > 0, steps.isFinite else { return nil }
        return steps / interval.duration * 60
    }

    /// Strides (two steps: FIT's and TCX's running cadence) a minute.
    public static func stridesPerMinute(stepsPerMinute: Double) -> Double { stepsPerMinute / 2 }

    /// Steps a minute from strides a minute (a FIT or TCX file's running cadence).
    public static func stepsPerMinute(stridesPerMinute: Double) -> Double { stridesPerMinute * 2 }

    /// A span's running cadence.
    public struct Statistics: Sendable, Hashable {
        /// Steps a minute over the time the step samples cover.
        public var averageStepsPerMinute: Double
        /// The highest cadence of one step sample.
        public var maximumStepsPerMinute: Double
        /// The steps of the samples.
        public var steps: Double

        public init(averageStepsPerMinute: Double, maximumStepsPerMinute: Double, steps: Double) {
            self.averageStepsPerMinute = averageStepsPerMinute
            self.maximumStepsPerMinute = maximumStepsPerMinute
            self.steps = steps
        }

        /// The average as a quantity in ``RunningCadence/unit``.
        public var averageQuantity: HKQuantity {
            HKQuantity(unit: RunningCadence.unit, doubleValue: averageStepsPerMinute)
        }
        /// The maximum as a quantity in ``RunningCadence/unit``.
        public var maximumQuantity: HKQuantity {
            HKQuantity(unit: RunningCadence.unit, doubleValue: maximumStepsPerMinute)
        }
    }

    /// The cadence of step samples `(span, steps)` starting in `interval` (all of them without one); nil when none
    /// spans any time.
    public static func statistics(
        _ samples: [(interval: DateInterval, steps: Double)], within interval: DateInterval? = nil
    ) -> Statistics? {
        var steps = 0.0
        var seconds = 0.0
        var maximum: Double?
        for sample in samples {
            if let interval, sample.interval.start < interval.start || sample.interval.start >= interval.end {
                continue
            }
            guard let cadence = stepsPerMinute(steps: sample.steps, over: sample.interval) else { continue }
            steps += sample.steps
            seconds += sample.interval.duration
            maximum = max(maximum ?? cadence, cadence)
        }
        guard let maximum, seconds > 0 else { return nil }
        return Statistics(averageStepsPerMinute: steps / seconds * 60, maximumStepsPerMinute: maximum, steps: steps)
    }
}
