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

    /// A run made into a foot pod's fixture replays to the file's speed, cadence and distance.
    ///
    /// The file (``ImportTestFiles/run()``): 120 records a second apart, speed 3.00–3.45 m/s, cadence 84.25–86.25
    /// strides a minute, distance the running sum of the speeds. Tolerances, from what a foot pod's bytes can carry:
    /// - speed in 1/256 m/s: each reading within 0.002 m/s, so the average within 0.005 m/s;
    /// - steps a minute, whole: 2 × 84.25 = 168.5 is sent as 169, half a step a minute high, so 119 s of steps
    ///   (the first reading starts the count) come out 0.5 × 119 / 60 ≈ 1 step above the file's 338.2; within 2;
    /// - distance from the pod's total in 1/10 m, counted from its first notification: the file's last distance less
    ///   its first (the first second's 3 m, before the pod's first value), 384 m, within 0.1 m.
    @Test(.timeLimit(.minutes(1)))
    func aRunReplaysToTheFilesSpeedCadenceAndDistance() async throws {
        let path = try ImportTestFiles.write(ImportTestFiles.run(), name: "run.fit")
        let fixture = path + ".jsonl"
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: fixture)
        }
        let imported = try WorkoutImporter.read(path: path)
        #expect(imported.activityType == .running)
        let summary = try WorkoutFixture.write(imported, to: fixture, source: "run.fit")
        #expect(summary.notifications == 240)  // 120 heart-rate and 120 RSC measurements
        #expect(summary.duration == 120)
        let header = try FixtureReader(path: fixture).header
        #expect(header.sensors.map(\.services) == [["180D"], ["1814"]])

        let store = try await store()
        let replay = try WorkoutReplay(fixtureAt: fixture, healthStore: store)
        let replayed = try await replay.run(pace: .instant)
        #expect(replay.malformedNotifications == 0)
        #expect(replayed.workoutActivityType == .running)

        // The file's figures, from the values the file was made of.
        let speeds = (0 ..< 120).map { Double(ImportTestFiles.runSpeed($0)) / 1000 }
        let fileSpeed = speeds.reduce(0, +) / 120  // 3.225 m/s
        let fileSteps = (1 ..< 120).map { 2 * ImportTestFiles.runCadence($0) / 60 }.reduce(0, +)
        let fileDistance = speeds.reduce(0, +) - speeds[0]  // 387.0 − 3.0 m

        func samples(_ identifier: HKQuantityTypeIdentifier, _ unit: HKUnit) async throws -> [Double] {
            try await HKSampleQueryDescriptor(
                predicates: [
                    .quantitySample(
                        type: HKQuantityType(identifier), predicate: HKQuery.predicateForObjects(from: replayed))
                ],
                sortDescriptors: []
            ).result(for: store).map { $0.quantity.doubleValue(for: unit) }
        }
        let speed = try await samples(.runningSpeed, HKUnit.meter().unitDivided(by: .second()))
        #expect(speed.count == 120)
        let replayedSpeed = speed.reduce(0, +) / Double(speed.count)
        #expect(abs(replayedSpeed - fileSpeed) <= 0.005, "speed \(replayedSpeed) against \(fileSpeed)")
        let steps = try await samples(.stepCount, .count()).reduce(0, +)
        #expect(abs(steps - fileSteps) <= 2, "steps \(steps) against \(fileSteps)")
        let distance = try await samples(.distanceWalkingRunning, .meter()).reduce(0, +)
        #expect(abs(distance - fileDistance) <= 0.1, "distance \(distance) against \(fileDistance)")
        // Stride length, speed × 60 / steps a minute: at 3.00 m/s and 169 steps, 1.07 m; at 3.45 m/s and 171, 1.21 m.
        let strides = try await samples(.runningStrideLength, .meter())
        #expect(strides.count == 120 && strides.allSatisfy { (1.0 ... 1.25).contains($0) }, "\(strides)")
    }

    /// A run's power (a running power meter's, Stryd's) becomes Cycling Power Measurements with power alone, beside
    /// the foot pod: the replay records it as running power with the file's values, and no cycling cadence or speed.
    @Test(.timeLimit(.minutes(1)))
    func aRunsPowerReplaysAsRunningPower() async throws {
        let path = try ImportTestFiles.write(ImportTestFiles.runWithDynamics(stryd: false), name: "power-run.fit")
        let fixture = path + ".jsonl"
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: fixture)
        }
        let imported = try WorkoutImporter.read(path: path)
        let summary = try WorkoutFixture.write(imported, to: fixture, source: "power-run.fit")
        #expect(summary.notifications == 120)  // 60 RSC and 60 power measurements
        let header = try FixtureReader(path: fixture).header
        #expect(header.sensors.map(\.services) == [["1814"], ["1818"]])
        #expect(header.sensors.last?.capabilities == ["power", "energy"])

        let store = try await store()
        let replayed = try await WorkoutReplay(fixtureAt: fixture, healthStore: store).run(pace: .instant)
        func samples(_ identifier: HKQuantityTypeIdentifier, _ unit: HKUnit) async throws -> [Double] {
            try await HKSampleQueryDescriptor(
                predicates: [
                    .quantitySample(
                        type: HKQuantityType(identifier), predicate: HKQuery.predicateForObjects(from: replayed))
                ],
                sortDescriptors: [SortDescriptor(\.startDate)]
            ).result(for: store).map { $0.quantity.doubleValue(for: unit) }
        }
        #expect(try await samples(.runningPower, .watt()) == (0 ..< 60).map(ImportTestFiles.runPower))
        #expect(try await samples(.cyclingPower, .watt()).isEmpty)
        #expect(try await samples(.cyclingCadence, HKUnit.count().unitDivided(by: .minute())).isEmpty)
        #expect(try await samples(.cyclingSpeed, HKUnit.meter().unitDivided(by: .second())).isEmpty)
    }
}
