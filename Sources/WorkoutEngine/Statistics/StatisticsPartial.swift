import Foundation
import HealthKitModel

/// What one source's quantities contribute to statistics over a date range, before the final division.
///
/// Partials are additive: the partial of a set of quantities is the combination of the partials of any split of
/// that set, so statistics can be assembled from per-sample values, from stored series summaries and from SQL sums
/// alike, and merged across sources. All values are in the type's storage unit; times are seconds since the
/// reference date.
///
/// HealthKit: the values behind HKStatistics (sumQuantity, averageQuantity, minimumQuantity, maximumQuantity,
/// mostRecentQuantity, duration).
package struct StatisticsPartial: Sendable, Equatable {
    /// The number of quantities that are members of the range.
    package var count: Int = 0
    /// Cumulative: the prorated sum. Discrete: the plain sum of member values (for the arithmetic mean).
    package var sum: Double = 0
    /// Time-weighted styles: the integral of value (or of sound energy, for Leq) over covered time in the range.
    package var weightedSum: Double = 0
    /// Time-weighted styles: the covered time in the range that `weightedSum` integrates over.
    package var weight: Double = 0
    package var minimum: Double = .infinity
    package var maximum: Double = -.infinity
    /// The member whose coverage ends last inside the range; ties go to the larger source key, then the larger value.
    package var mostRecent: MostRecent?
    /// The time covered by the members inside the range, summed per quantity.
    package var duration: Double = 0
    /// The earliest start and the latest coverage end of the members, clipped to the range: the span a statistics
    /// query reports (a held heart-rate value covers its hold).
    package var firstStart: Double = .infinity
    package var lastEnd: Double = -.infinity

    /// The most recent member: its value, its own interval, and its coverage end clipped to the range (the ordering
    /// key, so that a held value and the coalesced quantity that replaces it order the same way).
    package struct MostRecent: Sendable, Equatable {
        package var clippedEnd: Double
        package var source: Int64
        package var value: Double
        package var start: Double
        package var end: Double

        package func isMoreRecent(than other: MostRecent) -> Bool {
            if clippedEnd != other.clippedEnd { return clippedEnd > other.clippedEnd }
            if source != other.source { return source > other.source }
            return value > other.value
        }

        package init(clippedEnd: Double, source: Int64, value: Double, start: Double, end: Double) {
            self.clippedEnd = clippedEnd
            self.source = source
            self.value = value
            self.start = start
            self.end = end
        }
    }

    package var isEmpty: Bool { count == 0 }

    package mutating func combine(_ other: StatisticsPartial) {
        guard !other.isEmpty else { return }
        count += other.count
        sum += other.sum
        weightedSum += other.weightedSum
        weight += other.weight
        minimum = Swift.min(minimum, other.minimum)
        maximum = Swift.max(maximum, other.maximum)
        duration += other.duration
        firstStart = Swift.min(firstStart, other.firstStart)
        lastEnd = Swift.max(lastEnd, other.lastEnd)
        if let candidate = other.mostRecent, mostRecent.map({ candidate.isMoreRecent(than: $0) }) ?? true {
            mostRecent = candidate
        }
    }

    package func combined(with other: StatisticsPartial) -> StatisticsPartial {
        var copy = self
        copy.combine(other)
        return copy
    }

    /// The statistics these contributions give, for a type of the given aggregation style; nil when no quantity was
    /// a member of the range.
    ///
    /// - Cumulative: sum, most recent, duration.
    /// - Discrete arithmetic: the plain mean of member values; minimum, maximum, most recent, duration.
    /// - Discrete temporally weighted: `weightedSum / weight`; when no member covers any time (instants at the
    ///   same moment, or a range of zero length) the plain mean instead.
    /// - Equivalent continuous level: `10·log10(mean of 10^(L/10))`, time-weighted like heart rate.
    package func values(style: HKQuantityAggregationStyle) -> HKStatistics.Values? {
        guard count > 0 else { return nil }
        var values = HKStatistics.Values()
        if let recent = mostRecent {
            values.mostRecent = recent.value
            values.mostRecentInterval = DateInterval(
                start: Date(storeValue: recent.start),
                end: Date(storeValue: Swift.max(recent.start, recent.end)))
        }
        values.duration = duration
        switch style {
        case .cumulative:
            values.sum = sum
            return values
        case .discreteArithmetic:
            values.average = sum / Double(count)
        case .discreteTemporallyWeighted:
            values.average = weight > 0 ? weightedSum / weight : sum / Double(count)
        case .discreteEquivalentContinuousLevel:
            values.average = weight > 0 ? 10 * log10(weightedSum / weight) : sum / Double(count)
        }
        values.minimum = minimum
        values.maximum = maximum
        return values
    }

    package init(
        count: Int = 0, sum: Double = 0, weightedSum: Double = 0, weight: Double = 0, minimum: Double = .infinity,
        maximum: Double = -.infinity, mostRecent: MostRecent? = nil, duration: Double = 0,
        firstStart: Double = .infinity, lastEnd: Double = -.infinity
    ) {
        self.count = count
        self.sum = sum
        self.weightedSum = weightedSum
        self.weight = weight
        self.minimum = minimum
        self.maximum = maximum
        self.mostRecent = mostRecent
        self.duration = duration
        self.firstStart = firstStart
        self.lastEnd = lastEnd
    }
}
