import Foundation
import Testing

@testable import OpenHealthKit

/// The smaller symbols of issue 16: source queries, characteristics, preferred units, deprecated session
/// properties, public sample predicates, metadata values, and what cannot mean anything on Linux.
@Suite(.timeLimit(.minutes(1))) struct RemainingSymbolsTests {
    @Test func sourceQueryNamesTheAppsThatSaved() async throws {
        let store = try await authorizedStore()
        let watch = store.asClient("watch")
        try await watch.requestAuthorization(toShare: [HKQuantityType(.heartRate)], read: [])
        try await store.save(heartRate(60, at: 0))
        try await watch.save(heartRate(61, at: 1))
        let all = try await HKSourceQueryDescriptor(predicate: .quantitySample(type: HKQuantityType(.heartRate)))
            .result(for: store)
        #expect(Set(all.map(\.bundleIdentifier)) == ["tests", "watch"])
        let found: Set<String> = try await withCheckedThrowingContinuation { continuation in
            store.execute(
                HKSourceQuery(
                    sampleType: HKQuantityType(.heartRate),
                    samplePredicate: HKQuery.predicateForSamples(withStart: t0 + 1, end: nil, options: .strictStartDate)
                ) { _, sources, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else {
                        continuation.resume(returning: Set((sources ?? []).map(\.bundleIdentifier)))
                    }
                })
        }
        // Only the watch's sample starts at or after t0 + 1.
        #expect(found == ["watch"])
        #expect(
            try await HKSourceQueryDescriptor(predicate: .quantitySample(type: HKQuantityType(.stepCount))).result(
                for: store
            ).isEmpty)
    }

    @Test func characteristicsComeFromTheProfile() async throws {
        let store = try await authorizedStore()
        #expect(try store.dateOfBirthComponents() == DateComponents())
        try await store.setWorkoutProfile(WorkoutProfile(dateOfBirth: DateComponents(year: 1986, month: 4, day: 12)))
        // Not yet allowed to read it: looks like no data.
        #expect(try store.dateOfBirthComponents().year == nil)
        try await store.requestAuthorization(toShare: [], read: [HKCharacteristicType(.dateOfBirth)])
        let born = try store.dateOfBirthComponents()
        #expect((born.year, born.month, born.day) == (1986, 4, 12))
        #expect(try store.biologicalSex().biologicalSex == .notSet)
        #expect(try store.wheelchairUse().wheelchairUse == .notSet)
        #expect(try store.activityMoveMode().activityMoveMode == .activeEnergy)
    }

    /// No date is too early for this store: a sample from 1900 saves and reads back, at or after the earliest
    /// permitted date.
    @Test func earliestPermittedSampleDateRefusesNothing() async throws {
        let store = try await authorizedStore()
        let old = Date(timeIntervalSince1970: -2_208_988_800)  // 1900-01-01
        #expect(store.earliestPermittedSampleDate() <= old)
        let sample = HKQuantitySample(
            type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: HKUnit(from: "count/min"), doubleValue: 61),
            start: old, end: old)
        try await store.save(sample)
        let read = try await HKSampleQueryDescriptor(
            predicates: [.quantitySample(type: HKQuantityType(.heartRate))], sortDescriptors: []
        )
        .result(for: store)
        #expect(read.map(\.startDate) == [old])
    }

    @Test func preferredUnitsAndTheWatchApp() async throws {
        let store = try await authorizedStore()
        let units = try await store.preferredUnits(for: [
            HKQuantityType(.heartRate), HKQuantityType(.activeEnergyBurned),
            HKQuantityType(.cyclingPower),
        ])
        #expect(units[HKQuantityType(.heartRate)] == HKUnit(from: "count/min"))
        #expect(units[HKQuantityType(.activeEnergyBurned)] == .kilocalorie())
        #expect(units[HKQuantityType(.cyclingPower)] == .watt())
        await expectHKError(.errorHealthDataUnavailable) {
            try await store.startWatchApp(toHandle: HKWorkoutConfiguration())
        }
    }

    @Test func samplePredicatesAndMetadataValuesAreApples() throws {
        let predicate = HKSamplePredicate<HKQuantitySample>.quantitySample(type: HKQuantityType(.heartRate))
        #expect(predicate.sampleType == HKQuantityType(.heartRate) && predicate.nsPredicate == nil)
        // Raw values from HealthKit's HKMetadata.h.
        #expect(HKHeartRateSensorLocation.chest.rawValue == 1 && HKHeartRateSensorLocation.foot.rawValue == 6)
        #expect(HKHeartRateMotionContext.active.rawValue == 2)
        #expect(HKSwimmingStrokeStyle.kickboard.rawValue == 6)
        #expect(HKWeatherCondition.tornado.rawValue == 27)
        #expect(HKUpdateFrequency.weekly.rawValue == 4)
    }
}
