import Foundation
import GRDB
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

extension HKHealthStore {
    /// Statistics of a type over the range of a predicate (HKStatisticsQuery); nil when no sample contributes.
    func computeStatistics(
        type: HKQuantityType, predicate: NSPredicate?, options: HKStatisticsOptions
    ) throws -> HKStatistics? {
        try withStoreRead { try Self.statistics(type: type, predicate: predicate, options: options, $0, $1, $2) }
    }

    /// ``computeStatistics(type:predicate:options:)`` on GRDB's reader queue, the calling task suspended.
    func computeStatistics(
        type: HKQuantityType, predicate: NSPredicate?, options: HKStatisticsOptions
    ) async throws -> HKStatistics? {
        let request = UncheckedBox(predicate)
        return try await withStoreRead {
            UncheckedBox(try Self.statistics(type: type, predicate: request.value, options: options, $0, $1, $2))
        }.value
    }

    private static func statistics(
        type: HKQuantityType, predicate: NSPredicate?, options: HKStatisticsOptions,
        _ database: StoreDatabase, _ access: ReadAccess, _ db: Database
    ) throws -> HKStatistics? {
        let scope = StoreDatabase.StatisticsScope(predicate: predicate, hold: StatisticsAccumulator.defaultMaximumHold)
        let partials = try database.statisticsPartials(type: type, scope: scope, access: access, db)
        let (merged, bySource, span) = try database.statisticsValues(partials, style: type.aggregationStyle, db)
        guard let merged else { return nil }
        let start = scope.rangeStart.isFinite ? scope.rangeStart : span.start
        let end = scope.rangeEnd.isFinite ? scope.rangeEnd : span.end
        return HKStatistics(
            quantityType: type, startDate: Date(storeValue: start), endDate: Date(storeValue: max(start, end)),
            merged: merged.restricted(to: options),
            bySource: options.contains(.separateBySource) ? bySource.mapValues { $0.restricted(to: options) } : [:],
            options: options)
    }

    /// Statistics per interval (HKStatisticsCollectionQuery).
    func computeCollection(
        type: HKQuantityType, predicate: NSPredicate?, options: HKStatisticsOptions,
        tiling: DateTiling
    ) throws -> HKStatisticsCollection {
        try withStoreRead {
            try Self.collection(type: type, predicate: predicate, options: options, tiling: tiling, $0, $1, $2)
        }
    }

    /// ``computeCollection(type:predicate:options:tiling:)`` on GRDB's reader queue, the calling task suspended.
    func computeCollection(
        type: HKQuantityType, predicate: NSPredicate?, options: HKStatisticsOptions,
        tiling: DateTiling
    ) async throws -> HKStatisticsCollection {
        let request = UncheckedBox((predicate, tiling))
        return try await withStoreRead {
            UncheckedBox(
                try Self.collection(
                    type: type, predicate: request.value.0, options: options, tiling: request.value.1,
                    $0, $1, $2))
        }.value
    }

    private static func collection(
        type: HKQuantityType, predicate: NSPredicate?, options: HKStatisticsOptions,
        tiling: DateTiling, _ database: StoreDatabase, _ access: ReadAccess,
        _ db: Database
    ) throws -> HKStatisticsCollection {
        let partials = try database.collectionPartials(
            type: type, predicate: predicate, tiling: tiling, access: access, db)
        var byIndex: [Int: HKStatistics] = [:]
        var sources: Set<HKSource> = []
        for (index, indexPartials) in partials {
            let (merged, bySource, _) = try database.statisticsValues(indexPartials, style: type.aggregationStyle, db)
            guard let merged else { continue }
            let interval = tiling.interval(index)
            let separate = options.contains(.separateBySource)
            if separate { sources.formUnion(bySource.keys) }
            byIndex[index] = HKStatistics(
                quantityType: type, startDate: interval.start, endDate: interval.end,
                merged: merged.restricted(to: options),
                bySource: separate ? bySource.mapValues { $0.restricted(to: options) } : [:],
                options: options)
        }
        return HKStatisticsCollection(
            quantityType: type, options: options, tiling: tiling, byIndex: byIndex,
            sources: sources)
    }
}
