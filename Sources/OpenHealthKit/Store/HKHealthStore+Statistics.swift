import Foundation

extension HKHealthStore {
    /// Statistics of a type over the range of a predicate (HKStatisticsQuery); nil when no sample contributes.
    func computeStatistics(
        type: HKQuantityType, predicate: NSPredicate?, options: HKStatisticsOptions
    ) async throws -> HKStatistics? {
        let scope = StatisticsScope(predicate: predicate, hold: StatisticsAccumulator.defaultMaximumHold)
        let values = try await backend().statistics(
            type, fetch: HKQueryDescriptor(sampleType: type, predicate: scope.fetch), rangeStart: scope.rangeStart,
            rangeEnd: scope.rangeEnd, client: clientIdentifier)
        guard let merged = values.merged else { return nil }
        let start = scope.rangeStart.isFinite ? scope.rangeStart : values.span.start
        let end = scope.rangeEnd.isFinite ? scope.rangeEnd : values.span.end
        return HKStatistics(
            quantityType: type, startDate: Date(storeValue: start), endDate: Date(storeValue: max(start, end)),
            merged: merged.restricted(to: options),
            bySource: options.contains(.separateBySource)
                ? values.bySource.mapValues { $0.restricted(to: options) } : [:],
            options: options)
    }

    /// Statistics per interval (HKStatisticsCollectionQuery).
    func computeCollection(
        type: HKQuantityType, predicate: NSPredicate?, options: HKStatisticsOptions,
        tiling: DateTiling
    ) async throws -> HKStatisticsCollection {
        let partials = try await backend().statisticsCollection(
            type, fetch: HKQueryDescriptor(sampleType: type, predicate: predicate), tiling: tiling,
            client: clientIdentifier, everySource: false)
        var byIndex: [Int: HKStatistics] = [:]
        var sources: Set<HKSource> = []
        for (index, values) in partials {
            guard let merged = values.merged else { continue }
            let interval = tiling.interval(index)
            let separate = options.contains(.separateBySource)
            if separate { sources.formUnion(values.bySource.keys) }
            byIndex[index] = HKStatistics(
                quantityType: type, startDate: interval.start, endDate: interval.end,
                merged: merged.restricted(to: options),
                bySource: separate ? values.bySource.mapValues { $0.restricted(to: options) } : [:],
                options: options)
        }
        return HKStatisticsCollection(
            quantityType: type, options: options, tiling: tiling, byIndex: byIndex,
            sources: sources)
    }
}
