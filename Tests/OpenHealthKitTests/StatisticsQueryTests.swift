import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit

/// HKStatisticsQuery, HKStatisticsCollectionQuery and their descriptors against a store.
@Suite(.postgresCluster, .timeLimit(.minutes(1))) struct StatisticsQueryTests {
    let steps = HKQuantityType(.stepCount)
    let bpm = HKUnit(from: "count/min")

    func stepSample(_ count: Double, from start: TimeInterval, to end: TimeInterval) -> HKQuantitySample {
        HKQuantitySample(
            type: steps, quantity: HKQuantity(unit: .count(), doubleValue: count), start: t0 + start, end: t0 + end)
    }

    func statistics(
        _ store: HKHealthStore, _ type: HKQuantityType, _ predicate: NSPredicate?,
        _ options: HKStatisticsOptions
    ) async throws -> HKStatistics? {
        try await withCheckedThrowingContinuation { continuation in
            store.execute(
                HKStatisticsQuery(quantityType: type, quantitySamplePredicate: predicate, options: options) {
                    _, result, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else {
                        continuation.resume(returning: result)
                    }
                })
        }
    }

    @Test(arguments: StoreKind.available) func aDateRangeProratesStraddlingSamples(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        try await store.save([stepSample(100, from: -180, to: 120), stepSample(50, from: 200, to: 300)])
        let before = try await statistics(
            store, steps, HKQuery.predicateForSamples(withStart: t0 - 3600, end: t0), .cumulativeSum)
        #expect(abs(before!.sumQuantity()!.doubleValue(for: .count()) - 60) < 1e-9)
        #expect(before!.startDate == t0 - 3600 && before!.endDate == t0)
        let all = try await statistics(store, steps, nil, [.cumulativeSum, .duration])
        #expect(all!.sumQuantity()!.doubleValue(for: .count()) == 150)
        #expect(all!.duration()!.doubleValue(for: .second()) == 400)
        #expect(all!.startDate == t0 - 180 && all!.endDate == t0 + 300)
    }

    @Test(arguments: StoreKind.available) func noDataIsErrorNoDataAndUnreadableTypesLookEmpty(
        kind: StoreKind
    ) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        await expectHKError(.errorNoData) { _ = try await statistics(store, steps, nil, .cumulativeSum) }
        try await store.save([stepSample(10, from: 0, to: 10)])
        let stranger = store.asClient("stranger")
        stranger.authorizationPolicy = .denyAll
        try await stranger.requestAuthorization(toShare: [], read: [steps])
        await expectHKError(.errorNoData) { _ = try await statistics(stranger, steps, nil, .cumulativeSum) }
        let descriptor = HKStatisticsQueryDescriptor(predicate: .quantitySample(type: steps), options: .cumulativeSum)
        #expect(try await descriptor.result(for: stranger) == nil)
        #expect(try await descriptor.result(for: store)?.sumQuantity()?.doubleValue(for: .count()) == 10)
    }

    @Test(arguments: StoreKind.available) func sourcesMergeUnlessSeparated(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        let phone = store.asClient("phone")
        try await phone.requestAuthorization(toShare: [steps], read: [steps])
        try await store.save([stepSample(10, from: 0, to: 10)])
        try await phone.save([stepSample(5, from: 5, to: 15)])
        let merged = try await statistics(store, steps, nil, .cumulativeSum)!
        // By source priority (tests saved first): tests' 10 over [0, 10), then phone's [10, 15), half of its 5.
        #expect(merged.sumQuantity()!.doubleValue(for: .count()) == 12.5)
        #expect(merged.sources == nil)
        let separate = try await statistics(store, steps, nil, [.cumulativeSum, .separateBySource])!
        let bySource = Dictionary(
            uniqueKeysWithValues: separate.sources!.map {
                ($0.bundleIdentifier, separate.sumQuantity(for: $0)!.doubleValue(for: .count()))
            })
        #expect(bySource == ["tests": 10, "phone": 5])
    }

    @Test(arguments: StoreKind.available) func heartRateStatisticsAreTimeWeighted(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        try await store.save([
            heartRate(100, at: 0, length: 30), heartRate(160, at: 30, length: 0), heartRate(130, at: 35, length: 0),
        ])
        let result = try await statistics(
            store, HKQuantityType(.heartRate), nil,
            [.discreteAverage, .discreteMin, .discreteMax, .mostRecent])!
        let weighted: Double = 100 * 30 + 160 * 5 + 130 * 10
        #expect(abs(result.averageQuantity()!.doubleValue(for: bpm) - weighted / 45) < 1e-9)
        #expect(result.minimumQuantity()!.doubleValue(for: bpm) == 100)
        #expect(result.maximumQuantity()!.doubleValue(for: bpm) == 160)
        #expect(result.mostRecentQuantity()!.doubleValue(for: bpm) == 130)
        #expect(result.mostRecentQuantityDateInterval() == DateInterval(start: t0 + 35, duration: 0))
        #expect(result.endDate == t0 + 45)
    }

    @Test(arguments: StoreKind.available) func collectionIntervalsTileTimeBothWaysFromTheAnchor(
        kind: StoreKind
    ) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        try await store.save([stepSample(100, from: -180, to: 120), stepSample(30, from: 3600 * 5, to: 3600 * 5 + 60)])
        let query = HKStatisticsCollectionQueryDescriptor(
            predicate: .quantitySample(type: steps), options: .cumulativeSum,
            anchorDate: t0, intervalComponents: DateComponents(minute: 1))
        let collection = try await query.result(for: store)
        let sums = collection.statistics().map { $0.sumQuantity()!.doubleValue(for: .count()) }
        #expect(sums.count == 6)
        #expect(sums.allSatisfy { abs($0 - [20, 30][$0 > 25 ? 1 : 0]) < 1e-9 })
        #expect(collection.statistics().first!.startDate == t0 - 180)
        #expect(collection.statistics(for: t0 + 3600)?.sumQuantity() == nil)
        var enumerated: [Date] = []
        collection.enumerateStatistics(from: t0 - 120, to: t0 + 59) { statistics, _ in
            enumerated.append(statistics.startDate)
        }
        #expect(enumerated == [t0 - 120, t0 - 60, t0])
        var first: [Date] = []
        collection.enumerateStatistics(from: t0 - 120, to: t0 + 3600) { statistics, stop in
            first.append(statistics.startDate)
            stop.pointee = true
        }
        #expect(first == [t0 - 120])
    }

    @Test func dayIntervalsFollowTheCalendarAcrossDaylightSaving() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        let anchor = calendar.date(from: DateComponents(year: 2026, month: 3, day: 28))!
        let tiling = DateTiling(anchor: anchor, components: DateComponents(day: 1), calendar: calendar)
        #expect(tiling.interval(1).duration == 23 * 3600)
        #expect(tiling.interval(0).duration == 24 * 3600)
        #expect(tiling.index(containing: anchor + 24 * 3600 + 23 * 3600 - 1) == 1)
        #expect(tiling.index(containing: anchor - 1) == -1)
        let months = DateTiling(anchor: anchor, components: DateComponents(month: 1), calendar: calendar)
        #expect(months.start(of: -2) == calendar.date(from: DateComponents(year: 2026, month: 1, day: 28)))
    }

    @Test func theUpdateHandlerHearsAboutNewSamples() async throws {
        let store = try await authorizedStore()
        try await store.save([stepSample(10, from: 0, to: 10)])
        let descriptor = HKStatisticsCollectionQueryDescriptor(
            predicate: .quantitySample(type: steps), options: .cumulativeSum,
            anchorDate: t0, intervalComponents: DateComponents(hour: 1))
        var iterator = descriptor.results(for: store).makeAsyncIterator()
        let initial = try #require(try await iterator.next())
        #expect(initial.updatedStatistics == nil)
        #expect(initial.statisticsCollection.statistics().first?.sumQuantity()?.doubleValue(for: .count()) == 10)
        try await store.save([stepSample(5, from: 20, to: 30)])
        let update = try #require(try await iterator.next())
        #expect(update.updatedStatistics?.first?.sumQuantity()?.doubleValue(for: .count()) == 15)
        #expect(update.statisticsCollection.statistics().count == 1)
    }

    @Test(arguments: StoreKind.available) func statisticsOnlyAnswerWhatWasAskedAndFitTheStyle(
        kind: StoreKind
    ) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        try await store.save([heartRate(100, at: 0)])
        let result = try await statistics(store, HKQuantityType(.heartRate), nil, .discreteMax)!
        #expect(result.options == .discreteMax)
        #expect(result.merged.average == nil && result.merged.maximum == 100)
    }
}
