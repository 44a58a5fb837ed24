import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit

/// Samples the store holds already, added to a workout builder: a finished quantity series (heart rate, and energy in
/// intervals) and a heart rate the app saved first. Each is associated with the workout as it is, never saved a
/// second time (one row per UUID, the series whole), and every quantity of it counts towards the builder's
/// statistics; the oracle for those is the store's own statistics query over the workout's samples, which reads the
/// stored series through their summaries, not through the builder.
@Suite(.postgresCluster, .timeLimit(.minutes(1))) struct BuilderStoredSamplesTests {
    let heartRate = HKQuantityType(.heartRate)
    let energy = HKQuantityType(.activeEnergyBurned)
    let bpm = HKUnit(from: "count/min")

    func statistics(
        _ store: HKHealthStore, _ type: HKQuantityType, _ predicate: NSPredicate?, _ options: HKStatisticsOptions
    ) async throws -> HKStatistics? {
        try await StatisticsQueryTests().statistics(store, type, predicate, options)
    }

    /// Twenty heart rates, 140 to 159 bpm a second apart from `t0 + 10` (the series ends at `t0 + 30`), and ten
    /// intervals of 5 kcal from `t0 + 10`: both finished, so both in the store.
    func finishedSeries(
        _ store: HKHealthStore
    ) async throws -> (heartRates: [HKQuantitySample], energy: [HKQuantitySample]) {
        let rates = HKQuantitySeriesSampleBuilder(
            healthStore: store, quantityType: heartRate, startDate: t0 + 10, device: nil)
        for second in 0 ..< 20 {
            try rates.insert(HKQuantity(unit: bpm, doubleValue: 140 + Double(second)), at: t0 + 10 + Double(second))
        }
        let burned = HKQuantitySeriesSampleBuilder(
            healthStore: store, quantityType: energy, startDate: t0 + 10, device: nil)
        for second in 0 ..< 10 {
            try burned.insert(
                HKQuantity(unit: .kilocalorie(), doubleValue: 5),
                for: DateInterval(start: t0 + 10 + Double(second), duration: 1))
        }
        return (
            try await rates.finishSeries(metadata: nil, endDate: t0 + 30),
            try await burned.finishSeries(metadata: nil, endDate: t0 + 20)
        )
    }

    func builder(_ store: HKHealthStore) async throws -> HKWorkoutBuilder {
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .cycling
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: nil)
        try await builder.beginCollection(at: t0)
        return builder
    }

    @Test(arguments: StoreKind.available) func storedSamplesAreAssociatedWholeAndEachOfTheirQuantitiesCounts(
        kind: StoreKind
    ) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        // Given a finished heart-rate series, a finished energy series and a heart rate the app saved, all stored
        let (rates, burned) = try await finishedSeries(store)
        try #require(rates.count == 1 && rates[0].count == 20 && burned.count == 1 && burned[0].count == 10)
        let saved = HKQuantitySample(
            type: heartRate, quantity: HKQuantity(unit: bpm, doubleValue: 100), start: t0 + 40, end: t0 + 40)
        try await store.save(saved)
        // When they are added to a workout with one new heart rate
        let builder = try await builder(store)
        let fresh = HKQuantitySample(
            type: heartRate, quantity: HKQuantity(unit: bpm, doubleValue: 170), start: t0 + 45, end: t0 + 45)
        try await builder.addSamples(rates + burned + [saved, fresh])
        // Then the builder counts each quantity of the series, not one average standing for them
        let live = try #require(builder.statistics(for: heartRate))
        #expect(live.minimumQuantity()?.doubleValue(for: bpm) == 100)
        #expect(live.maximumQuantity()?.doubleValue(for: bpm) == 170)
        #expect(live.mostRecentQuantity()?.doubleValue(for: bpm) == 170)
        #expect(builder.statistics(for: energy)?.sumQuantity()?.doubleValue(for: .kilocalorie()) == 50)
        try await builder.endCollection(at: t0 + 60)
        let workout = try #require(try await builder.finishWorkout())
        // And the store holds each sample once, the series whole, every one associated with the workout
        let stored = try await fetch(store, heartRate, nil).compactMap { $0 as? HKQuantitySample }
        #expect(stored.count == 3, "\(stored.map { "\($0.uuid) \($0.count)" })")
        #expect(Set(stored.map(\.uuid)) == [rates[0].uuid, saved.uuid, fresh.uuid])
        #expect(stored.first { $0.uuid == rates[0].uuid }?.count == 20)
        let ofWorkout = HKQuery.predicateForObjects(from: workout)
        #expect(Set(try await fetch(store, heartRate, ofWorkout).map(\.uuid)) == Set(stored.map(\.uuid)))
        let storedEnergy = try await fetch(store, energy, ofWorkout).compactMap { $0 as? HKQuantitySample }
        #expect(storedEnergy.map(\.uuid) == [burned[0].uuid] && storedEnergy.map(\.count) == [10])
        // And the workout's figures are those the store computes over the workout's samples
        let finished = try #require(workout.statistics(for: heartRate))
        let oracle = try #require(
            try await statistics(
                store, heartRate, ofWorkout, [.discreteMin, .discreteMax, .discreteAverage, .mostRecent]))
        for (name, figure) in [
            ("minimum", { (s: HKStatistics) in s.minimumQuantity() }), ("maximum", { $0.maximumQuantity() }),
            ("average", { $0.averageQuantity() }), ("most recent", { $0.mostRecentQuantity() }),
        ] as [(String, (HKStatistics) -> HKQuantity?)] {
            let mine = try #require(figure(finished)?.doubleValue(for: bpm), "\(name)")
            let theirs = try #require(figure(oracle)?.doubleValue(for: bpm), "\(name)")
            #expect(abs(mine - theirs) < 1e-9, "\(name): the workout says \(mine), the store's query \(theirs)")
        }
        let energyOracle = try await statistics(store, energy, ofWorkout, .cumulativeSum)
        #expect(
            workout.statistics(for: energy)?.sumQuantity()?.doubleValue(for: .kilocalorie())
                == energyOracle?.sumQuantity()?.doubleValue(for: .kilocalorie()))
    }

    @Test(arguments: StoreKind.available) func aDiscardedWorkoutLeavesStoredSamplesAsTheyWere(
        kind: StoreKind
    ) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        // Given a finished heart-rate series added to a workout
        let (rates, _) = try await finishedSeries(store)
        let builder = try await builder(store)
        try await builder.addSamples(rates)
        // When the workout is discarded
        builder.discardWorkout()
        // Then the series is in the store once, whole, and no workout holds it
        let stored = try await fetch(store, heartRate, nil).compactMap { $0 as? HKQuantitySample }
        #expect(stored.map(\.uuid) == [rates[0].uuid] && stored.map(\.count) == [20])
        #expect(try await fetch(store, .workoutType(), nil).isEmpty)
    }
}
