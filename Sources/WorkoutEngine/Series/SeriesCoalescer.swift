import Foundation
import HealthKitModel

/// Turns a run of one source's quantities into the quantities of a condensed series without changing any
/// statistic. Pure.
///
/// - **Time-weighted types** (heart rate): each zero-length quantity is given the coverage the statistics engine
///   would give it (until the next quantity of the stream, at most the maximum hold), so a stored quantity carries
///   its weight explicitly. Then consecutive quantities with equal values whose coverages touch merge into one
///   quantity spanning them ("equal heart-rate values close in time").
/// - **Cumulative types**: consecutive quantities that are contiguous (one ends where the next starts) and have the
///   same rate (value per second, within 1e-12 relative) merge into one quantity spanning both with the summed value.
/// - Zero-length quantities that cover no time never merge; other styles are returned unchanged.
///
/// HealthKit: "Accessing condensed workout samples" (coalescing rules).
package enum SeriesCoalescer {
    /// - Parameters:
    ///   - quantities: one source's quantities in start order.
    ///   - nextStart: the start of the stream's next quantity after the run (its hold limit), or +∞.
    package static func condense(
        _ quantities: [SeriesQuantity], nextStart: Double, style: HKQuantityAggregationStyle,
        maximumHold: TimeInterval = StatisticsAccumulator.defaultMaximumHold
    ) -> [SeriesQuantity] {
        switch style {
        case .discreteTemporallyWeighted, .discreteEquivalentContinuousLevel:
            let covered = StatisticsAccumulator.covered(
                quantities, style: style, nextStart: nextStart, maximumHold: maximumHold)
            return merge(covered) { $0.value == $1.value ? $0.value : nil }
        case .cumulative:
            return merge(quantities) { a, b in
                let rateA = a.value / (a.end - a.start)
                let rateB = b.value / (b.end - b.start)
                let tolerance = 1e-12 * max(abs(rateA), abs(rateB))
                return abs(rateA - rateB) <= tolerance ? a.value + b.value : nil
            }
        case .discreteArithmetic:
            return quantities
        }
    }

    /// Merges neighbours that both cover time, touch, and for which `combine` gives a merged value.
    private static func merge(
        _ quantities: [SeriesQuantity],
        _ combine: (SeriesQuantity, SeriesQuantity) -> Double?
    ) -> [SeriesQuantity] {
        var result: [SeriesQuantity] = []
        result.reserveCapacity(quantities.count)
        for quantity in quantities {
            if var last = result.last, last.end > last.start, quantity.end > quantity.start, last.end == quantity.start,
                let value = combine(last, quantity)
            {
                last.end = quantity.end
                last.value = value
                result[result.count - 1] = last
            } else {
                result.append(quantity)
            }
        }
        return result
    }

    /// Whether samples of a type are folded into series by condensing: every type. Arithmetic-mean types (power,
    /// cadence, speed) keep each quantity as a point, since merging equal values would change their mean; the
    /// series codec still stores them in a fraction of the rows' space.
    package static func isCondensable(_ type: HKQuantityType) -> Bool { true }
}
