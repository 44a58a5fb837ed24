import Foundation

/// Statistics over the samples of one quantity type in a date range: sum, average, minimum, maximum, most recent
/// and duration, overall and per source.
///
/// Quantities come back in the type's storage unit; convert with `doubleValue(for:)`.
///
/// HealthKit: HKStatistics.
public final class HKStatistics: NSObject, NSCopying, @unchecked Sendable {
    /// The values of one set of statistics, in the type's storage unit. Each is nil when not computed.
    struct Values: Sendable, Equatable {
        var sum: Double?
        var average: Double?
        var minimum: Double?
        var maximum: Double?
        var mostRecent: Double?
        var mostRecentInterval: DateInterval?
        var duration: TimeInterval?

        init(sum: Double? = nil, average: Double? = nil, minimum: Double? = nil, maximum: Double? = nil,
             mostRecent: Double? = nil, mostRecentInterval: DateInterval? = nil, duration: TimeInterval? = nil) {
            self.sum = sum
            self.average = average
            self.minimum = minimum
            self.maximum = maximum
            self.mostRecent = mostRecent
            self.mostRecentInterval = mostRecentInterval
            self.duration = duration
        }
    }

    public let quantityType: HKQuantityType
    public let startDate: Date
    public let endDate: Date
    let merged: Values
    let bySource: [HKSource: Values]

    init(quantityType: HKQuantityType, startDate: Date, endDate: Date, merged: Values, bySource: [HKSource: Values] = [:]) {
        self.quantityType = quantityType
        self.startDate = startDate
        self.endDate = endDate
        self.merged = merged
        self.bySource = bySource
    }

    /// The sources that contributed, when the statistics were computed per source.
    public var sources: [HKSource]? { bySource.isEmpty ? nil : Array(bySource.keys) }

    private func quantity(_ value: Double?) -> HKQuantity? {
        value.map { HKQuantity(unit: quantityType.storageUnit, doubleValue: $0) }
    }

    public func averageQuantity() -> HKQuantity? { quantity(merged.average) }
    public func averageQuantity(for source: HKSource) -> HKQuantity? { quantity(bySource[source]?.average) }
    public func minimumQuantity() -> HKQuantity? { quantity(merged.minimum) }
    public func minimumQuantity(for source: HKSource) -> HKQuantity? { quantity(bySource[source]?.minimum) }
    public func maximumQuantity() -> HKQuantity? { quantity(merged.maximum) }
    public func maximumQuantity(for source: HKSource) -> HKQuantity? { quantity(bySource[source]?.maximum) }
    public func sumQuantity() -> HKQuantity? { quantity(merged.sum) }
    public func sumQuantity(for source: HKSource) -> HKQuantity? { quantity(bySource[source]?.sum) }
    public func mostRecentQuantity() -> HKQuantity? { quantity(merged.mostRecent) }
    public func mostRecentQuantity(for source: HKSource) -> HKQuantity? { quantity(bySource[source]?.mostRecent) }
    public func mostRecentQuantityDateInterval() -> DateInterval? { merged.mostRecentInterval }
    public func mostRecentQuantityDateInterval(for source: HKSource) -> DateInterval? { bySource[source]?.mostRecentInterval }
    /// The total time covered by the samples. HealthKit: HKStatistics.duration().
    public func duration() -> HKQuantity? { merged.duration.map { HKQuantity(unit: .second(), doubleValue: $0) } }
    public func duration(for source: HKSource) -> HKQuantity? {
        bySource[source]?.duration.map { HKQuantity(unit: .second(), doubleValue: $0) }
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKStatistics else { return false }
        return other.quantityType == quantityType && other.startDate == startDate && other.endDate == endDate
            && other.merged == merged
    }

    public override var hash: Int { quantityType.hash }

    public override var description: String {
        var parts: [String] = []
        if let v = merged.sum { parts.append("sum \(v)") }
        if let v = merged.average { parts.append("avg \(v)") }
        if let v = merged.minimum { parts.append("min \(v)") }
        if let v = merged.maximum { parts.append("max \(v)") }
        return "<HKStatistics \(quantityType.identifier) \(parts.joined(separator: ", ")) \(quantityType.storageUnit.unitString)>"
    }
}
