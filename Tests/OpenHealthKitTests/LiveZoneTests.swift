import FitnessSensors
import Foundation
import Testing

@testable import OpenHealthKit

/// Hears zone updates (and nothing else it needs).
final class ZoneRecorder: HKLiveWorkoutBuilderDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [HKLiveWorkoutZoneUpdate] = []
    var updates: [HKLiveWorkoutZoneUpdate] { lock.withLock { stored } }

    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {}
    func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {}
    func workoutBuilder(
        _ workoutBuilder: HKLiveWorkoutBuilder, didUpdateWorkoutZone zoneUpdate: HKLiveWorkoutZoneUpdate
    ) {
        lock.withLock { stored.append(zoneUpdate) }
    }
}

/// A heart-rate recording replayed through a strap into a live session, with zone times checked by hand.
@Suite(.timeLimit(.minutes(1))) struct LiveZoneTests {
    /// 1 Hz readings, as a strap sends them: (first second, last second + 1, bpm).
    static let recording: [(Int, Int, Int)] = [
        (0, 30, 95),  // zone 0
        (30, 60, 125),  // zone 2
        (60, 70, 145),  // zone 3, then the strap goes silent until 100
        (100, 130, 125),  // zone 2; the session is paused at 120 and resumed at 130
        (130, 150, 165),  // zone 4
    ]

    @Test func replayedRecordingGivesZoneTimesAndUpdatesOnlyOnChanges() async throws {
        let (store, clock) = try await liveStore()
        let session = try HKWorkoutSession(healthStore: store, configuration: configuration(.running))
        let builder = session.associatedWorkoutBuilder()
        let source = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration(.running))
        let strap = ScriptedSensor(identifier: "test:strap", name: "Strap", capabilities: .heartRateStrap)
        source.attach(strap)
        builder.dataSource = source
        let recorder = ZoneRecorder()
        builder.delegate = recorder
        let bpm = HKUnit(from: "count/min")
        let zones = try HKWorkoutZoneConfiguration(
            quantityType: HKQuantityType(.heartRate),
            zoneBoundaries: [100, 120, 140, 160].map { HKQuantity(unit: bpm, doubleValue: $0) })
        try await builder.setCustomZoneConfiguration(zones, for: HKQuantityType(.heartRate))
        let stream = builder.zoneUpdates
        let streamed = Task {
            var all: [HKLiveWorkoutZoneUpdate] = []
            for await update in stream { all.append(update) }
            return all
        }

        session.startActivity(with: t0)
        try await builder.beginCollection(at: t0)
        for (from, to, value) in Self.recording {
            if from == 100 {
                // Asked during the silence: the last reading (69 s) held until 79 s, so no zone applies now.
                clock.set(90)
                #expect(builder.zoneGroup(for: HKQuantityType(.heartRate))?.durations == [30, 0, 30, 19, 0])
            }
            for second in from ..< to {
                if second == 120 {
                    clock.set(120)
                    session.pause()
                }
                if second == 130 {
                    clock.set(130)
                    session.resume()
                }
                clock.set(Double(second))
                strap.send(.heartRate(HeartRateReading(bpm: value, contact: .detected)), at: t0 + Double(second))
            }
        }
        clock.set(150)
        session.end()
        try await builder.endCollection(at: t0 + 150)
        let workout = try #require(try await builder.finishWorkout())
        await builder.waitForDelegateCalls()

        // By hand: zone 0 [0,30); zone 2 [30,60) and [100,120) (cut by the pause); zone 3 [60,79): ten readings
        // and a 10 s hold; nothing in [79,100) (a dropout) nor [120,130) (paused); zone 4 [130,150).
        let group = try #require(workout.zoneGroup(for: HKQuantityType(.heartRate)))
        #expect(group.durations == [30, 0, 50, 19, 20])
        #expect(group.configuration == zones)
        #expect(workout.duration == 140)

        let updates = recorder.updates
        let transitions = updates.map { [$0.previousZoneDuration?.zone.index, $0.currentZoneDuration?.zone.index] }
        #expect(transitions == [[nil, 0], [0, 2], [2, 3], [3, nil], [nil, 2], [2, nil], [nil, 4]])
        #expect(updates.map { $0.previousZoneDuration?.duration } == [nil, 30, 30, 19, nil, 50, nil])
        #expect(updates.map { $0.lastSampleProcessedDate } == [0, 30, 60, 69, 100, 119, 130].map { t0 + Double($0) })
        #expect(updates[3].currentZoneDuration == nil && updates[3].zoneGroup?.durations == [30, 0, 30, 19, 0])
        #expect(updates.allSatisfy { $0.group.configuration == zones && $0.quantityType == HKQuantityType(.heartRate) })
        #expect(updates[1].newZoneDuration == updates[1].currentZoneDuration)

        // The asynchronous sequence saw the same updates, in the same order, and ended with the workout.
        let fromStream = await streamed.value
        #expect(
            fromStream.map { [$0.previousZoneDuration?.zone.index, $0.currentZoneDuration?.zone.index] } == transitions)
        #expect(fromStream.map(\.lastSampleProcessedDate) == updates.map(\.lastSampleProcessedDate))
    }

    @Test func powerZonesUpdateSeparatelyFromHeartRate() async throws {
        let (store, clock) = try await liveStore()
        try await store.setWorkoutProfile(WorkoutProfile(functionalThresholdPower: 200))
        let session = try HKWorkoutSession(healthStore: store, configuration: configuration(.cycling))
        let builder = session.associatedWorkoutBuilder()
        let source = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration(.cycling))
        let meter = ScriptedSensor(identifier: "test:meter", name: "Meter", capabilities: .powerMeter)
        source.attach(meter)
        builder.dataSource = source
        let recorder = ZoneRecorder()
        builder.delegate = recorder
        session.startActivity(with: t0)
        try await builder.beginCollection(at: t0)
        for second in 0 ..< 40 {
            clock.set(Double(second))
            meter.send(.power(PowerReading(watts: second < 20 ? 170 : 220)), at: t0 + Double(second))  // zones 2, 4
        }
        session.end()
        try await builder.endCollection(at: t0 + 40)
        let workout = try #require(try await builder.finishWorkout())
        await builder.waitForDelegateCalls()
        #expect(workout.zoneGroup(for: HKQuantityType(.cyclingPower))?.durations == [0, 0, 20, 0, 20, 0])
        #expect(workout.zoneGroup(for: HKQuantityType(.heartRate)) == nil)
        #expect(
            recorder.updates.map { [$0.previousZoneDuration?.zone.index, $0.currentZoneDuration?.zone.index] } == [
                [nil, 2], [2, 4],
            ])
        #expect(recorder.updates.allSatisfy { $0.zoneGroup?.configuration.source == .system })
    }

    @Test func aRecoveredSessionKeepsItsZones() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("zones.sqlite")
        let zones = try HKWorkoutZoneConfiguration(
            quantityType: HKQuantityType(.heartRate),
            zoneBoundaries: [100, 120, 140].map { HKQuantity(unit: HKUnit(from: "count/min"), doubleValue: $0) })
        do {
            let (store, clock) = try await liveStore(databasePath: path)
            let session = try HKWorkoutSession(healthStore: store, configuration: configuration(.running))
            let builder = session.associatedWorkoutBuilder()
            let strap = ScriptedSensor(identifier: "test:strap", name: "Strap", capabilities: .heartRateStrap)
            let source = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration(.running))
            source.attach(strap)
            builder.dataSource = source
            try await builder.setCustomZoneConfiguration(zones, for: HKQuantityType(.heartRate))
            session.startActivity(with: t0)
            try await builder.beginCollection(at: t0)
            for second in 0 ..< 30 {  // 110 (zone 1) for 10 s, then 130 (zone 2)
                clock.set(Double(second))
                strap.send(
                    .heartRate(HeartRateReading(bpm: second < 10 ? 110 : 130, contact: .detected)),
                    at: t0 + Double(second))
            }
            clock.set(30)
            session.pause()
            try await builder.flushJournal()
            source.stopSensors()  // the program "crashes" here
        }
        let store = try HKHealthStore(databasePath: path, clientIdentifier: "tests")
        store.wallClock = { t0 + 40 }
        let session = try #require(try await store.recoverActiveWorkoutSession())
        let builder = session.associatedWorkoutBuilder()
        // The app's zones, not the preferred ones.
        #expect(try await builder.zoneConfiguration(for: HKQuantityType(.heartRate)) == zones)
        #expect(builder.zoneGroup(for: HKQuantityType(.heartRate))?.durations == [0, 10, 20, 0])
        session.end()
        try await builder.endCollection(at: t0 + 40)
        let workout = try #require(try await builder.finishWorkout())
        #expect(workout.zoneGroup(for: HKQuantityType(.heartRate))?.durations == [0, 10, 20, 0])
        #expect(workout.zoneGroup(for: HKQuantityType(.heartRate))?.configuration.source == .app)
    }
}
