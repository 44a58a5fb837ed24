import Foundation
import PropertyBased
import TestSupport
import Testing

@testable import OpenHealthKit

/// Zones computed by programmatic builders, kept with the workout, read back from the store.
@Suite(.postgresCluster, .timeLimit(.minutes(1))) struct ZoneBuilderTests {
    static let heart = HKQuantityType(.heartRate)
    static let power = HKQuantityType(.cyclingPower)

    static func heartZones(_ values: [Double]) throws -> HKWorkoutZoneConfiguration {
        try HKWorkoutZoneConfiguration(
            quantityType: heart,
            zoneBoundaries: values.map { HKQuantity(unit: HKUnit(from: "count/min"), doubleValue: $0) })
    }

    static func watts(_ value: Double, at offset: TimeInterval) -> HKQuantitySample {
        HKQuantitySample(
            type: power, quantity: HKQuantity(unit: .watt(), doubleValue: value), start: t0 + offset, end: t0 + offset)
    }

    @Test func customZonesBeforeCollectionOnlyAndForThisWorkoutOnly() async throws {
        let (store, _) = try await liveStore()
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration(.running), device: nil)
        let custom = try Self.heartZones([100, 120, 140, 160])
        #expect(try await builder.zoneConfiguration(for: Self.heart)?.source == .system)
        try await builder.setCustomZoneConfiguration(custom, for: Self.heart)
        #expect(try await builder.zoneConfiguration(for: Self.heart) == custom)
        #expect(try await store.preferredWorkoutZoneConfiguration(for: Self.heart)?.source == .system)
        try await builder.setCustomZoneConfiguration(nil, for: Self.heart)
        #expect(try await builder.zoneConfiguration(for: Self.heart)?.source == .system)
        try await builder.setCustomZoneConfiguration(custom, for: Self.heart)
        #expect(try await builder.zoneConfiguration(for: Self.power) == nil)  // no FTP, no zones
        await expectHKError(.errorInvalidArgument) {
            try await builder.setCustomZoneConfiguration(custom, for: Self.power)
        }
        await expectHKError(.errorInvalidArgument) {
            _ = try await builder.zoneConfiguration(for: HKQuantityType(.stepCount))
        }
        try await builder.beginCollection(at: t0)
        let late = await expectHKError(.errorInvalidArgument) {
            try await builder.setCustomZoneConfiguration(nil, for: Self.heart)
        }
        #expect(late?.message == "Custom zones must be set before collection begins.")
        // Once collecting, the workout keeps the zones it began with, whatever the person's settings become.
        try await store.setWorkoutProfile(WorkoutProfile(heartRateZoneBoundaries: [90, 100]))
        #expect(try await builder.zoneConfiguration(for: Self.heart) == custom)
        let other = HKWorkoutBuilder(healthStore: store, configuration: configuration(.running), device: nil)
        #expect(try await other.zoneConfiguration(for: Self.heart)?.source == .user)
    }

    @Test(arguments: StoreKind.available) func aPastWorkoutGetsZonesPerWorkoutAndPerActivity(
        kind: StoreKind
    ) async throws {
        let directory = try TemporaryDirectory()
        let (store, clock) = try await liveStore(databasePath: try await kind.freshStoreName(directory))
        // Power zones 110/150/180/210/240.
        try await store.setWorkoutProfile(WorkoutProfile(functionalThresholdPower: 200))
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration(.cycling), device: nil)
        try await builder.setCustomZoneConfiguration(try Self.heartZones([100, 120, 140, 160]), for: Self.heart)
        try await builder.beginCollection(at: t0)
        let first = HKWorkoutActivity(
            workoutConfiguration: configuration(.cycling), start: t0, end: t0 + 30, metadata: nil)
        let second = HKWorkoutActivity(
            workoutConfiguration: configuration(.cycling), start: t0 + 30, end: t0 + 60, metadata: nil)
        try await builder.addWorkoutActivity(first)
        try await builder.addWorkoutActivity(second)
        // Heart rate, one-second samples: 110 (zone 1) for 20 s, 130 (zone 2) for 20 s, 150 (zone 3) for 20 s.
        try await builder.addSamples((0 ..< 60).map { heartRate($0 < 20 ? 110 : $0 < 40 ? 130 : 150, at: Double($0)) })
        // Power, instantaneous at 1 Hz during the first activity: 100 W (zone 0) for 10 s, then 200 W (zone 3).
        try await builder.addSamples((0 ..< 30).map { Self.watts($0 < 10 ? 100 : 200, at: Double($0)) })
        clock.set(60)
        #expect(builder.zoneGroup(for: Self.heart)?.durations == [0, 20, 20, 20, 0])
        // A pause learned after the samples: 40–45 s counts in no zone.
        try await builder.addWorkoutEvents([
            HKWorkoutEvent(type: .pause, dateInterval: DateInterval(start: t0 + 40, duration: 0), metadata: nil),
            HKWorkoutEvent(type: .resume, dateInterval: DateInterval(start: t0 + 45, duration: 0), metadata: nil),
        ])
        try await builder.endCollection(at: t0 + 60)
        #expect(builder.zoneGroup(for: Self.heart)?.durations == [0, 20, 20, 15, 0])
        let workout = try #require(try await builder.finishWorkout())

        let heart = try #require(workout.zoneGroup(for: Self.heart))
        #expect(heart.configuration.source == .app)
        #expect(heart.durations == [0, 20, 20, 15, 0])  // 55 s: the running time
        #expect(heart.durations.reduce(0, +) == workout.duration)
        let power = try #require(workout.zoneGroup(for: Self.power))
        #expect(power.configuration.source == .system)
        #expect(power.durations == [10, 0, 0, 24, 0, 0])  // the last 200 W holds 5 s (ReadingHold.power), to 34 s
        let legs = workout.workoutActivities
        #expect(legs[0].zoneGroup(for: Self.heart)?.durations == [0, 20, 10, 0, 0])
        #expect(legs[1].zoneGroup(for: Self.heart)?.durations == [0, 0, 10, 15, 0])
        #expect(legs[0].zoneGroup(for: Self.power)?.durations == [10, 0, 0, 20, 0, 0])
        #expect(legs[1].zoneGroup(for: Self.power)?.durations == [0, 0, 0, 4, 0, 0])

        // Read back from the store: the same groups, for the workout and each activity.
        let stored = try #require(
            try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: store).first)
        #expect(stored.zoneGroupsByType == workout.zoneGroupsByType)
        #expect(stored.workoutActivities.map(\.zoneGroupsByType) == legs.map(\.zoneGroupsByType))
        #expect(
            stored.zoneGroup(for: Self.heart)?.configuration.zones[1].minimum?.doubleValue(
                for: HKUnit(from: "count/min")) == 100)
    }

    @Test func workoutsWithoutZonedSamplesHaveNoZones() async throws {
        let (store, _) = try await liveStore()
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration(.running), device: nil)
        try await builder.beginCollection(at: t0)
        try await builder.addSamples([
            HKQuantitySample(
                type: HKQuantityType(.activeEnergyBurned),
                quantity: HKQuantity(unit: .kilocalorie(), doubleValue: 5), start: t0, end: t0 + 60)
        ])
        try await builder.endCollection(at: t0 + 60)
        let workout = try #require(try await builder.finishWorkout())
        #expect(workout.zoneGroupsByType == nil)
        #expect(workout.workoutActivities.first?.zoneGroupsByType == nil)
    }

    /// Samples added in any batching (and any order inside a batch) give the same zones.
    @Test func zonesDoNotDependOnHowSamplesAreBatched() async {
        await propertyCheck(
            count: 25, input: Gen.int(in: 0 ... 999).array(of: 1 ... 80), Gen.int(in: 1 ... 9).array(of: 1 ... 12)
        ) { numbers, cuts in
            var time = 0.0
            let samples: [HKSample] = numbers.enumerated().map { index, n in
                time += Double(n % 14)
                return index % 3 == 0
                    ? Self.watts(Double(50 + n % 300), at: time)
                    : heartRate(Double(90 + n % 100), at: time, length: n % 4 == 0 ? 2 : 0)
            }
            var results: [[HKQuantityType: HKWorkoutZoneGroup]?] = []
            for shuffled in [false, true] {
                let (store, _) = try await liveStore()
                try await store.setWorkoutProfile(WorkoutProfile(functionalThresholdPower: 230))
                let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration(.cycling), device: nil)
                try await builder.beginCollection(at: t0)
                var rest = samples[...]
                var cut = cuts.makeIterator()
                while !rest.isEmpty {
                    let batch = Array(rest.prefix(shuffled ? (cut.next() ?? rest.count) : rest.count))
                    rest = rest.dropFirst(batch.count)
                    try await builder.addSamples(shuffled ? batch.reversed() : batch)
                }
                try await builder.endCollection(at: t0 + time + 20)
                let workout = try #require(try await builder.finishWorkout())
                let total = workout.zoneGroupsByType?.values.map { $0.durations.reduce(0, +) } ?? []
                for sum in total { #expect(sum <= workout.duration) }
                results.append(workout.zoneGroupsByType)
            }
            #expect(results[0] == results[1])
        }
    }
}
