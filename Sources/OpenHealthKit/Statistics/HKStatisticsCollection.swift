import Foundation
import HealthKitModel
import WorkoutEngine

/// Statistics over consecutive intervals of equal length, from a statistics collection query.
///
/// HealthKit: HKStatisticsCollection.
public final class HKStatisticsCollection: NSObject, Sendable {
    let quantityType: HKQuantityType
    let options: HKStatisticsOptions
    let tiling: DateTiling
    let byIndex: [Int: HKStatistics]
    private let allSources: Set<HKSource>

    init(
        quantityType: HKQuantityType, options: HKStatisticsOptions, tiling: DateTiling, byIndex: [Int: HKStatistics],
        sources: Set<HKSource>
    ) {
        self.quantityType = quantityType
        self.options = options
        self.tiling = tiling
        self.byIndex = byIndex
        self.allSources = sources
    }

    /// The statistics of the intervals that hold data, in chronological order.
    /// HealthKit: HKStatisticsCollection.statistics().
    public func statistics() -> [HKStatistics] {
        byIndex.keys.sorted().map { byIndex[$0]! }
    }

    /// The statistics of the interval containing `date`; with nil quantities when it holds no data.
    /// HealthKit: HKStatisticsCollection.statistics(for:).
    public func statistics(for date: Date) -> HKStatistics? {
        statistics(at: tiling.index(containing: date))
    }

    /// Calls `block` with the statistics of every interval from the one containing `startDate` to the one containing
    /// `endDate`, in order; intervals without data have nil quantities. Set the pointee of the second argument to
    /// true to stop. HealthKit: HKStatisticsCollection.enumerateStatistics(from:to:with:).
    public func enumerateStatistics(
        from startDate: Date, to endDate: Date,
        with block: @escaping (HKStatistics, UnsafeMutablePointer<ObjCBool>) -> Void
    ) {
        guard startDate <= endDate else { return }
        let last = tiling.index(containing: endDate)
        var stop = ObjCBool(false)
        var index = tiling.index(containing: startDate)
        while index <= last {
            withUnsafeMutablePointer(to: &stop) { block(statistics(at: index), $0) }
            if stop.boolValue { return }
            index += 1
        }
    }

    /// Every source that contributed to any interval (empty without `separateBySource`).
    /// HealthKit: HKStatisticsCollection.sources().
    public func sources() -> Set<HKSource> { allSources }

    private func statistics(at index: Int) -> HKStatistics {
        if let found = byIndex[index] { return found }
        let interval = tiling.interval(index)
        return HKStatistics(
            quantityType: quantityType, startDate: interval.start, endDate: interval.end,
            merged: HKStatistics.Values(), options: options)
    }

    /// The intervals whose statistics differ from another collection's (added, changed or gone), newest last.
    func changedIndices(since other: HKStatisticsCollection?) -> [Int] {
        let keys = Set(byIndex.keys).union(other?.byIndex.keys ?? [:].keys)
        return keys.sorted().filter { index in
            let mine = byIndex[index]
            let theirs = other?.byIndex[index]
            return mine?.merged != theirs?.merged || mine?.bySource != theirs?.bySource
        }
    }
}

extension HKStatistics.Values {
    /// Only the statistics the options ask for.
    func restricted(to options: HKStatisticsOptions) -> HKStatistics.Values {
        HKStatistics.Values(
            sum: options.contains(.cumulativeSum) ? sum : nil,
            average: options.contains(.discreteAverage) ? average : nil,
            minimum: options.contains(.discreteMin) ? minimum : nil,
            maximum: options.contains(.discreteMax) ? maximum : nil,
            mostRecent: options.contains(.mostRecent) ? mostRecent : nil,
            mostRecentInterval: options.contains(.mostRecent) ? mostRecentInterval : nil,
            duration: options.contains(.duration) ? duration : nil)
    }
}
