import Foundation

/// Which statistics a statistics query computes.
///
/// A discrete option (average, minimum, maximum) cannot be combined with a cumulative one (sum), and each must
/// match the quantity type's aggregation style; ``separateBySource`` combines with any. `mostRecent` and
/// `duration` apply to both styles.
///
/// HealthKit: HKStatisticsOptions (raw values as Apple's).
public struct HKStatisticsOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Also compute every statistic per source. HealthKit: HKStatisticsOptions.separateBySource.
    public static let separateBySource = HKStatisticsOptions(rawValue: 1 << 0)
    /// The average (discrete types). HealthKit: HKStatisticsOptions.discreteAverage.
    public static let discreteAverage = HKStatisticsOptions(rawValue: 1 << 1)
    /// The minimum (discrete types). HealthKit: HKStatisticsOptions.discreteMin.
    public static let discreteMin = HKStatisticsOptions(rawValue: 1 << 2)
    /// The maximum (discrete types). HealthKit: HKStatisticsOptions.discreteMax.
    public static let discreteMax = HKStatisticsOptions(rawValue: 1 << 3)
    /// The sum (cumulative types). HealthKit: HKStatisticsOptions.cumulativeSum.
    public static let cumulativeSum = HKStatisticsOptions(rawValue: 1 << 4)
    /// The most recent quantity and its date interval. HealthKit: HKStatisticsOptions.mostRecent.
    public static let mostRecent = HKStatisticsOptions(rawValue: 1 << 5)
    /// The older spelling of ``mostRecent``. HealthKit: HKStatisticsOptions.discreteMostRecent.
    @available(*, deprecated, renamed: "mostRecent")
    public static let discreteMostRecent = HKStatisticsOptions(rawValue: 1 << 5)
    /// The time covered by the samples. HealthKit: HKStatisticsOptions.duration.
    public static let duration = HKStatisticsOptions(rawValue: 1 << 6)

    package static let discreteOnly: HKStatisticsOptions = [.discreteAverage, .discreteMin, .discreteMax]

    /// Traps, as HealthKit raises an exception, when the options do not fit the type's aggregation style.
    package func check(for type: HKQuantityType, function: String) {
        let discrete = type.aggregationStyle.isDiscrete
        if discrete && contains(.cumulativeSum) {
            preconditionFailure(
                "OpenHealthKit: \(function): the cumulativeSum option cannot be used with the discrete type \(type.identifier)."
            )
        }
        if !discrete && !intersection(Self.discreteOnly).isEmpty {
            preconditionFailure(
                "OpenHealthKit: \(function): discrete options (discreteAverage, discreteMin, discreteMax) cannot be used with the cumulative type \(type.identifier)."
            )
        }
    }
}
