import Foundation
import HealthKitModel

/// Statistics per interval of a ``DateTiling``, from one pass over quantities in start order.
///
/// The same rules as `StatisticsAccumulator` apply in each interval: a quantity contributes to every interval
/// its coverage overlaps (cumulative values prorated by time), and a zero-length time-weighted quantity holds
/// until the next quantity of its source (at most the maximum hold), across interval bounds. Only intervals that
/// some quantity touched appear in the result.
///
/// HealthKit: HKStatisticsCollectionQuery.
package struct StatisticsCollectionEngine: Sendable {
    package let style: HKQuantityAggregationStyle
    package let tiling: DateTiling
    package let maximumHold: TimeInterval
    private var buckets: [Int: StatisticsAccumulator] = [:]
    private var pending: [Int64: (instant: Double, value: Double, holdLimit: Double)] = [:]
    private var cached: (index: Int, start: Double, end: Double)?

    package init(
        style: HKQuantityAggregationStyle, tiling: DateTiling,
        maximumHold: TimeInterval = StatisticsAccumulator.defaultMaximumHold
    ) {
        self.style = style
        self.tiling = tiling
        self.maximumHold = maximumHold
    }

    private var holds: Bool { style.holdsInstants }

    /// Adds one quantity (times in seconds since the reference date, value in the storage unit).
    package mutating func add(start: Double, end: Double, value: Double, source: Int64, holdLimit: Double = .infinity) {
        release(source, at: start)
        if holds && end <= start {
            pending[source] = (start, value, min(start + maximumHold, holdLimit))
        } else {
            dispatch(start: start, coverEnd: max(start, end), value: value, end: end, source: source)
        }
    }

    /// Adds a series by its summary if it lies inside one interval and returns true; returns false (adding
    /// nothing) when the caller must add its quantities one by one.
    package mutating func add(summary: StatisticsPartial, seriesStart: Double, seriesEnd: Double, source: Int64) -> Bool
    {
        let bucket = locate(seriesStart)
        guard seriesEnd < bucket.end else { return false }
        release(source, at: seriesStart)
        let fresh = accumulator(bucket)
        buckets[bucket.index, default: fresh].addCovered(summary: summary, source: source)
        return true
    }

    /// The partials per interval index and source.
    package func finish() -> [Int: [Int64: StatisticsPartial]] {
        var engine = self
        for source in Array(engine.pending.keys) { engine.release(source, at: .infinity) }
        return engine.buckets.mapValues { $0.partials() }.filter { !$0.value.isEmpty }
    }

    private mutating func release(_ source: Int64, at next: Double) {
        guard let held = pending.removeValue(forKey: source) else { return }
        let coverEnd = max(held.instant, min(next, held.holdLimit))
        dispatch(start: held.instant, coverEnd: coverEnd, value: held.value, end: held.instant, source: source)
    }

    private mutating func dispatch(start: Double, coverEnd: Double, value: Double, end: Double, source: Int64) {
        var bucket = locate(start)
        while true {
            let fresh = accumulator(bucket)
            buckets[bucket.index, default: fresh].addCovered(
                start: start, coverEnd: coverEnd, value: value, end: end, source: source)
            guard coverEnd > bucket.end else { return }
            bucket = locate(bucket.end)
        }
    }

    private func accumulator(_ bucket: (index: Int, start: Double, end: Double)) -> StatisticsAccumulator {
        StatisticsAccumulator(style: style, rangeStart: bucket.start, rangeEnd: bucket.end, maximumHold: maximumHold)
    }

    /// The interval containing a time, cached: consecutive quantities mostly fall in the same one.
    private mutating func locate(_ time: Double) -> (index: Int, start: Double, end: Double) {
        if let cached, time >= cached.start, time < cached.end { return cached }
        let index = tiling.index(containing: Date(storeValue: time))
        let interval = tiling.interval(index)
        let found = (index, interval.start.storeValue, interval.end.storeValue)
        cached = found
        return found
    }
}
