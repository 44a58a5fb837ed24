import Foundation
import HealthKitModel

/// The intervals of a statistics collection: equal steps of `intervalComponents` from `anchorDate`, tiling time
/// in both directions without gaps. Steps are calendar-aware: a day is a calendar day (23 or 25 hours across a
/// daylight-saving change), a month a calendar month.
///
/// Interval *k* starts at `anchor + k × components` (k may be negative) and ends where interval *k + 1* starts.
///
/// HealthKit: HKStatisticsCollectionQuery (anchorDate, intervalComponents).
package struct DateTiling: Sendable {
    package let anchor: Date
    package let components: DateComponents
    package let calendar: Calendar
    /// An estimate of one step's length, to find an interval without walking from the anchor.
    private let nominalLength: TimeInterval

    package init(anchor: Date, components: DateComponents, calendar: Calendar = .current) {
        self.anchor = anchor
        self.components = components
        self.calendar = calendar
        let next = calendar.date(byAdding: components, to: anchor) ?? anchor
        nominalLength = next.timeIntervalSince(anchor)
        precondition(
            nominalLength > 0,
            "OpenHealthKit: HKStatisticsCollectionQuery: intervalComponents must describe a positive interval.")
    }

    /// The start of interval `index`.
    package func start(of index: Int) -> Date {
        guard index != 0 else { return anchor }
        var scaled = DateComponents()
        let fields: [Calendar.Component] = [
            .era, .year, .month, .weekOfYear, .day, .hour, .minute, .second, .nanosecond,
        ]
        for field in fields {
            if let value = components.value(for: field), value != 0 { scaled.setValue(value * index, for: field) }
        }
        return calendar.date(byAdding: scaled, to: anchor) ?? anchor.addingTimeInterval(nominalLength * Double(index))
    }

    /// The index of the interval containing `date` (intervals are half-open).
    package func index(containing date: Date) -> Int {
        var index = Int((date.timeIntervalSince(anchor) / nominalLength).rounded(.down))
        while start(of: index) > date { index -= 1 }
        while start(of: index + 1) <= date { index += 1 }
        return index
    }

    /// The interval with this index.
    package func interval(_ index: Int) -> DateInterval {
        DateInterval(start: start(of: index), end: start(of: index + 1))
    }
}
