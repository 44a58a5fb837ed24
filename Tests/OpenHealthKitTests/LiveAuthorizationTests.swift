import FitnessSensors
import Foundation
import Testing

@testable import OpenHealthKit

/// Authorization as Apple's Apple Watch sample ("Building a workout app for Apple Watch") asks for it: share only
/// the workout type, read heart rate, energy and distance. Its live builder still saves what its data source
/// collected, heartbeats included; reading them back follows each client's read authorization.
@Suite(.timeLimit(.minutes(1))) struct LiveAuthorizationTests {
    /// Records one cycling workout (20 s of heart rate with RR intervals, and power) for client `watchapp`, which
    /// asked to share only the workout type.
    func recordAsTheWatchSample(_ path: String) async throws -> HKWorkout? {
        let store = try HKHealthStore(databasePath: path, clientIdentifier: "watchapp")
        let clock = ManualWallClock(t0)
        store.wallClock = { clock.now }
        // The sample's sets, word for word: share [workoutType()], read heart rate, energy, distances, activity summary.
        let typesToShare: Set = [HKQuantityType.workoutType()]
        let typesToRead: Set = [
            HKQuantityType.workoutType(), HKQuantityType.quantityType(forIdentifier: .heartRate)!,
            HKQuantityType.quantityType(forIdentifier: .activeEnergyBurned)!,
            HKQuantityType.quantityType(forIdentifier: .distanceCycling)!,
        ]
        try await store.requestAuthorization(toShare: typesToShare, read: typesToRead)
        let workoutConfiguration = configuration(.cycling)
        let session = try HKWorkoutSession(healthStore: store, configuration: workoutConfiguration)
        let builder = session.associatedWorkoutBuilder()
        let dataSource = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: workoutConfiguration)
        let strap = ScriptedSensor(identifier: "test:strap", name: "Strap", capabilities: .heartRateStrap)
        let meter = ScriptedSensor(identifier: "test:meter", name: "Meter", capabilities: .powerMeter)
        dataSource.attach(strap)
        dataSource.attach(meter)
        builder.dataSource = dataSource
        session.startActivity(with: t0)
        try await builder.beginCollection(at: t0)
        for second in 1 ... 20 {
            clock.set(Double(second))
            strap.send(
                .heartRate(HeartRateReading(bpm: 120, rrIntervals: [0.5, 0.5], contact: .detected)),
                at: t0 + Double(second))
            meter.send(.power(PowerReading(watts: 200)), at: t0 + Double(second))
        }
        session.end()
        try await builder.endCollection(at: t0 + 21)
        return try await builder.finishWorkout()
    }

    @Test func collectedTypesAndHeartbeatsAreSavedWithOnlyTheWorkoutTypeShared() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("health.sqlite")
        let workout = try #require(try await recordAsTheWatchSample(path))

        // The app reads back what it may read: heart rate (granted), from its own source, the strap its device.
        let app = try HKHealthStore(databasePath: path, clientIdentifier: "watchapp")
        let heartRates = try await fetch(app, HKQuantityType(.heartRate), HKQuery.predicateForObjects(from: workout))
        // One reading a second for seconds 1…20.
        #expect(heartRates.count == 20)
        #expect(heartRates.allSatisfy { $0.sourceRevision.source.bundleIdentifier == "watchapp" })
        #expect(heartRates.first?.device?.name == "Strap")
        // Power was collected and saved too, though never shared or read-granted; the workout's statistics hold it.
        #expect(
            workout.statistics(for: HKQuantityType(.cyclingPower))?.averageQuantity()?.doubleValue(for: .watt()) == 200)

        // Another client granted every read sees the collected power and the heartbeats: 20 notifications × 2 beats.
        let reader = try HKHealthStore(databasePath: path, clientIdentifier: "reader")
        try await reader.requestAuthorization(
            toShare: [], read: [HKQuantityType(.cyclingPower), HKSeriesType.heartbeat()])
        #expect(try await fetch(reader, HKQuantityType(.cyclingPower), nil).count == 20)
        let series = try await fetch(reader, HKSeriesType.heartbeat(), nil).compactMap {
            $0 as? HKHeartbeatSeriesSample
        }
        #expect(series.map(\.count).reduce(0, +) == 40)

        // A client without read authorization sees none of it, as if there were none.
        let stranger = try HKHealthStore(databasePath: path, clientIdentifier: "stranger")
        try await stranger.requestAuthorization(toShare: [], read: [])
        #expect(try await fetch(stranger, HKQuantityType(.heartRate), nil).isEmpty)
        #expect(try await fetch(stranger, HKSeriesType.heartbeat(), nil).isEmpty)
    }

    @Test func theWorkoutTypeItselfStillNeedsShareAuthorization() async throws {
        let (store, clock) = try await liveStore(client: "denied")
        try store.setAuthorizationStatus(.sharingDenied, forSharing: HKObjectType.workoutType())
        let session = try HKWorkoutSession(healthStore: store, configuration: configuration(.running))
        let builder = session.associatedWorkoutBuilder()
        session.startActivity(with: t0)
        try await builder.beginCollection(at: t0)
        clock.set(10)
        session.end()
        try await builder.endCollection(at: t0 + 10)
        await expectHKError(.errorAuthorizationDenied) { _ = try await builder.finishWorkout() }
    }
}
