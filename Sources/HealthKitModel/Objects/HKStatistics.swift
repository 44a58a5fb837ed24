import Foundation

/// Statistics over the samples of one quantity type in a date range: sum, average, minimum, maximum, most recent
/// and duration, overall and per source.
///
/// Quantities come back in the type's storage unit; convert with `doubleValue(for:)`.
///
/// HealthKit: HKStatistics.
public final class HKStatistics: NSObject, NSCopying, Sendable {
    /// The values of one set of statistics, in the type's storage unit. Each is nil when not computed.
    package struct Values: Sendable, Equatable {
        package var sum: Double?
        package var average: Double?
        package var minimum: Double?
        package var maximum: Double?
        package var mostRecent: Double?
        package var mostRecentInterval: DateInterval?
        package var duration: TimeInterval?

        package init(
            sum: Double? = nil, average: Double? = nil, minimum: Double? = nil, maximum: Double? = nil,
            mostRecent: Double? = nil, mostRecentInterval: DateInterval? = nil, duration: TimeInterval? = nil
        ) {
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
    package let merged: Values
    package let bySource: [HKSource: Values]
    /// The options a statistics query asked for; nil when every statistic may be read (a builder's statistics).
    package let options: HKStatisticsOptions?

    package init(
        quantityType: HKQuantityType, startDate: Date, endDate: Date, merged: Values,
        bySource: [HKSource: Values] = [:],
        options: HKStatisticsOptions? = nil
    ) {
        self.quantityType = quantityType
        self.startDate = startDate
        self.endDate = endDate
        self.merged = merged
        self.bySource = bySource
        self.options = options
    }

    /// The sources that contributed, when the statistics were computed per source.
    public var sources: [HKSource]? { bySource.isEmpty ? nil : Array(bySource.keys) }

    private func quantity(_ value: Double?) -> HKQuantity? {
        value.map { HKQuantity(unit: quantityType.storageUnit, doubleValue: $0) }
    }

    /// Traps, as HealthKit raises, when a statistic is read that the query did not ask for or that the type's
    /// aggregation style does not have.
    private func require(_ option: HKStatisticsOptions, _ name: String, perSource: Bool = false) {
        let discrete = quantityType.aggregationStyle.isDiscrete
        if HKStatisticsOptions.discreteOnly.contains(option) && !discrete {
            preconditionFailure(
                "OpenHealthKit: HKStatistics.\(name) is a discrete statistic; \(quantityType.identifier) is cumulative."
            )
        }
        if option == .cumulativeSum && discrete {
            preconditionFailure(
                "OpenHealthKit: HKStatistics.\(name) is a cumulative statistic; \(quantityType.identifier) is discrete."
            )
        }
        guard let options else { return }
        if !options.contains(option) {
            preconditionFailure(
                "OpenHealthKit: HKStatistics.\(name) was not requested: add it to the query's HKStatisticsOptions.")
        }
        if perSource && !options.contains(.separateBySource) {
            preconditionFailure("OpenHealthKit: HKStatistics.\(name)(for:) needs the separateBySource option.")
        }
    }

    /// The average of the matching quantities (time-weighted for heart rate). HealthKit: HKStatistics.averageQuantity().
    public func averageQuantity() -> HKQuantity? {
        require(.discreteAverage, "averageQuantity()")
        return quantity(merged.average)
    }
    public func averageQuantity(for source: HKSource) -> HKQuantity? {
        require(.discreteAverage, "averageQuantity", perSource: true)
        return quantity(bySource[source]?.average)
    }
    /// HealthKit: HKStatistics.minimumQuantity().
    public func minimumQuantity() -> HKQuantity? {
        require(.discreteMin, "minimumQuantity()")
        return quantity(merged.minimum)
    }
    public func minimumQuantity(for source: HKSource) -> HKQuantity? {
        require(.discreteMin, "minimumQuantity", perSource: true)
        return quantity(bySource[source]?.minimum)
    }
    /// HealthKit: HKStatistics.maximumQuantity().
    public func maximumQuantity() -> HKQuantity? {
        require(.discreteMax, "maximumQuantity()")
        return quantity(merged.maximum)
    }
    public func maximumQuantity(for source: HKSource) -> HKQuantity? {
        require(.discreteMax, "maximumQuantity", perSource: true)
        return quantity(bySource[source]?.maximum)
    }
    /// The sum, cumulative types prorated to the interval. HealthKit: HKStatistics.sumQuantity().
    public func sumQuantity() -> HKQuantity? {
        require(.cumulativeSum, "sumQuantity()")
        return quantity(merged.sum)
    }
    public func sumQuantity(for source: HKSource) -> HKQuantity? {
        require(.cumulativeSum, "sumQuantity", perSource: true)
        return quantity(bySource[source]?.sum)
    }
    /// HealthKit: HKStatistics.mostRecentQuantity().
    public func mostRecentQuantity() -> HKQuantity? {
        require(.mostRecent, "mostRecentQuantity()")
        return quantity(merged.mostRecent)
    }
    public func mostRecentQuantity(for source: HKSource) -> HKQuantity? {
        require(.mostRecent, "mostRecentQuantity", perSource: true)
        return quantity(bySource[source]?.mostRecent)
    }
    /// HealthKit: HKStatistics.mostRecentQuantityDateInterval().
    public func mostRecentQuantityDateInterval() -> DateInterval? {
        require(.mostRecent, "mostRecentQuantityDateInterval()")
        return merged.mostRecentInterval
    }
    public func mostRecentQuantityDateInterval(for source: HKSource) -> DateInterval? {
        require(.mostRecent, "mostRecentQuantityDateInterval", perSource: true)
        return bySource[source]?.mostRecentInterval
    }
    /// The total time covered by the samples. HealthKit: HKStatistics.duration().
    public func duration() -> HKQuantity? {
        require(.duration, "duration()")
        return merged.duration.map { HKQuantity(unit: .second(), doubleValue: $0) }
    }
    public func duration(for source: HKSource) -> HKQuantity? {
        require(.duration, "duration", perSource: true)
        return bySource[source]?.duration.map { HKQuantity(unit: .second(), doubleValue: $0) }
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
        return
            "<HKStatistics \(quantityType.identifier) \(parts.joined(separator: ", ")) \(quantityType.storageUnit.unitString)>"
    }
}
