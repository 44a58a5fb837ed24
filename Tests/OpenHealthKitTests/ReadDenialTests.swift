import Foundation
import Testing

@testable import OpenHealthKit

/// Read denial on every read path: a type the client may not read looks exactly like a type with no data (HealthKit's
/// privacy rule), while the owner of the data sees it through the very same calls.
@Suite(.timeLimit(.minutes(1))) struct ReadDenialTests {
    let heart = HKQuantityType(.heartRate)
    let energy = HKQuantityType(.activeEnergyBurned)
    let bpm = HKUnit(from: "count/min")

    struct Fixture {
        var owner: HKHealthStore
        var reader: HKHealthStore
        var workout: HKWorkout
        var beats: HKHeartbeatSeriesSample
        var ownerAnchor: Int64
    }

    /// The owner records a 2-minute workout (heart rate each second, energy each 10 s) and a heartbeat series, then
    /// condenses it (heart rate becomes a series, the originals deletion records). The reader may read workouts and
    /// energy, and was denied heart rate and heartbeat series.
    func fixture() async throws -> Fixture {
        let owner = try await authorizedStore(client: "owner")
        try await owner.requestAuthorization(toShare: [HKSeriesType.heartbeat()], read: [HKSeriesType.heartbeat()])
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .running
        let builder = HKWorkoutBuilder(healthStore: owner, configuration: configuration, device: nil)
        try await builder.beginCollection(at: t0)
        var samples = (0 ..< 120).map { (i: Int) -> HKQuantitySample in
            heartRate(Double(130 + i % 5), at: Double(i), length: 0)
        }
        samples += stride(from: 0, to: 120, by: 10).map { (second: Int) -> HKQuantitySample in
            HKQuantitySample(
                type: energy, quantity: HKQuantity(unit: .kilocalorie(), doubleValue: 2),
                start: t0 + Double(second), end: t0 + Double(second + 10))
        }
        try await builder.addSamples(samples)
        try await builder.endCollection(at: t0 + 120)
        let workout = try #require(try await builder.finishWorkout())
        let seriesBuilder = HKHeartbeatSeriesBuilder(healthStore: owner, device: nil, start: t0)
        for beat in 0 ..< 10 {
            try await seriesBuilder.addHeartbeat(at: Double(beat) * 0.5, precededByGap: false)
        }
        let beats = try await seriesBuilder.finishSeries()
        let anchor = try await owner.fetchChanges(
            [HKQueryDescriptor(sampleType: heart, predicate: nil)], after: 0, limit: 0
        ).anchor
        _ = try await owner.condenseWorkout(workout)
        let reader = owner.asClient("reader")
        try await reader.requestAuthorization(toShare: [], read: [.workoutType(), energy])
        try reader.setReadAuthorization(false, for: heart)
        try reader.setReadAuthorization(false, for: HKSeriesType.heartbeat())
        return Fixture(owner: owner, reader: reader, workout: workout, beats: beats, ownerAnchor: anchor)
    }

    @Test func anchoredQueriesShowNeitherSamplesNorDeletions() async throws {
        let f = try await fixture()
        let descriptors = [HKQueryDescriptor(sampleType: heart, predicate: nil)]
        let owner = try await f.owner.fetchChanges(descriptors, after: f.ownerAnchor, limit: 0)
        #expect(owner.samples.count == 1 && owner.deleted.count == 120)  // the series; the 120 condensed originals
        let reader = try await f.reader.fetchChanges(descriptors, after: 0, limit: 0)
        #expect(reader.samples.isEmpty && reader.deleted.isEmpty)
        // Through the public query too.
        let changes: (Int, Int) = try await withCheckedThrowingContinuation { continuation in
            f.reader.execute(
                HKAnchoredObjectQuery(type: heart, predicate: nil, anchor: nil, limit: HKObjectQueryNoLimit) {
                    _, added, deleted, _, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else {
                        continuation.resume(returning: (added?.count ?? -1, deleted?.count ?? -1))
                    }
                })
        }
        #expect(changes == (0, 0))
    }

    @Test func statisticsCollectionsAreEmpty() async throws {
        let f = try await fixture()
        let query = HKStatisticsCollectionQueryDescriptor(
            predicate: .quantitySample(type: heart), options: .discreteAverage,
            anchorDate: t0, intervalComponents: DateComponents(minute: 1))
        let ownerIntervals = try await query.result(for: f.owner).statistics()
        // Three minutes: the last reading, at 1:59, holds 10 s (the documented maximum hold) into the third.
        #expect(ownerIntervals.count == 3)
        #expect(try await query.result(for: f.reader).statistics().isEmpty)
    }

    @Test func quantitySeriesQueriesFindNothing() async throws {
        let f = try await fixture()
        let all = HKQuantitySeriesSampleQueryDescriptor(predicate: .quantitySample(type: heart), options: [])
        #expect(try await collect(all.results(for: f.owner)).count > 1)
        #expect(try await collect(all.results(for: f.reader)).isEmpty)
        let series = try #require(
            try await HKSampleQueryDescriptor(
                predicates: [.quantitySample(type: heart)], sortDescriptors: []
            ).result(for: f.owner).first)
        let one = HKQuantitySeriesSampleQueryDescriptor(
            predicate: .quantitySample(type: heart, predicate: HKQuery.predicateForObject(with: series.uuid)),
            options: [])
        await expectHKError(.errorNoData) { _ = try await collect(one.results(for: f.reader)) }
    }

    @Test func heartbeatSeriesQueriesFindNothing() async throws {
        let f = try await fixture()
        var ownerBeats = 0
        for try await _ in HKHeartbeatSeriesQueryDescriptor(f.beats).results(for: f.owner) { ownerBeats += 1 }
        #expect(ownerBeats == 10)
        await expectHKError(.errorNoData) {
            for try await _ in HKHeartbeatSeriesQueryDescriptor(f.beats).results(for: f.reader) {}
        }
        let listed = try await HKSampleQueryDescriptor(
            predicates: [.sample(type: HKSeriesType.heartbeat())], sortDescriptors: []
        )
        .result(for: f.reader)
        #expect(listed.isEmpty)
    }

    @Test func objectsFromAWorkoutIncludeOnlyReadableTypes() async throws {
        let f = try await fixture()
        let fromWorkout = HKQuery.predicateForObjects(from: f.workout)
        let ownerHeart = try await fetch(f.owner, heart, fromWorkout)
        #expect(ownerHeart.count == 1)  // the condensed series
        #expect(try await fetch(f.reader, heart, fromWorkout).isEmpty)
        #expect(try await fetch(f.reader, energy, fromWorkout).count == 1)  // energy condensed into one series too
    }

    @Test func aWorkoutsStatisticsHideUnreadableTypes() async throws {
        let f = try await fixture()
        let ownerView = try #require(try await fetch(f.owner, .workoutType(), nil).first as? HKWorkout)
        #expect(ownerView.statistics(for: heart) != nil)
        let readerView = try #require(try await fetch(f.reader, .workoutType(), nil).first as? HKWorkout)
        #expect(readerView.statistics(for: heart) == nil)
        #expect(readerView.zoneGroup(for: heart) == nil)
        #expect(readerView.workoutActivities.allSatisfy { $0.statistics(for: heart) == nil })
        // Energy stays: 12 samples of 2 kcal.
        #expect(readerView.statistics(for: energy)?.sumQuantity()?.doubleValue(for: .kilocalorie()) == 24)
    }
}
