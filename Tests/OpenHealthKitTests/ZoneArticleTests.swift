import Foundation
import OpenHealthKit
import Testing

// Apple's article "Accessing workout zone data" and the code of WWDC26 session 207 ("Deliver workout insights with
// HealthKit workout zones"), with only the import changed. Each snippet is inside scaffolding that gives it the
// names it uses (`healthStore`, `workout`, `WorkoutManager`, …) and checks what it did.

/// The article's delegate, as written there (`newZoneDuration`, `group`).
final class WorkoutManager: NSObject, @unchecked Sendable {
    let lock = NSLock()
    var currentZones: [HKWorkoutZone] = []
    var displayed: [[TimeInterval]] = []
    func updateCurrentZone(_ zone: HKWorkoutZone) { lock.withLock { currentZones.append(zone) } }
    func updateZoneDurationsDisplay(_ durations: [HKWorkoutZoneDuration]) {
        lock.withLock { displayed.append(durations.map(\.duration)) }
    }
    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {}
    func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {}
}

extension WorkoutManager: HKLiveWorkoutBuilderDelegate {
    func workoutBuilder(
        _ workoutBuilder: HKLiveWorkoutBuilder,
        didUpdateWorkoutZone zoneUpdate: HKLiveWorkoutZoneUpdate
    ) {
        // Update the UI to show the person's zone.
        if let newZone = zoneUpdate.newZoneDuration {
            updateCurrentZone(newZone.zone)
        }

        // Access all zone durations.
        let allDurations = zoneUpdate.group.zoneDurations
        updateZoneDurationsDisplay(allDurations)
    }
}

struct ZoneDisplayData: Equatable {
    var zoneCount: Int
    var currentZoneIndex: Int?
    var durations: [TimeInterval]
}

/// The WWDC session's delegate (`zoneGroup`, `currentZoneDuration`), and the article's older spelling of the type.
final class SessionZoneModel: HKLiveWorkoutBuilderDelegate, @unchecked Sendable {
    @MainActor var heartRateZones: ZoneDisplayData?
    let lock = NSLock()
    var olderSpelling: [Int?] = []
    /// The latest main-actor update the delegate started, so a test can wait for it instead of racing it.
    var lastUpdate: Task<Void, Never>?

    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {}
    func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {}

    func workoutBuilder(
        _ workoutBuilder: HKLiveWorkoutBuilder, didUpdateWorkoutZone zoneUpdate: HKLiveWorkoutZoneUpdate
    ) {
        guard let zoneGroup = zoneUpdate.zoneGroup else { return }
        if let currentIndex = zoneUpdate.currentZoneDuration?.zone.index {
            let data = ZoneDisplayData(
                zoneCount: zoneGroup.configuration.zones.count,
                currentZoneIndex: currentIndex,
                durations: zoneGroup.zoneDurations.map(\.duration)
            )
            let update = Task { @MainActor in self.heartRateZones = data }
            lock.withLock { lastUpdate = update }
        }
        older(zoneUpdate)
    }

    func older(_ zoneUpdate: HKLiveWorkoutBuilder.ZoneUpdate) {
        lock.withLock { olderSpelling.append(zoneUpdate.newZoneDuration?.zone.index) }
    }
}

@Suite(.timeLimit(.minutes(1))) struct ZoneArticleTests {
    /// What the snippets print, instead of standard output.
    final class Printed: @unchecked Sendable {
        var lines: [String] = []
    }
    let printed = Printed()
    func print(_ items: Any...) { printed.lines.append(items.map { "\($0)" }.joined(separator: " ")) }

    /// A finished workout with heart rate in Apple's example zones: 20 s at 130, 30 s at 150, 10 s at 175 bpm.
    func savedWorkout(_ healthStore: HKHealthStore) async throws -> HKWorkout {
        let builder = HKWorkoutBuilder(
            healthStore: healthStore, configuration: configuration(.running), device: .local())
        try await builder.beginCollection(at: t0)
        try await builder.addSamples((0 ..< 60).map { heartRate($0 < 20 ? 130 : $0 < 50 ? 150 : 175, at: Double($0)) })
        try await builder.endCollection(at: t0 + 60)
        return try #require(try await builder.finishWorkout())
    }

    @Test func askToReadAndRetrieveZoneDataFromCompletedWorkouts() async throws {
        let healthStore = try await authorizedStore()
        _ = try await savedWorkout(healthStore)
        let reader = healthStore.asClient("reader")
        try await {
            let healthStore = reader
            // — article: "Ask to read workout data" —
            let workoutType = HKObjectType.workoutType()
            guard let heartRateType = HKQuantityType.quantityType(forIdentifier: .heartRate),
                let cyclingPowerType = HKQuantityType.quantityType(forIdentifier: .cyclingPower)
            else {
                return
            }

            try await healthStore.requestAuthorization(
                toShare: [],
                read: [workoutType, heartRateType, cyclingPowerType]
            )
        }()
        let workout = try #require(
            try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: reader).first)

        // — article: "Retrieve zone data from completed workouts" —
        if let zoneGroups = workout.zoneGroupsByType {
            for (quantityType, zoneGroup) in zoneGroups {
                let configuration = zoneGroup.configuration
                let durations = zoneGroup.zoneDurations

                // Display zone information.
                for zoneDuration in durations {
                    let zone = zoneDuration.zone
                    let timeInZone = zoneDuration.duration

                    print("Zone \(zone.index): \(timeInZone) seconds")
                    if let min = zone.minimum {
                        print("  Min: \(min)")
                    }
                    if let max = zone.maximum {
                        print("  Max: \(max)")
                    }
                }
                _ = (quantityType, configuration)
            }
        }
        #expect(
            printed.lines == [
                "Zone 0: 20.0 seconds", "  Max: 136.8 count/min",
                "Zone 1: 0.0 seconds", "  Min: 136.8 count/min", "  Max: 147.6 count/min",
                "Zone 2: 30.0 seconds", "  Min: 147.6 count/min", "  Max: 158.4 count/min",
                "Zone 3: 0.0 seconds", "  Min: 158.4 count/min", "  Max: 169.2 count/min",
                "Zone 4: 10.0 seconds", "  Min: 169.2 count/min",
            ])

        // — article: "Check zone configuration sources" —
        let zoneGroup = try #require(workout.zoneGroup(for: HKQuantityType(.heartRate)))
        switch zoneGroup.configuration.source {
        case .system:
            // Zones automatically generated by the system based on personal metrics.
            print("System-generated zones")

        case .user:
            // Zones manually configured by the person in Health Settings.
            print("User-configured zones")

        case .app:
            // Zones provided by an app for this specific workout.
            print("App-defined zones")
        }
        #expect(printed.lines.last == "System-generated zones")
    }

    @Test func preferredZonesAsTheArticleReadsThem() async throws {
        let healthStore = try await authorizedStore()
        try await {
            // — article: "Access the person's preferred workout zones" —
            guard let heartRateType = HKQuantityType.quantityType(forIdentifier: .heartRate) else {
                return
            }

            if let preferredConfig = try await healthStore.preferredWorkoutZoneConfiguration(for: heartRateType) {
                print("Preferred zones for heart rate:")
                for zone in preferredConfig.zones {
                    print(
                        "Zone \(zone.index): \(zone.minimum?.description ?? "no min") - \(zone.maximum?.description ?? "no max")"
                    )
                }
            }
        }()
        #expect(
            printed.lines == [
                "Preferred zones for heart rate:", "Zone 0: no min - 136.8 count/min",
                "Zone 1: 136.8 count/min - 147.6 count/min", "Zone 2: 147.6 count/min - 158.4 count/min",
                "Zone 3: 158.4 count/min - 169.2 count/min", "Zone 4: 169.2 count/min - no max",
            ])
    }

    @Test func customZonesForAWorkout() async throws {
        let healthStore = try await authorizedStore()
        let workoutConfiguration = configuration(.running)
        let made = try await { () -> HKWorkoutBuilder? in
            // — article: "Set custom zones for a workout" —
            let builder = HKWorkoutBuilder(
                healthStore: healthStore,
                configuration: workoutConfiguration,
                device: .local()
            )

            guard let heartRateType = HKQuantityType.quantityType(forIdentifier: .heartRate) else {
                return nil
            }

            let heartRateUnit = HKUnit(from: "count/min")
            let zoneBoundaries = [
                HKQuantity(unit: heartRateUnit, doubleValue: 136.8),
                HKQuantity(unit: heartRateUnit, doubleValue: 147.6),
                HKQuantity(unit: heartRateUnit, doubleValue: 158.4),
                HKQuantity(unit: heartRateUnit, doubleValue: 169.2),
            ]

            let customConfiguration = try HKWorkoutZoneConfiguration(
                quantityType: heartRateType,
                zoneBoundaries: zoneBoundaries
            )

            // Always set the custom zone configuration before beginning collection.
            try await builder.setCustomZoneConfiguration(customConfiguration, for: heartRateType)

            try await builder.beginCollection(at: .now)
            return builder
        }()
        let builder = try #require(made)
        let start = try #require(builder.startDate)
        let bpm = HKUnit(from: "count/min")
        try await builder.addSamples(
            [140.0, 160, 160].enumerated().map { index, value in
                HKQuantitySample(
                    type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: bpm, doubleValue: value),
                    start: start + Double(index), end: start + Double(index))
            })
        try await builder.endCollection(at: start + 3)
        let workout = try #require(try await builder.finishWorkout())
        let group = try #require(workout.zoneGroup(for: HKQuantityType(.heartRate)))
        #expect(group.configuration.source == .app)
        #expect(group.zoneDurations.map(\.duration) == [0, 1, 0, 2, 0])
        #expect(
            try await healthStore.preferredWorkoutZoneConfiguration(for: HKQuantityType(.heartRate))?.source == .system)
    }

    @Test func wwdcSessionSnippets() async throws {
        let healthStore = try await authorizedStore()
        let builder = HKWorkoutBuilder(healthStore: healthStore, configuration: configuration(.running), device: nil)
        try await healthStore.setWorkoutProfile(WorkoutProfile(heartRateZoneBoundaries: [100, 120]))
        var configured: HKWorkoutZoneConfiguration?
        // — WWDC26 207, 9:19–9:33: "Check if Preferred Zone has been set", "Create Zone Boundaries",
        //   "Create Default Workout Zone Configuration" —
        if try await builder.zoneConfiguration(for: HKQuantityType(.heartRate)) == nil {
            Issue.record("heart rate always has zones")
        }
        let defaultHeartRateZoneThresholds = [91.0, 114.0, 136.0, 158.0]
        let bpmUnit = HKUnit.count().unitDivided(by: HKUnit.minute())
        let boundaries = defaultHeartRateZoneThresholds.map({ HKQuantity(unit: bpmUnit, doubleValue: $0) })
        let heartRate = HKQuantityType(.heartRate)
        let defaultConfiguration = try HKWorkoutZoneConfiguration(quantityType: heartRate, zoneBoundaries: boundaries)
        configured = defaultConfiguration
        try await builder.setCustomZoneConfiguration(configured, for: heartRate)
        #expect(try await builder.zoneConfiguration(for: heartRate)?.zones.count == 5)
        try await builder.beginCollection(at: t0)
        try await builder.addSamples([ZoneArticleTests.sample(120, at: 0), ZoneArticleTests.sample(140, at: 4)])
        try await builder.endCollection(at: t0 + 6)
        let workout = try #require(try await builder.finishWorkout())

        // — WWDC26 207, 3:54: "Reading Heart Rate Zones from a completed workout" —
        // Read heart rate zones from the completed workout
        if let heartRateZoneGroup = workout.zoneGroupsByType?[HKQuantityType(.heartRate)] {
            let zones = ZoneDisplayData(
                zoneCount: heartRateZoneGroup.configuration.zones.count,
                currentZoneIndex: nil,
                durations: heartRateZoneGroup.zoneDurations.map(\.duration)
            )
            #expect(zones == ZoneDisplayData(zoneCount: 5, currentZoneIndex: nil, durations: [0, 0, 4, 2, 0]))
        } else {
            Issue.record("no heart-rate zones")
        }
    }

    static func sample(_ bpm: Double, at offset: TimeInterval) -> HKQuantitySample {
        HKQuantitySample(
            type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: HKUnit(from: "count/min"), doubleValue: bpm),
            start: t0 + offset, end: t0 + offset)
    }

    @Test func liveDelegatesWrittenAsTheArticleAndTheSessionWriteThem() async throws {
        let (store, clock) = try await liveStore()
        let session = try HKWorkoutSession(healthStore: store, configuration: configuration(.running))
        let builder = session.associatedWorkoutBuilder()
        let manager = WorkoutManager()
        builder.delegate = manager
        session.startActivity(with: t0)
        try await builder.beginCollection(at: t0)
        for (second, bpm) in [(0, 130.0), (1, 131), (2, 150), (3, 151), (4, 175)] {
            clock.set(Double(second))
            try await builder.addSamples([Self.sample(bpm, at: Double(second))])
        }
        await builder.waitForDelegateCalls()
        let model = SessionZoneModel()
        builder.delegate = model
        clock.set(5)
        try await builder.addSamples([Self.sample(140, at: 5)])
        clock.set(30)
        _ = builder.zoneGroup(for: HKQuantityType(.heartRate))  // stale: no zone
        await builder.waitForDelegateCalls()
        #expect(manager.currentZones.map(\.index) == [0, 2, 4])
        #expect(manager.displayed == [[0, 0, 0, 0, 0], [2, 0, 0, 0, 0], [2, 0, 2, 0, 0]])
        #expect(model.olderSpelling == [1, nil])
        await model.lock.withLock { model.lastUpdate }?.value
        let shown = await MainActor.run { model.heartRateZones }
        #expect(shown == ZoneDisplayData(zoneCount: 5, currentZoneIndex: 1, durations: [2, 0, 2, 0, 1]))
        session.end()
    }
}
