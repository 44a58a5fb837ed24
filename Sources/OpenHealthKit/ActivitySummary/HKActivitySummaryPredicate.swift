import Foundation
import HealthKitModel
import WorkoutEngine

/// The predicate of ``HKQuery/predicateForActivitySummary(with:)`` and
/// ``HKQuery/predicate(forActivitySummariesBetweenStart:end:)``: the calendar days from `start` to `end`, both
/// included. Combine them with `NSCompoundPredicate` (and, or, not). OpenHealthKit.
public final class HKActivitySummaryPredicate: NSPredicate {
    /// The first and last day (era/year/month/day; `calendar` if the components carry one, else the current one).
    let first: DateComponents
    let last: DateComponents

    init(first: DateComponents, last: DateComponents) {
        self.first = first
        self.last = last
        super.init(value: true)
    }

    public required init?(coder: NSCoder) { nil }

    public override var predicateFormat: String {
        "activity summaries from \(first.year ?? 0)-\(first.month ?? 0)-\(first.day ?? 0) to \(last.year ?? 0)-\(last.month ?? 0)-\(last.day ?? 0)"
    }

    /// The days as the start of the first and the end of the last, or nil when a component set names no day.
    func interval() -> (start: Date, end: Date)? {
        let calendar = first.calendar ?? last.calendar ?? Calendar.current
        guard let firstDate = Self.date(first, calendar), let lastDate = Self.date(last, calendar),
            let end = calendar.dateInterval(of: .day, for: lastDate)?.end
        else { return nil }
        return (calendar.startOfDay(for: firstDate), end)
    }

    private static func date(_ components: DateComponents, _ calendar: Calendar) -> Date? {
        guard components.year != nil, components.month != nil, components.day != nil else { return nil }
        var day = DateComponents()
        day.era = components.era
        day.year = components.year
        day.month = components.month
        day.day = components.day
        day.hour = 12  // noon: a day that begins at 01:00 (a daylight-saving change at midnight) still has a noon
        return (components.calendar ?? calendar).date(from: day)
    }

    public override func evaluate(with object: Any?) -> Bool {
        guard let summary = object as? HKActivitySummary, let start = summary.dayStart, let range = interval() else {
            return false
        }
        return start >= range.start && start < range.end
    }

    /// What span of days a predicate can match, for the store to compute no more days than needed.
    enum Bounds {
        case unbounded
        case days(start: Date, end: Date)
        /// Not an activity-summary predicate (or a component set that names no day).
        case invalid
    }

    static func bounds(of predicate: NSPredicate?) -> Bounds {
        guard let predicate else { return .unbounded }
        if let days = predicate as? HKActivitySummaryPredicate {
            guard let interval = days.interval() else { return .invalid }
            return .days(start: interval.start, end: interval.end)
        }
        guard let compound = predicate as? NSCompoundPredicate else { return .invalid }
        let parts = compound.subpredicates.map { bounds(of: $0) }
        if parts.contains(where: { if case .invalid = $0 { true } else { false } }) { return .invalid }
        switch compound.compoundPredicateType {
        case .and:
            var result = Bounds.unbounded
            for case let .days(start, end) in parts {
                if case let .days(s, e) = result {
                    result = .days(start: max(s, start), end: min(e, end))
                } else {
                    result = .days(start: start, end: end)
                }
            }
            return result
        case .or:
            var result: Bounds? = nil
            for part in parts {
                guard case let .days(start, end) = part else { return .unbounded }
                if case let .days(s, e)? = result {
                    result = .days(start: min(s, start), end: max(e, end))
                } else {
                    result = part
                }
            }
            return result ?? .unbounded
        default:
            return .unbounded
        }
    }
}

extension HKQuery {
    /// Activity summaries of one day: `dateComponents` needs era (optional), year, month and day, and its
    /// `calendar` (else the current calendar). HealthKit: HKQuery.predicateForActivitySummary(with:).
    public class func predicateForActivitySummary(with dateComponents: DateComponents) -> NSPredicate {
        HKActivitySummaryPredicate(first: dateComponents, last: dateComponents)
    }

    /// Activity summaries from the start day to the end day, both included.
    /// HealthKit: HKQuery.predicate(forActivitySummariesBetweenStart:end:).
    public class func predicate(
        forActivitySummariesBetweenStart startDateComponents: DateComponents,
        end endDateComponents: DateComponents
    ) -> NSPredicate {
        HKActivitySummaryPredicate(first: startDateComponents, last: endDateComponents)
    }

    /// OpenHealthKit's former spelling of `predicate(forActivitySummariesBetweenStart:end:)` (HealthKit never had it);
    /// kept one release.
    @available(*, deprecated, renamed: "predicate(forActivitySummariesBetweenStart:end:)")
    public class func predicateForActivitySummaries(
        withStart startDateComponents: DateComponents,
        end endDateComponents: DateComponents
    ) -> NSPredicate {
        predicate(forActivitySummariesBetweenStart: startDateComponents, end: endDateComponents)
    }
}
