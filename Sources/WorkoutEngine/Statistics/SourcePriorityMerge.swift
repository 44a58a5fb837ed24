import Foundation
import HealthKitModel

/// Merges the quantities of a cumulative type from several sources into one stream by source priority, so that a
/// stretch of time recorded by two sources is counted once. Pure.
///
/// Sources are taken from the highest priority down. A source's quantity counts only for the part of its interval
/// that no higher-priority source covers: the uncovered pieces keep the quantity's rate (its value prorated by
/// time, as statistics prorate across interval bounds). A zero-length quantity counts when its instant lies outside
/// every higher-priority source's coverage (`[start, end)`). A source's own quantities never hide each other.
///
/// Example: source A (priority 1) saved 500 m over each minute of 10:00–11:00; source B (priority 2) saved 500 m over
/// each minute of 10:30–11:30. Merged: A's 60 × 500 m plus B's 30 minutes after 11:00, 30 × 500 m: 45,000 m.
///
/// HealthKit: "By default, these queries automatically merge the data from all of your data sources" (HKStatistics);
/// the Health app's Data Sources order decides which source's data counts where sources overlap.
package enum SourcePriorityMerge {
    /// One piece of the merged stream: the source key it came from and its (possibly trimmed) quantity.
    package struct Piece: Sendable, Equatable {
        package var source: Int64
        package var quantity: SeriesQuantity

        package init(source: Int64, quantity: SeriesQuantity) {
            self.source = source
            self.quantity = quantity
        }
    }

    /// - Parameter streams: each priority level's quantities (highest priority first), each tagged with its source
    ///   key (revisions of one source share a level). Any order within a level.
    /// - Returns: the merged pieces in start order.
    package static func merge(_ streams: [[Piece]]) -> [Piece] {
        var claimed: [(start: Double, end: Double)] = []  // disjoint, in start order
        var result: [Piece] = []
        for stream in streams {
            var covering: [(start: Double, end: Double)] = []
            for piece in stream {
                let quantity = piece.quantity
                if quantity.end > quantity.start {
                    covering.append((quantity.start, quantity.end))
                    for gap in uncovered(quantity.start, quantity.end, by: claimed) {
                        let share = (gap.end - gap.start) / (quantity.end - quantity.start)
                        result.append(
                            Piece(
                                source: piece.source,
                                quantity: SeriesQuantity(
                                    start: gap.start, end: gap.end,
                                    value: quantity.value * share)))
                    }
                } else if !isCovered(quantity.start, by: claimed) {
                    result.append(piece)
                }
            }
            claimed = union(claimed, covering)
        }
        result.sort { $0.quantity.start < $1.quantity.start }
        return result
    }

    /// The index of the first claimed interval ending after `time`.
    private static func firstEnding(after time: Double, in claimed: [(start: Double, end: Double)]) -> Int {
        var low = 0
        var high = claimed.count
        while low < high {
            let middle = (low + high) / 2
            if claimed[middle].end <= time { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private static func isCovered(_ time: Double, by claimed: [(start: Double, end: Double)]) -> Bool {
        let index = firstEnding(after: time, in: claimed)
        return index < claimed.count && claimed[index].start <= time
    }

    /// The parts of `[start, end)` outside the claimed intervals.
    private static func uncovered(
        _ start: Double, _ end: Double,
        by claimed: [(start: Double, end: Double)]
    ) -> [(start: Double, end: Double)] {
        var gaps: [(start: Double, end: Double)] = []
        var cursor = start
        var index = firstEnding(after: start, in: claimed)
        while cursor < end {
            guard index < claimed.count, claimed[index].start < end else {
                gaps.append((cursor, end))
                break
            }
            if claimed[index].start > cursor { gaps.append((cursor, claimed[index].start)) }
            cursor = max(cursor, claimed[index].end)
            index += 1
        }
        return gaps
    }

    /// The union of two sets of intervals, as disjoint intervals in start order.
    private static func union(
        _ a: [(start: Double, end: Double)],
        _ b: [(start: Double, end: Double)]
    ) -> [(start: Double, end: Double)] {
        let all = (a + b).sorted { $0.start < $1.start }
        var merged: [(start: Double, end: Double)] = []
        for interval in all {
            if let last = merged.last, interval.start <= last.end {
                merged[merged.count - 1].end = max(last.end, interval.end)
            } else {
                merged.append(interval)
            }
        }
        return merged
    }
}
