import FITFile
import FitnessSensors
import Foundation
import OpenHealthKit
import TestSupport
import Testing
import WorkoutImport

/// A FIT ride made into a fixture, replayed through the live pipeline, gives the import's statistics.
@Suite struct WorkoutFixtureTests {
    func store() async throws -> HKHealthStore {
        let store = HKHealthStore.inMemory(clientIdentifier: "fixture-tests")
        try await store.requestAuthorization(
            toShare: WorkoutImporter.shareTypes,
            read: Set(WorkoutImporter.shareTypes.map { $0 as HKObjectType }))
        return store
    }

    @Test(.timeLimit(.minutes(1)))
    func replayOfTheFixtureMatchesTheImport() async throws {
        // Power 150 + 13t mod 200 W varies, so normalized power differs from the average.
        let path = try ImportTestFiles.write(
            ImportTestFiles.ride(power: { UInt64(150 + ($0 * 13) % 200) }), name: "ride.fit")
        let fixture = path + ".jsonl"
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: fixture)
        }
        let imported = try WorkoutImporter.read(path: path)
        let summary = try WorkoutFixture.write(imported, to: fixture, source: "ride.fit")
        #expect(summary.notifications == 240)  // 120 heart-rate and 120 power measurements
        #expect(summary.duration == 150)

        let importStore = try await store()
        let (imports, _) = try await WorkoutImporter.save(imported, to: importStore)
        let replayStore = try await store()
        let replay = try WorkoutReplay(fixtureAt: fixture, healthStore: replayStore)
        let replayed = try await replay.run(pace: .instant)
        #expect(replay.malformedNotifications == 0)

        let bpm = HKUnit.count().unitDivided(by: .minute())
        func average(_ workout: HKWorkout, _ type: HKQuantityTypeIdentifier, _ unit: HKUnit) -> Double? {
            workout.statistics(for: HKQuantityType(type))?.averageQuantity()?.doubleValue(for: unit)
        }
        let heart = (average(imports, .heartRate, bpm), average(replayed, .heartRate, bpm))
        let power = (average(imports, .cyclingPower, .watt()), average(replayed, .cyclingPower, .watt()))
        let np = (
            try await importStore.normalizedPower(for: imports)?.doubleValue(for: .watt()),
            try await replayStore.normalizedPower(for: replayed)?.doubleValue(for: .watt())
        )
        #expect(heart.0 != nil && heart.0?.rounded() == heart.1?.rounded(), "heart rate \(heart)")
        #expect(power.0 != nil && power.0?.rounded() == power.1?.rounded(), "power \(power)")
        #expect(np.0 != nil && np.0?.rounded() == np.1?.rounded(), "normalized power \(np)")
        #expect(replayed.startDate == imports.startDate)
        #expect(replayed.duration == imports.duration)  // the pause became a pause
        // Cadence came back from synthesized crank revolutions: 90 rpm. (Its average is lower: after the pause the
        // meter's crank calculator holds, then reads 0, then measures one slow revolution across the stop, as a real
        // meter's would; so the median is checked.)
        let cadences = try await HKSampleQueryDescriptor(
            predicates: [
                .quantitySample(
                    type: HKQuantityType(.cyclingCadence), predicate: HKQuery.predicateForObjects(from: replayed))
            ],
            sortDescriptors: []
        ).result(for: replayStore).map { $0.quantity.doubleValue(for: bpm) }.sorted()
        #expect(cadences.count > 100)
        #expect(abs(cadences[cadences.count / 2] - 90) < 0.5, "median cadence \(cadences[cadences.count / 2])")
        // RR intervals travelled in the heart-rate measurements: the replay's heartbeat series holds the import's
        // beats (74, see WorkoutImportTests), less the one after the invalid interval, which a strap cannot send.
        let beats = try await HKSampleQueryDescriptor(
            predicates: [
                .sample(type: HKSeriesType.heartbeat(), predicate: HKQuery.predicateForObjects(from: replayed))
            ],
            sortDescriptors: []
        ).result(for: replayStore).compactMap { ($0 as? HKHeartbeatSeriesSample)?.count }.reduce(0, +)
        #expect(beats == 73)
        // Speed from wheel revolutions: 10 m/s.
        let speed = average(replayed, .cyclingSpeed, HKUnit.meter().unitDivided(by: .second()))
        #expect(speed.map { abs($0 - 10) < 0.2 } == true, "speed \(String(describing: speed))")
    }
}
