import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit

/// Condensing every collected type, deletion records (compact ones on SQLite), anchored queries across them, and
/// their retention, on both backends.
@Suite(.timeLimit(.minutes(1))) struct CondenseDeletionTests {
    let power = HKQuantityType(.cyclingPower)
    let cadence = HKQuantityType(.cyclingCadence)
    let speed = HKQuantityType(.cyclingSpeed)

    func count(_ store: HKHealthStore, _ sql: String) throws -> Int {
        try store.database().read { db in try Int.fetchOne(db, sql: sql) ?? 0 }
    }

    /// A ride built with HKWorkoutBuilder: one reading per second of power, cadence and speed for `seconds`.
    func ride(_ store: HKHealthStore, seconds: Int) async throws -> (HKWorkout, [HKQuantitySample]) {
        try await store.requestAuthorization(toShare: [power, cadence, speed], read: [power, cadence, speed])
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .cycling
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: nil)
        try await builder.beginCollection(at: t0)
        var samples: [HKQuantitySample] = []
        for second in 0 ..< seconds {
            let time = t0 + Double(second)
            samples.append(
                HKQuantitySample(
                    type: power, quantity: HKQuantity(unit: .watt(), doubleValue: Double(200 + second % 7)),
                    start: time, end: time))
            samples.append(
                HKQuantitySample(
                    type: cadence,
                    quantity: HKQuantity(
                        unit: HKUnit(from: "count/min"),
                        doubleValue: Double(85 + second % 3)),
                    start: time, end: time))
            samples.append(
                HKQuantitySample(
                    type: speed, quantity: HKQuantity(unit: HKUnit(from: "m/s"), doubleValue: 8.5),
                    start: time, end: time))
        }
        try await builder.addSamples(samples)
        try await builder.endCollection(at: t0 + Double(seconds))
        let workout = try #require(try await builder.finishWorkout())
        return (workout, samples)
    }

    func average(_ store: HKHealthStore, _ type: HKQuantityType, _ unit: HKUnit) async throws -> Double? {
        try await HKStatisticsQueryDescriptor(predicate: .quantitySample(type: type), options: .discreteAverage)
            .result(for: store)?.averageQuantity()?.doubleValue(for: unit)
    }

    /// The workout's samples of power, cadence and speed, as a sample query gives them.
    func samples(_ store: HKHealthStore, of workout: HKWorkout) async throws -> [HKQuantitySample] {
        try await HKSampleQueryDescriptor(
            predicates: [power, cadence, speed].map {
                .quantitySample(type: $0, predicate: HKQuery.predicateForObjects(from: workout))
            }, sortDescriptors: []
        ).result(for: store)
    }

    @Test(arguments: StoreKind.available) func powerCadenceAndSpeedCondenseWithTheirStatistics(
        kind: StoreKind
    ) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        let (workout, _) = try await ride(store, seconds: 120)
        let powerBefore = try await average(store, power, .watt())
        let report = try await store.condenseWorkout(workout)
        // 3 types × 120 readings become 3 series; arithmetic-mean types keep every reading as a point.
        #expect(report == CondenseReport(workouts: 1, samplesRemoved: 360, seriesCreated: 3, quantitiesStored: 360))
        let left = try await samples(store, of: workout)
        #expect(left.map(\.count).sorted() == [120, 120, 120])
        if kind == .sqlite {
            #expect(
                try count(store, "SELECT count(*) FROM samples WHERE id NOT IN (SELECT sample_id FROM workouts)") == 3)
        }
        // 120 readings cycling 200…206 W: 17 full cycles (average 203) and 200 (one more): (17·7·203 + 200) / 120.
        let expected = (17.0 * 7 * 203 + 200) / 120
        #expect(abs((powerBefore ?? 0) - expected) < 1e-9)
        #expect(abs((try await average(store, power, .watt()) ?? 0) - expected) < 1e-9)
        #expect(try await average(store, speed, HKUnit(from: "m/s")) == 8.5)
    }

    @Test(arguments: StoreKind.available) func deletionRecordsStillReportEveryOriginal(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        let descriptors = [
            HKQueryDescriptor(sampleType: power, predicate: nil),
            HKQueryDescriptor(sampleType: cadence, predicate: nil),
        ]
        let (workout, originals) = try await ride(store, seconds: 100)
        let seen = try await store.fetchChanges(descriptors, after: 0, limit: 0)
        _ = try await store.condenseWorkout(workout)
        if kind == .sqlite {  // one compact record per series
            #expect(try count(store, "SELECT count(*) FROM deleted_objects") == 0)
            #expect(try count(store, "SELECT count(*) FROM deleted_ranges") == 3)
        }
        let changes = try await store.fetchChanges(descriptors, after: seen.anchor, limit: 0)
        let expected = Set(originals.filter { $0.quantityType == power || $0.quantityType == cadence }.map(\.uuid))
        #expect(changes.deleted.count == 200)
        #expect(Set(changes.deleted.map(\.uuid)) == expected)
        #expect(changes.samples.count == 2)  // the power and cadence series
        // Paged 50 at a time none is lost (on SQLite a range's 100 originals share one anchor and are never split).
        var anchor = seen.anchor
        var deleted: [UUID] = []
        var pages = 0
        while pages < 10 {
            let page = try await store.fetchChanges(descriptors, after: anchor, limit: 50)
            if page.samples.isEmpty && page.deleted.isEmpty { break }
            deleted += page.deleted.map(\.uuid)
            anchor = page.anchor
            pages += 1
        }
        #expect(deleted.count == 200 && Set(deleted) == expected)
    }

    @Test(arguments: StoreKind.available) func deletionRecordsAreKeptForTheRetentionThenDropped(
        kind: StoreKind
    ) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        var now = t0 + 3600
        store.wallClock = { [now] in now }
        let (workout, _) = try await ride(store, seconds: 10)
        let single = HKQuantitySample(
            type: power, quantity: HKQuantity(unit: .watt(), doubleValue: 100), start: t0 + 50, end: t0 + 50)
        try await store.save(single)
        try await store.delete(single)
        _ = try await store.condenseWorkout(workout)
        // 29 days later nothing is dropped; 31 days later the 30 condensed originals and the deleted sample are.
        now = now + 29 * 86_400
        store.wallClock = { [now] in now }
        #expect(try await store.condenseWorkouts(olderThan: .distantFuture).deletedObjectsPurged == 0)
        let kept = try await store.fetchChanges(
            [HKQueryDescriptor(sampleType: power, predicate: nil)], after: 0, limit: 0)
        #expect(kept.deleted.count == 11)
        now = now + 2 * 86_400
        store.wallClock = { [now] in now }
        #expect(try await store.condenseWorkouts(olderThan: .distantFuture).deletedObjectsPurged == 31)
        let gone = try await store.fetchChanges(
            [HKQueryDescriptor(sampleType: power, predicate: nil)], after: 0, limit: 0)
        #expect(gone.deleted.isEmpty)
        #expect(HKHealthStore.deletedObjectRetention == 30 * 86_400)
    }
}
