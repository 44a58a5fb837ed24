import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit

/// Zone configurations, the person's profile and their preferred zones.
@Suite(.postgresCluster, .timeLimit(.minutes(1))) struct ZoneConfigurationTests {
    static let bpm = HKUnit(from: "count/min")
    static func heartRates(_ values: [Double], unit: HKUnit = bpm) -> [HKQuantity] {
        values.map { HKQuantity(unit: unit, doubleValue: $0) }
    }

    @Test func boundariesMakeContiguousZonesWithOpenEnds() throws {
        let configuration = try HKWorkoutZoneConfiguration(
            quantityType: HKQuantityType(.heartRate),
            zoneBoundaries: Self.heartRates([136.8, 147.6, 158.4, 169.2]))
        #expect(configuration.source == .app)
        #expect(configuration.quantityType == HKQuantityType(.heartRate))
        #expect(configuration.zones.map(\.index) == [0, 1, 2, 3, 4])
        #expect(configuration.zones[0].minimum == nil)
        #expect(configuration.zones[4].maximum == nil)
        #expect(configuration.zones[1].minimum?.doubleValue(for: Self.bpm) == 136.8)
        #expect(configuration.zones[1].maximum?.doubleValue(for: Self.bpm) == 147.6)
        for (lower, upper) in zip(configuration.zones, configuration.zones.dropFirst()) {
            #expect(lower.maximum == upper.minimum)
        }
        // Other compatible units are accepted and kept: 2.28 count/s is 136.8 count/min.
        let perSecond = try HKWorkoutZoneConfiguration(
            quantityType: HKQuantityType(.heartRate),
            zoneBoundaries: Self.heartRates([2.28, 2.46, 2.64], unit: HKUnit(from: "count/s")))
        #expect(perSecond.zones[1].minimum?.doubleValue(for: HKUnit(from: "count/s")) == 2.28)
        #expect(abs(perSecond.boundaryValues[0] - 136.8) < 1e-9)
        let watts = try HKWorkoutZoneConfiguration(
            quantityType: HKQuantityType(.cyclingPower),
            zoneBoundaries: [150, 200, 250, 300, 350, 400, 450, 500].map { HKQuantity(unit: .watt(), doubleValue: $0) })
        #expect(watts.zones.count == 9)
        #expect(
            configuration
                == (try HKWorkoutZoneConfiguration(
                    quantityType: HKQuantityType(.heartRate),
                    zoneBoundaries: Self.heartRates([136.8, 147.6, 158.4, 169.2]))))
        #expect(configuration != configuration.with(source: .user))
    }

    @Test func badBoundariesSayWhichRuleTheyBreak() async throws {
        let heart = HKQuantityType(.heartRate)
        let cases: [(HKQuantityType, [HKQuantity], String)] = [
            (HKQuantityType(.stepCount), Self.heartRates([1, 2]), "heart rate and cycling power only"),
            (heart, Self.heartRates([120]), "3 to 9 zones, so 2 to 8 boundaries; 1 boundary makes 2"),
            (heart, Self.heartRates(Array(stride(from: 100.0, through: 180, by: 10))), "9 boundaries make 10"),
            (heart, [], "0 boundaries make 1"),
            (heart, Self.heartRates([120, 120, 140]), "strictly ascending; boundary 2"),
            (heart, Self.heartRates([140, 120]), "strictly ascending"),
            (heart, Self.heartRates([-5, 120]), "positive numbers; boundary 1"),
            (heart, Self.heartRates([100, .infinity]), "positive numbers; boundary 2"),
            (
                heart, [HKQuantity(unit: .watt(), doubleValue: 100), HKQuantity(unit: .watt(), doubleValue: 200)],
                "not compatible with heart rate"
            ),
            (HKQuantityType(.cyclingPower), Self.heartRates([100, 200]), "not compatible with cycling power"),
        ]
        for (type, boundaries, message) in cases {
            let error = await expectHKError(.errorInvalidArgument) {
                _ = try HKWorkoutZoneConfiguration(quantityType: type, zoneBoundaries: boundaries)
            }
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "") should say \(message)")
        }
    }

    @Test func systemHeartRateZonesReproduceApplesExampleBoundaries() async throws {
        let (store, clock) = try await liveStore()
        let preferred = try #require(try await store.preferredWorkoutZoneConfiguration(for: HKQuantityType(.heartRate)))
        #expect(preferred.source == .system)
        #expect(preferred.boundaryValues == [136.8, 147.6, 158.4, 169.2])  // resting 72, maximum 180
        #expect(try await store.preferredWorkoutZoneConfiguration(for: HKQuantityType(.cyclingPower)) == nil)
        await expectHKError(.errorInvalidArgument) {
            _ = try await store.preferredWorkoutZoneConfiguration(for: HKQuantityType(.stepCount))
        }

        // Born 1996-06-01, so 30 on t0 (2026-05-09 is before the birthday: still 29): maximum 220 − 29 = 191.
        try await store.setWorkoutProfile(WorkoutProfile(dateOfBirth: DateComponents(year: 1996, month: 6, day: 1)))
        #expect(
            try await store.preferredWorkoutZoneConfiguration(for: HKQuantityType(.heartRate))?.boundaryValues
                == [143.4, 155.3, 167.2, 179.1])  // 72 + {60,70,80,90} % of 119
        clock.set(365 * 86400)  // a year on: 30, maximum 190
        #expect(
            try await store.preferredWorkoutZoneConfiguration(for: HKQuantityType(.heartRate))?.boundaryValues
                == [142.8, 154.6, 166.4, 178.2])
        // The latest resting heart-rate sample wins over the profile's; the profile's maximum over the age.
        try await store.requestAuthorization(
            toShare: [HKQuantityType(.restingHeartRate), HKQuantityType(.cyclingFunctionalThresholdPower)],
            read: [])
        try await store.setWorkoutProfile(
            WorkoutProfile(
                dateOfBirth: DateComponents(year: 1996, month: 6, day: 1),
                restingHeartRate: 65, maximumHeartRate: 200))
        #expect(
            try await store.preferredWorkoutZoneConfiguration(for: HKQuantityType(.heartRate))?.boundaryValues
                == [146, 159.5, 173, 186.5])
        for (value, offset) in [(50.0, 100.0), (60, 200)] {
            try await store.save(
                HKQuantitySample(
                    type: HKQuantityType(.restingHeartRate), quantity: HKQuantity(unit: Self.bpm, doubleValue: value),
                    start: t0 + offset, end: t0 + offset))
        }
        #expect(
            try await store.preferredWorkoutZoneConfiguration(for: HKQuantityType(.heartRate))?.boundaryValues
                == [144, 158, 172, 186])  // resting 60 (the latest), maximum 200
    }

    @Test(arguments: StoreKind.available) func powerZonesNeedAnFTPAndTheirOwnZonesWin(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let (store, _) = try await liveStore(databasePath: try await kind.freshStoreName(directory))
        let power = HKQuantityType(.cyclingPower)
        try await store.setWorkoutProfile(WorkoutProfile(functionalThresholdPower: 200))
        let system = try #require(try await store.preferredWorkoutZoneConfiguration(for: power))
        #expect(system.source == .system)
        #expect(system.zones.count == 6)
        #expect(system.boundaryValues == [110, 150, 180, 210, 240])
        try await store.requestAuthorization(toShare: [HKQuantityType(.cyclingFunctionalThresholdPower)], read: [])
        try await store.save(
            HKQuantitySample(
                type: HKQuantityType(.cyclingFunctionalThresholdPower),
                quantity: HKQuantity(unit: .watt(), doubleValue: 250), start: t0, end: t0))
        #expect(
            try await store.preferredWorkoutZoneConfiguration(for: power)?.boundaryValues == [
                137.5, 187.5, 225, 262.5, 300,
            ])
        try await store.setWorkoutProfile(
            WorkoutProfile(heartRateZoneBoundaries: [120, 140, 160], cyclingPowerZoneBoundaries: [100, 200]))
        let own = try #require(try await store.preferredWorkoutZoneConfiguration(for: power))
        #expect(own.source == .user && own.boundaryValues == [100, 200])
        let heart = try #require(try await store.preferredWorkoutZoneConfiguration(for: HKQuantityType(.heartRate)))
        #expect(heart.source == .user && heart.zones.count == 4)
        #expect(
            try await store.workoutProfile()
                == WorkoutProfile(
                    heartRateZoneBoundaries: [120, 140, 160],
                    cyclingPowerZoneBoundaries: [100, 200]))
    }

    @Test func aBadProfileIsRefusedAndChangesNothing() async throws {
        let (store, _) = try await liveStore()
        let good = WorkoutProfile(dateOfBirth: DateComponents(year: 1980, month: 2, day: 29), restingHeartRate: 55)
        try await store.setWorkoutProfile(good)
        let bad: [(WorkoutProfile, String)] = [
            (WorkoutProfile(dateOfBirth: DateComponents(year: 2030, month: 1, day: 1)), "in the past"),
            (WorkoutProfile(dateOfBirth: DateComponents(year: 1981, month: 2, day: 29)), "valid date"),
            (WorkoutProfile(restingHeartRate: 300), "resting heart rate must be between"),
            (WorkoutProfile(restingHeartRate: 90, maximumHeartRate: 85), "must be above the resting"),
            (WorkoutProfile(functionalThresholdPower: 0), "functional threshold power"),
            (WorkoutProfile(heartRateZoneBoundaries: [150, 140]), "strictly ascending"),
            (WorkoutProfile(cyclingPowerZoneBoundaries: [100]), "2 to 8 boundaries"),
        ]
        for (profile, message) in bad {
            let error = await expectHKError(.errorInvalidArgument) { try await store.setWorkoutProfile(profile) }
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
        }
        #expect(try await store.workoutProfile() == good)
    }
}
