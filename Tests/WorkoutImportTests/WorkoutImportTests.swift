import FITFile
import Foundation
import OpenHealthKit
import TestSupport
import Testing

@testable import WorkoutImport

@Suite struct WorkoutImportTests {
    func store() async throws -> HKHealthStore {
        let store = HKHealthStore.inMemory(clientIdentifier: "import-tests")
        try await store.requestAuthorization(
            toShare: WorkoutImporter.shareTypes,
            read: Set(WorkoutImporter.shareTypes.map { $0 as HKObjectType }))
        return store
    }

    func workouts(_ store: HKHealthStore) async throws -> [HKWorkout] {
        try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: store)
    }

    func samples(
        _ type: HKQuantityTypeIdentifier, of workout: HKWorkout, _ store: HKHealthStore
    ) async throws -> [HKQuantitySample] {
        try await HKSampleQueryDescriptor(
            predicates: [
                .quantitySample(type: HKQuantityType(type), predicate: HKQuery.predicateForObjects(from: workout))
            ],
            sortDescriptors: [SortDescriptor(\.startDate)]
        ).result(for: store)
    }

    @Test(.timeLimit(.minutes(1)))
    func rideBecomesAWorkoutAsAnAppWouldSaveIt() async throws {
        let path = try ImportTestFiles.write(ImportTestFiles.ride(), name: "ride.fit")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try await store()
        let imported = try WorkoutImporter.read(path: path)
        #expect(imported.recordCount == 120)  // 150 s less the 30 s pause
        let (workout, saved) = try await WorkoutImporter.save(imported, to: store)
        #expect(saved)
        #expect(workout.workoutActivityType == .cycling)
        #expect(workout.metadata?[HKMetadataKeyIndoorWorkout] as? Bool == true)  // sub-sport 6, indoor cycling
        #expect(workout.metadata?[HKMetadataKeyExternalUUID] as? String == "fit:1/3122/42/1100000000")
        #expect(workout.startDate == ImportTestFiles.date(0))
        #expect(workout.endDate == ImportTestFiles.date(150))
        #expect(workout.duration == 120)  // 150 s, less the 30 s pause
        #expect(workout.device?.manufacturer == "Garmin")
        #expect(workout.device?.softwareVersion == "12.34")  // 1234 / 100
        #expect(workout.device?.name == "Edge Test")
        #expect(workout.device?.localIdentifier == "42")
        let events = workout.workoutEvents ?? []
        #expect(events.filter { $0.type == .pause }.map(\.dateInterval.start) == [ImportTestFiles.date(60)])
        #expect(events.filter { $0.type == .resume }.map(\.dateInterval.start) == [ImportTestFiles.date(90)])
        #expect(
            events.filter { $0.type == .lap }.map(\.dateInterval) == [
                DateInterval(start: ImportTestFiles.date(0), end: ImportTestFiles.date(75)),
                DateInterval(start: ImportTestFiles.date(75), end: ImportTestFiles.date(150)),
            ])
        // Samples at their own times: one heart rate per record, 100 + t mod 20.
        let heart = try await samples(.heartRate, of: workout, store)
        #expect(heart.count == 120)
        #expect(heart.first?.startDate == ImportTestFiles.date(0))
        #expect(heart[5].quantity.doubleValue(for: HKUnit.count().unitDivided(by: .minute())) == 105)
        #expect(try await samples(.cyclingPower, of: workout, store).count == 120)
        #expect(try await samples(.cyclingCadence, of: workout, store).count == 120)
        #expect(
            workout.statistics(for: HKQuantityType(.cyclingPower))?.averageQuantity()?.doubleValue(for: .watt()) == 200)
        #expect(
            workout.statistics(for: HKQuantityType(.cyclingSpeed))?.averageQuantity()?.doubleValue(
                for: HKUnit.meter().unitDivided(by: .second())) == 10)
        // Distance: 10 m per record interval; the first record has no interval before it: 119 × 10 m.
        let distance = workout.statistics(for: HKQuantityType(.distanceCycling))?.sumQuantity()?.doubleValue(
            for: .meter())
        #expect(distance.map { abs($0 - 1190) < 1e-6 } == true)
        // Energy from power: 200 W for each 1 s interval (the pause's 31 s gap is more than 10 s: not counted):
        // 118 intervals × 200 J = 23.6 kJ, counted as 23.6 kcal.
        let energy = workout.statistics(for: HKQuantityType(.activeEnergyBurned))?.sumQuantity()?.doubleValue(
            for: .kilocalorie())
        #expect(energy.map { abs($0 - 23.6) < 1e-9 } == true)
        // Normalized power of a constant 200 W is 200 W.
        #expect(try await store.normalizedPower(for: workout)?.doubleValue(for: .watt()) == 200)
        // hrv: 20 messages (t = 0, 6, …, 114 except 60–84 in the pause: 0,6,…,54 and 90,…,114 → 10 + 5) × 5.
        let series = try await HKSampleQueryDescriptor(
            predicates: [
                .sample(type: HKSeriesType.heartbeat(), predicate: HKQuery.predicateForObjects(from: workout))
            ],
            sortDescriptors: []
        ).result(for: store)
        #expect(series.count == 1)
        #expect((series.first as? HKHeartbeatSeriesSample)?.count == 74)  // 15 × 5 intervals, one invalid
    }

    @Test(.timeLimit(.minutes(1)))
    func importingTheSameActivityTwiceSavesItOnce() async throws {
        let path = try ImportTestFiles.write(ImportTestFiles.ride(), name: "ride.fit")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try await store()
        let first = try await WorkoutImporter.save(try WorkoutImporter.read(path: path), to: store)
        let second = try await WorkoutImporter.save(try WorkoutImporter.read(path: path), to: store)
        #expect(first.saved && !second.saved)
        #expect(second.workout.uuid == first.workout.uuid)
        #expect(try await workouts(store).count == 1)
        // Another device's file at the same time is another activity.
        let other = try ImportTestFiles.write(ImportTestFiles.ride(serial: 43), name: "other.fit")
        defer { try? FileManager.default.removeItem(atPath: other) }
        #expect(try await WorkoutImporter.save(try WorkoutImporter.read(path: other), to: store).saved)
        #expect(try await workouts(store).count == 2)
    }

    @Test(.timeLimit(.minutes(1)))
    func multisportSessionsBecomeActivities() async throws {
        let path = try ImportTestFiles.write(ImportTestFiles.ride(legs: true), name: "tri.fit")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try await store()
        let (workout, _) = try await WorkoutImporter.save(try WorkoutImporter.read(path: path), to: store)
        #expect(workout.workoutActivityType == .swimBikeRun)
        #expect(
            workout.workoutActivities.map(\.workoutConfiguration.activityType) == [.swimming, .transition, .cycling])
        #expect(
            workout.workoutActivities.map(\.startDate) == [
                ImportTestFiles.date(0), ImportTestFiles.date(50), ImportTestFiles.date(90),
            ])
        #expect(workout.workoutActivities[0].workoutConfiguration.locationType == .outdoor)  // open water
        // Power only counts as cycling power in the cycling leg: records 90…149.
        #expect(try await samples(.cyclingPower, of: workout, store).count == 60)
    }

    @Test(.timeLimit(.minutes(1)))
    func damagedFilesSaveNothingUnlessSalvaged() async throws {
        let bytes = ImportTestFiles.ride()
        let cut = Array(bytes.prefix(bytes.count / 2))
        let path = try ImportTestFiles.write(cut, name: "cut.fit")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            try WorkoutImporter.read(path: path)
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("\(path): the file ends ")
                && text.hasSuffix("(truncated) at byte offset \(cut.count).")
        }
        let store = try await store()
        let salvaged = try WorkoutImporter.read(path: path, salvage: true)
        #expect(salvaged.damage?.offset == cut.count || (salvaged.damage.map { $0.offset <= cut.count } ?? false))
        // Lost: what the header declared from the damage on (the whole file's length).
        #expect(salvaged.damage.map { $0.bytesLost == bytes.count - $0.offset } == true)
        #expect(salvaged.activityType == .cycling)  // no session survived; power and cadence say ride
        #expect(salvaged.recordCount > 0 && salvaged.recordCount < 120)
        let (workout, saved) = try await WorkoutImporter.save(salvaged, to: store)
        #expect(saved)
        #expect(try await samples(.heartRate, of: workout, store).count == salvaged.recordCount)

        // A wrong file CRC, and a file that is not FIT at all.
        var corrupt = bytes
        corrupt[corrupt.count - 1] ^= 0xFF
        let crcPath = try ImportTestFiles.write(corrupt, name: "crc.fit")
        defer { try? FileManager.default.removeItem(atPath: crcPath) }
        #expect(throws: ImportError.self) { try WorkoutImporter.read(path: crcPath) }
        let textPath = try ImportTestFiles.write(Array("hello, this is not a workout".utf8), name: "text.fit")
        defer { try? FileManager.default.removeItem(atPath: textPath) }
        #expect {
            try WorkoutImporter.read(path: textPath)
        } throws: { "\($0)" == "\(textPath): no \".FIT\" signature in the header: not a FIT file at byte offset 8." }
    }

    @Test(.timeLimit(.minutes(1)))
    func tcxActivity() async throws {
        let tcx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
              xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2">
              <Activities><Activity Sport="Biking"><Id>2024-11-08T11:33:20Z</Id>
                <Lap StartTime="2024-11-08T11:33:20Z"><TotalTimeSeconds>3</TotalTimeSeconds><Calories>12</Calories>
                  <Track>
                    <Trackpoint><Time>2024-11-08T11:33:20Z</Time><DistanceMeters>0</DistanceMeters><HeartRateBpm><Value>120</Value></HeartRateBpm><Cadence>85</Cadence>
                      <Extensions><ns3:TPX><ns3:Watts>210</ns3:Watts><ns3:Speed>9.5</ns3:Speed></ns3:TPX></Extensions></Trackpoint>
                    <Trackpoint><Time>2024-11-08T11:33:21Z</Time><DistanceMeters>9.5</DistanceMeters><HeartRateBpm><Value>122</Value></HeartRateBpm><Cadence>86</Cadence>
                      <Extensions><ns3:TPX><ns3:Watts>230</ns3:Watts><ns3:Speed>9.7</ns3:Speed></ns3:TPX></Extensions></Trackpoint>
                    <Trackpoint><Time>2024-11-08T11:33:23Z</Time><DistanceMeters>29</DistanceMeters><HeartRateBpm><Value>124</Value></HeartRateBpm></Trackpoint>
                  </Track></Lap></Activity></Activities></TrainingCenterDatabase>
            """
        let path = try ImportTestFiles.write(Array(tcx.utf8), name: "ride.tcx")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let imported = try WorkoutImporter.read(path: path)
        #expect(imported.activityType == .cycling)
        #expect(imported.externalIdentifier == "tcx:2024-11-08T11:33:20Z")
        #expect(imported.heartRate.map(\.value) == [120, 122, 124])
        #expect(imported.power.map(\.value) == [210, 230])
        #expect(imported.laps.map(\.duration) == [3])
        let store = try await store()
        let (workout, _) = try await WorkoutImporter.save(imported, to: store)
        #expect(
            workout.statistics(for: HKQuantityType(.cyclingPower))?.averageQuantity()?.doubleValue(for: .watt()) == 220)
        // Distance 0 → 9.5 → 29 m: 29 m in two samples.
        #expect(
            workout.statistics(for: HKQuantityType(.distanceCycling))?.sumQuantity()?.doubleValue(for: .meter()) == 29)

        let broken = try ImportTestFiles.write(Array(tcx.utf8.prefix(600)), name: "broken.tcx")  // cut mid-document
        defer { try? FileManager.default.removeItem(atPath: broken) }
        #expect { try WorkoutImporter.read(path: broken) } throws: { "\($0)".hasPrefix("\(broken): line ") }
    }

    /// A file needs a lap per session even when nobody marked one: a leg's only lap covering all of it is the leg,
    /// not a lap event; any other lap is kept.
    @Test func aSessionsOnlyLapCoveringItIsNotALap() {
        let t0 = Date(timeIntervalSinceReferenceDate: 780_000_000)
        func span(_ from: Double, _ to: Double) -> DateInterval { DateInterval(start: t0 + from, end: t0 + to) }
        var ride = ImportedWorkout(
            format: "FIT", externalIdentifier: "x", activityType: .cycling, locationType: .outdoor,
            start: t0, end: t0 + 1200)
        ride.laps = [span(0, 1200.4)]
        #expect(ride.markedLaps.isEmpty)
        ride.laps = [span(0, 600)]
        #expect(ride.markedLaps == [span(0, 600)], "one lap, not the whole ride: marked")
        ride.laps = [span(0, 600), span(600, 1200)]
        #expect(ride.markedLaps == ride.laps)

        var triathlon = ride
        triathlon.legs = [
            .init(activityType: .swimming, locationType: .outdoor, interval: span(0, 300)),
            .init(activityType: .transition, locationType: .outdoor, interval: span(300, 400)),
            .init(activityType: .cycling, locationType: .outdoor, interval: span(400, 1200)),
        ]
        triathlon.laps = [span(0, 300), span(300, 400), span(400, 800), span(800, 1200)]
        #expect(
            triathlon.markedLaps == [span(400, 800), span(800, 1200)],
            "the ride's two laps; the swim and transition are legs")
    }
}
