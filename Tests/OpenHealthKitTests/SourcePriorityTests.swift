import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit

/// Source priority: cumulative statistics merge overlapping sources once; separateBySource and discrete statistics
/// keep every source.
@Suite(.timeLimit(.minutes(1))) struct SourcePriorityTests {
    let distance = HKQuantityType(.distanceCycling)
    let power = HKQuantityType(.cyclingPower)

    /// `count` one-minute samples of `meters` each, starting `offset` seconds after t0.
    func minutes(_ count: Int, of meters: Double, from offset: TimeInterval = 0) -> [HKQuantitySample] {
        (0 ..< count).map { index in
            let start = t0 + offset + Double(index) * 60
            return HKQuantitySample(
                type: distance, quantity: HKQuantity(unit: .meter(), doubleValue: meters),
                start: start, end: start + 60)
        }
    }

    func statistics(
        _ store: HKHealthStore, _ type: HKQuantityType, _ options: HKStatisticsOptions,
        _ predicate: NSPredicate? = nil
    ) async throws -> HKStatistics {
        try await withCheckedThrowingContinuation { continuation in
            store.execute(
                HKStatisticsQuery(quantityType: type, quantitySamplePredicate: predicate, options: options) {
                    _, result, error in
                    if let result {
                        continuation.resume(returning: result)
                    } else {
                        continuation.resume(throwing: error!)
                    }
                })
        }
    }

    /// Two apps saved the same hour, 60 × 500 m each (the finding).
    func twoApps(
        _ kind: StoreKind, _ directory: borrowing TemporaryDirectory
    ) async throws -> (HKHealthStore, HKHealthStore, HKHealthStore) {
        let first = try await kind.authorizedStore(directory, client: "com.example.first")
        let second = first.asClient("com.example.second")
        try await second.requestAuthorization(toShare: [distance, power], read: [distance, power])
        try await first.save(minutes(60, of: 500))
        try await second.save(minutes(60, of: 500))
        return (first, second, first.asClient("com.example.reader"))
    }

    @Test(arguments: StoreKind.available) func anOverlappingRideFromTwoAppsCountsOnce(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let (first, _, _) = try await twoApps(kind, directory)
        let merged = try await statistics(first, distance, .cumulativeSum)
        // 60 minutes × 500 m, once: 30,000 m (HealthKit would not report 60,000 m).
        #expect(merged.sumQuantity()?.doubleValue(for: .meter()) == 30_000)
        let separate = try await statistics(first, distance, [.cumulativeSum, .separateBySource])
        #expect(separate.sumQuantity()?.doubleValue(for: .meter()) == 30_000)
        #expect(Set(separate.sources?.map(\.bundleIdentifier) ?? []) == ["com.example.first", "com.example.second"])
        for source in separate.sources ?? [] {
            #expect(separate.sumQuantity(for: source)?.doubleValue(for: .meter()) == 30_000)
        }
    }

    @Test(arguments: StoreKind.available) func aLowerSourceFillsOnlyTheTimeTheHigherOneLeftUncovered(
        kind: StoreKind
    ) async throws {
        let directory = try TemporaryDirectory()
        let first = try await kind.authorizedStore(directory, client: "com.example.first")
        let second = first.asClient("com.example.second")
        try await second.requestAuthorization(toShare: [distance], read: [distance])
        // First (saved first, so higher): 10:00–11:00 at 500 m/min. Second: 10:30–11:30 at 400 m/min.
        try await first.save(minutes(60, of: 500))
        try await second.save(minutes(60, of: 400, from: 1800))
        // 60 × 500 + the 30 minutes after 11:00 from second, 30 × 400 = 30,000 + 12,000.
        #expect(
            try await statistics(first, distance, .cumulativeSum).sumQuantity()?.doubleValue(for: .meter()) == 42_000)
        // Second first: 60 × 400 + first's 30 minutes before 10:30, 30 × 500 = 24,000 + 15,000.
        let order = try await first.sourcePriority(for: distance)
        #expect(order.map(\.bundleIdentifier) == ["com.example.first", "com.example.second"])
        try await first.setSourcePriority([order[1]], for: distance)
        #expect(
            try await first.sourcePriority(for: distance).map(\.bundleIdentifier) == [
                "com.example.second", "com.example.first",
            ])
        #expect(
            try await statistics(first, distance, .cumulativeSum).sumQuantity()?.doubleValue(for: .meter()) == 39_000)
        // A straddling lower sample is prorated: second's 11:00–11:01 sample, with first's priority restored and a
        // range ending at 11:00:30, adds nothing before 11:00 and half of 400 m after it.
        try await first.setSourcePriority([], for: distance)
        let range = HKQuery.predicateForSamples(withStart: t0, end: t0 + 3630)
        #expect(
            try await statistics(first, distance, .cumulativeSum, range).sumQuantity()?.doubleValue(for: .meter())
                == 30_200)
    }

    @Test(arguments: StoreKind.available) func collectionIntervalsMergeBySourceToo(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let (first, _, _) = try await twoApps(kind, directory)
        func sums(anchor: Date) async throws -> [Double?] {
            try await HKStatisticsCollectionQueryDescriptor(
                predicate: .quantitySample(type: distance), options: .cumulativeSum, anchorDate: anchor,
                intervalComponents: DateComponents(minute: 30)
            ).result(for: first).statistics().map { $0.sumQuantity()?.doubleValue(for: .meter()) }
        }
        // Each half hour: 30 × 500 m once.
        #expect(try await sums(anchor: t0) == [15_000, 15_000])
        // Half-hours 30 s off the minutes: the first takes 30 s of the first minute, the last 29.5 minutes.
        #expect(try await sums(anchor: t0 + 30) == [250, 15_000, 14_750])
    }

    @Test func discreteStatisticsUseEverySource() async throws {
        let first = try await authorizedStore(client: "com.example.first")
        let second = first.asClient("com.example.second")
        try await second.requestAuthorization(toShare: [power], read: [power])
        let watts = HKUnit.watt()
        try await first.save([
            HKQuantitySample(type: power, quantity: HKQuantity(unit: watts, doubleValue: 200), start: t0, end: t0)
        ])
        try await second.save([
            HKQuantitySample(type: power, quantity: HKQuantity(unit: watts, doubleValue: 300), start: t0, end: t0)
        ])
        let merged = try await statistics(first, power, [.discreteAverage, .discreteMax])
        // (200 + 300) / 2, whatever the priority.
        #expect(merged.averageQuantity()?.doubleValue(for: watts) == 250)
        #expect(merged.maximumQuantity()?.doubleValue(for: watts) == 300)
    }

    @Test(arguments: StoreKind.available) func settingAnUnknownOrRepeatedSourceIsAnError(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let (first, _, reader) = try await twoApps(kind, directory)
        let order = try await first.sourcePriority(for: distance)
        await expectHKError(.errorInvalidArgument) {
            try await first.setSourcePriority([order[0], order[0]], for: distance)
        }
        let powerOrder = try await first.sourcePriority(for: power)
        #expect(powerOrder.isEmpty)
        await expectHKError(.errorInvalidArgument) { try await first.setSourcePriority(order, for: power) }
        // A client denied reading the type sees only its own source: none.
        reader.authorizationPolicy = .denyAll
        try await reader.requestAuthorization(toShare: [], read: [distance])
        #expect(try await reader.sourcePriority(for: distance).isEmpty)
    }

    @Test func samplesSavedByAWorkoutBuilderJoinTheOrder() async throws {
        let phone = try await authorizedStore(client: "com.example.phone")
        try await phone.save(minutes(1, of: 500))
        let watch = phone.asClient("com.example.watch")
        try await watch.requestAuthorization(toShare: [distance, .workoutType()], read: [distance])
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .cycling
        let builder = HKWorkoutBuilder(healthStore: watch, configuration: configuration, device: nil)
        try await builder.beginCollection(at: t0)
        try await builder.addSamples(minutes(2, of: 400))
        try await builder.endCollection(at: t0 + 120)
        _ = try await builder.finishWorkout()
        #expect(
            try await phone.sourcePriority(for: distance).map(\.bundleIdentifier) == [
                "com.example.phone", "com.example.watch",
            ])
        // The phone's first minute (500 m) wins over the watch's; the watch's second minute (400 m) fills in.
        #expect(try await statistics(phone, distance, .cumulativeSum).sumQuantity()?.doubleValue(for: .meter()) == 900)
    }

    @Test func theMergeKeepsRatesOfTrimmedPieces() {
        typealias Piece = SourcePriorityMerge.Piece
        // High: [0, 10) 100. Low: [5, 25) 200 (10/s) and an instant at 3 (covered) and at 30 (not).
        let high = [Piece(source: 1, quantity: SeriesQuantity(start: 0, end: 10, value: 100))]
        let low = [
            Piece(source: 2, quantity: SeriesQuantity(start: 5, end: 25, value: 200)),
            Piece(source: 2, quantity: SeriesQuantity(start: 3, end: 3, value: 7)),
            Piece(source: 2, quantity: SeriesQuantity(start: 30, end: 30, value: 9)),
        ]
        let merged = SourcePriorityMerge.merge([high, low])
        // Low keeps [10, 25) at 10/s: 150.
        #expect(
            merged == [high[0], Piece(source: 2, quantity: SeriesQuantity(start: 10, end: 25, value: 150)), low[2]])
    }
}
