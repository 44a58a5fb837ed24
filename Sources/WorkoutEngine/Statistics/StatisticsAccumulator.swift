import Foundation
import HealthKitModel

/// The statistics engine: folds quantities into per-source ``StatisticsPartial``s for one date range, following
/// the type's aggregation style. Pure and Foundation-only; it never reads a clock.
///
/// Rules (HealthKit is silent on most of them; these are OpenHealthKit's, documented in the README):
///
/// - **Range.** Half-open, `[start, end)`. A quantity with a duration is a member when its coverage overlaps the
///   range; a quantity of zero length when its instant lies inside the range.
/// - **Cumulative** (energy, distance, steps): a member straddling a bound contributes linearly in proportion to
///   the time it overlaps (100 steps over 13:57–14:02 give 60 before 14:00 and 40 after); a zero-length member
///   contributes its whole value.
/// - **Discrete arithmetic** (power, speed): the plain mean of the members' values.
/// - **Discrete temporally weighted** (heart rate): each member weighs the time it covers inside the range. A
///   quantity with a duration covers its duration. A zero-length quantity *holds* its value until the next
///   quantity of the same source's stream, but at most ``defaultMaximumHold`` (10 s): a longer silence is a
///   dropout, not weight. A zero-length quantity that starts before the range but holds into it is a member. The
///   last value of a series holds at most until the series ends. When no member covers any time, the plain mean.
/// - **Equivalent continuous level** (dBASPL): weighted like heart rate, averaged as sound energy (Leq).
/// - **Minimum, maximum**: over members. **Most recent**: the member whose coverage ends last inside the range
///   (ties: larger source key, then larger value). **Duration**: the time members cover inside the range,
///   summed per quantity (overlapping sources both count).
/// - **Sources**: each source (`Int64` key) is its own stream; merged statistics combine every source's members.
///
/// Quantities of one source must arrive in start order (different sources may interleave), as a live builder and
/// the store's `ORDER BY start` deliver them. Each `add` is O(1).
///
/// HealthKit: HKStatistics, HKStatisticsQuery, HKQuantityAggregationStyle.
package struct StatisticsAccumulator: Sendable {
    /// How long a zero-length time-weighted quantity (heart rate, the only time-weighted type) holds its value at
    /// most: ``ReadingHold/heartRate``.
    package static let defaultMaximumHold: TimeInterval = ReadingHold.heartRate

    package let style: HKQuantityAggregationStyle
    package let rangeStart: Double
    package let rangeEnd: Double
    package let maximumHold: Double
    // The streams by source. The first source's is kept inline and only further sources go to a dictionary: a
    // live builder's accumulators, and most queries', see one source, and then no key is hashed per quantity.
    private var firstSource: Int64?
    private var firstStream = Stream()
    private var otherStreams: [Int64: Stream] = [:]

    private struct Stream: Sendable {
        package var partial = StatisticsPartial()
        /// A zero-length quantity waiting for the next quantity of its stream to know how long it holds.
        package var pending: Pending?
    }

    private struct Pending: Sendable {
        package var instant: Double
        package var value: Double
        /// The latest time its hold may reach: instant + maximum hold, or the end of the series it belongs to.
        package var holdLimit: Double
    }

    /// An accumulator for the range `[start, end)`.
    package init(
        style: HKQuantityAggregationStyle, start: Date, end: Date, maximumHold: TimeInterval = defaultMaximumHold
    ) {
        self.init(style: style, rangeStart: start.storeValue, rangeEnd: end.storeValue, maximumHold: maximumHold)
    }

    package init(
        style: HKQuantityAggregationStyle, rangeStart: Double, rangeEnd: Double,
        maximumHold: TimeInterval = defaultMaximumHold
    ) {
        self.style = style
        self.rangeStart = rangeStart
        self.rangeEnd = rangeEnd
        self.maximumHold = maximumHold
    }

    private var holds: Bool { style.holdsInstants }

    /// Adds one quantity (value in the type's storage unit) of a source. Quantities outside the range are welcome:
    /// they end the hold of the previous zero-length quantity of their stream and contribute nothing themselves.
    package mutating func add(start: Date, end: Date, value: Double, source: Int64) {
        add(start: start.storeValue, end: end.storeValue, value: value, source: source)
    }

    /// Adds one quantity, times in seconds since the reference date. `holdLimit` caps the hold of a zero-length
    /// quantity (the end of the series it belongs to).
    package mutating func add(start: Double, end: Double, value: Double, source: Int64, holdLimit: Double = .infinity) {
        var stream = takeStream(source)
        if let pending = stream.pending {
            apply(pending, until: start, to: &stream.partial, source: source)
            stream.pending = nil
        }
        if holds && end <= start {
            stream.pending = Pending(instant: start, value: value, holdLimit: min(start + maximumHold, holdLimit))
        } else {
            contribute(
                start: start, coverEnd: max(start, end), value: value, end: end, source: source, to: &stream.partial)
        }
        putStream(stream, source)
    }

    /// A source's stream (empty if new), to be changed and handed back with `putStream`. Streams hold no
    /// references, so taking one is a plain copy.
    private mutating func takeStream(_ source: Int64) -> Stream {
        if firstSource == nil { firstSource = source }
        return source == firstSource ? firstStream : otherStreams.removeValue(forKey: source) ?? Stream()
    }

    private mutating func putStream(_ stream: Stream, _ source: Int64) {
        if source == firstSource { firstStream = stream } else { otherStreams[source] = stream }
    }

    /// Every source's stream, the first source's first.
    private func forEachStream(_ body: (Int64, Stream) -> Void) {
        guard let firstSource else { return }
        body(firstSource, firstStream)
        for (source, stream) in otherStreams { body(source, stream) }
    }

    /// Adds a stored series summary: the partial of a whole series computed over its own span (see
    /// ``summary(style:of:seriesEnd:maximumHold:)``). Valid only when the series lies inside the range; it ends the
    /// hold of the stream's previous zero-length quantity at `seriesStart`.
    package mutating func add(summary: StatisticsPartial, seriesStart: Double, source: Int64) {
        var stream = takeStream(source)
        if let pending = stream.pending {
            apply(pending, until: seriesStart, to: &stream.partial, source: source)
            stream.pending = nil
        }
        stream.partial.combine(summary)
        putStream(stream, source)
    }

    /// The partials per source, with every waiting zero-length quantity held until `horizon` at most (nil: its
    /// maximum hold). A live builder passes the present time.
    package func partials(through horizon: Date? = nil) -> [Int64: StatisticsPartial] {
        let limit = horizon?.storeValue ?? .infinity
        var result: [Int64: StatisticsPartial] = [:]
        forEachStream { source, stream in
            var partial = stream.partial
            if let pending = stream.pending { apply(pending, until: limit, to: &partial, source: source) }
            if !partial.isEmpty { result[source] = partial }
        }
        return result
    }

    /// The statistics merged over sources and per source; `merged` is nil when nothing was a member.
    package func values(
        through horizon: Date? = nil
    ) -> (merged: HKStatistics.Values?, bySource: [Int64: HKStatistics.Values]) {
        let partials = partials(through: horizon)
        var merged = StatisticsPartial()
        var bySource: [Int64: HKStatistics.Values] = [:]
        for (source, partial) in partials {
            merged.combine(partial)
            bySource[source] = partial.values(style: style)
        }
        return (merged.values(style: style), bySource)
    }

    private func apply(_ pending: Pending, until next: Double, to partial: inout StatisticsPartial, source: Int64) {
        let coverEnd = max(pending.instant, min(next, pending.holdLimit))
        contribute(
            start: pending.instant, coverEnd: coverEnd, value: pending.value, end: pending.instant, source: source,
            to: &partial)
    }

    /// Adds a quantity whose coverage is already known: `[start, coverEnd)`, an instant when equal, its own
    /// interval ending at `end`. No hold is applied (the collection engine resolves holds across intervals).
    package mutating func addCovered(start: Double, coverEnd: Double, value: Double, end: Double, source: Int64) {
        var stream = takeStream(source)
        contribute(start: start, coverEnd: coverEnd, value: value, end: end, source: source, to: &stream.partial)
        putStream(stream, source)
    }

    /// Adds a summary without touching holds (the collection engine resolves holds).
    package mutating func addCovered(summary: StatisticsPartial, source: Int64) {
        var stream = takeStream(source)
        stream.partial.combine(summary)
        putStream(stream, source)
    }

    /// Adds a quantity covering `[start, coverEnd)` (an instant when equal) whose own interval ends at `end`.
    private func contribute(
        start: Double, coverEnd: Double, value: Double, end: Double, source: Int64,
        to partial: inout StatisticsPartial
    ) {
        let overlap: Double
        if coverEnd > start {
            guard start < rangeEnd && coverEnd > rangeStart else { return }
            overlap = min(coverEnd, rangeEnd) - max(start, rangeStart)
        } else {
            guard start >= rangeStart && start < rangeEnd else { return }
            overlap = 0
        }
        partial.count += 1
        partial.duration += overlap
        partial.firstStart = min(partial.firstStart, max(start, rangeStart))
        partial.lastEnd = max(partial.lastEnd, min(coverEnd, rangeEnd))
        switch style {
        case .cumulative:
            partial.sum += coverEnd > start ? value * (overlap / (coverEnd - start)) : value
        case .discreteArithmetic:
            partial.sum += value
        case .discreteTemporallyWeighted:
            partial.sum += value
            partial.weightedSum += value * overlap
            partial.weight += overlap
        case .discreteEquivalentContinuousLevel:
            partial.sum += value
            partial.weightedSum += pow(10, value / 10) * overlap
            partial.weight += overlap
        }
        if style != .cumulative {
            partial.minimum = min(partial.minimum, value)
            partial.maximum = max(partial.maximum, value)
        }
        let candidate = StatisticsPartial.MostRecent(
            clippedEnd: min(coverEnd, rangeEnd), source: source, value: value,
            start: start, end: max(start, end))
        if partial.mostRecent.map({ candidate.isMoreRecent(than: $0) }) ?? true { partial.mostRecent = candidate }
    }
}

extension HKQuantityAggregationStyle {
    /// Whether a zero-length quantity of this style holds its value until the next one (time-weighted styles).
    package var holdsInstants: Bool {
        self == .discreteTemporallyWeighted || self == .discreteEquivalentContinuousLevel
    }
}

extension StatisticsAccumulator {
    /// The summary of a whole series: its quantities' partial over `[first start, +∞)`, the last zero-length value
    /// holding at most until `seriesEnd`. Adding it to an accumulator whose range contains the series gives the
    /// same statistics as adding each quantity.
    package static func summary(
        style: HKQuantityAggregationStyle, of quantities: [SeriesQuantity], seriesEnd: Double,
        maximumHold: TimeInterval = defaultMaximumHold
    ) -> StatisticsPartial {
        guard let first = quantities.first else { return StatisticsPartial() }
        var accumulator = StatisticsAccumulator(
            style: style, rangeStart: first.start, rangeEnd: .infinity,
            maximumHold: maximumHold)
        for quantity in quantities {
            accumulator.add(
                start: quantity.start, end: quantity.end, value: quantity.value, source: 0,
                holdLimit: seriesEnd)
        }
        return accumulator.partials(through: Date(storeValue: seriesEnd))[0] ?? StatisticsPartial()
    }

    /// One stream's quantities (in start order) with the coverage this engine gives a zero-length quantity of a
    /// holding style written out: until the next quantity's start (the last one's: `nextStart`, the stream's next
    /// quantity or a series' end), at most `maximumHold`. The statistics of the result are those of the quantities
    /// held, whatever comes after them; quantities of other styles are returned as they are.
    package static func covered(
        _ quantities: [SeriesQuantity], style: HKQuantityAggregationStyle, nextStart: Double,
        maximumHold: TimeInterval = defaultMaximumHold
    ) -> [SeriesQuantity] {
        guard style.holdsInstants else { return quantities }
        var covered = quantities
        for index in covered.indices where covered[index].end <= covered[index].start {
            let start = covered[index].start
            let next = index + 1 < covered.count ? covered[index + 1].start : nextStart
            covered[index].end = max(start, min(next, start + maximumHold))
        }
        return covered
    }

    /// Statistics over samples in `[start, end)`: every statistic the type's style allows, merged and per source;
    /// nil when no sample is a member. A series sample (`count > 1`) counts as one quantity of its `quantity`
    /// (its sum or average) over its interval.
    ///
    /// HealthKit: HKStatistics (what HKLiveWorkoutBuilder.statistics(for:) reports).
    package static func statistics(
        for type: HKQuantityType, samples: [HKQuantitySample], start: Date,
        end: Date
    ) -> HKStatistics? {
        var accumulator = StatisticsAccumulator(style: type.aggregationStyle, start: start, end: end)
        var sources: [HKSource: Int64] = [:]
        var sourceOrder: [HKSource] = []
        let unit = type.storageUnit
        for sample in samples.sorted(by: { $0.startDate < $1.startDate }) where sample.quantityType == type {
            let source = sample.sourceRevision.source
            let key: Int64
            if let known = sources[source] {
                key = known
            } else {
                key = Int64(sourceOrder.count)
                sources[source] = key
                sourceOrder.append(source)
            }
            accumulator.add(
                start: sample.startDate, end: sample.endDate,
                value: sample.quantity.doubleValue(for: unit), source: key)
        }
        let (merged, bySource) = accumulator.values()
        guard let merged else { return nil }
        var perSource: [HKSource: HKStatistics.Values] = [:]
        for (key, values) in bySource { perSource[sourceOrder[Int(key)]] = values }
        return HKStatistics(quantityType: type, startDate: start, endDate: end, merged: merged, bySource: perSource)
    }
}

/// One quantity of a series: its interval (seconds since the reference date) and value in the storage unit.
package struct SeriesQuantity: Sendable, Equatable {
    package var start: Double
    package var end: Double
    package var value: Double

    package init(start: Double, end: Double, value: Double) {
        self.start = start
        self.end = end
        self.value = value
    }
}
