import FitnessSensors
import Foundation
import Testing

@testable import OpenHealthKit

/// Crash recovery folds the journal through the recording core's own `apply`: a recording journaled by a live
/// builder and read back by another store object on the same file holds what the live builder held, field by field.
@Suite(.timeLimit(.minutes(1))) struct RecoveryFoldTests {
    let bpm = HKUnit(from: "count/min")

    /// A live ride with everything the journal records: session changes (a pause), zones, readings from a strap and a
    /// power meter, an activity begun and ended by the session, an app's event, metadata, an activity's own metadata
    /// and a sample the app added; then collection ends. The live builder is kept; a second store object recovers.
    @Test func aRecoveredBuilderHoldsWhatTheLiveOneHeld() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("fold.sqlite")
        let (store, clock) = try await liveStore(databasePath: path)
        let session = try HKWorkoutSession(healthStore: store, configuration: configuration(.cycling))
        let live = session.associatedWorkoutBuilder()
        let strap = ScriptedSensor(identifier: "test:strap", name: "Strap", capabilities: .heartRateStrap)
        let meter = ScriptedSensor(identifier: "test:meter", name: "Meter", capabilities: .powerMeter)
        let source = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration(.cycling))
        source.attach(strap)
        source.attach(meter)
        live.dataSource = source
        let zones = try HKWorkoutZoneConfiguration(
            quantityType: HKQuantityType(.heartRate),
            zoneBoundaries: [100, 120, 140].map { HKQuantity(unit: bpm, doubleValue: $0) })
        try await live.setCustomZoneConfiguration(zones, for: HKQuantityType(.heartRate))
        session.startActivity(with: t0)
        try await live.beginCollection(at: t0)
        session.beginNewActivity(configuration: configuration(.cycling), date: t0 + 5, metadata: ["leg": "ride"])
        for second in 0 ..< 60 {
            clock.set(Double(second))
            if second == 20 { session.pause() }
            if second == 30 { session.resume() }
            strap.send(
                .heartRate(HeartRateReading(bpm: 100 + second, rrIntervals: [0.5], contact: .detected)),
                at: t0 + Double(second))
            meter.send(.power(PowerReading(watts: 150 + second)), at: t0 + Double(second))
        }
        session.endCurrentActivity(on: t0 + 50)
        let activity = try #require(live.workoutActivities.first)
        try await live.updateActivity(uuid: activity.uuid, adding: ["note": "kept live only"])
        try await live.addWorkoutEvents([
            HKWorkoutEvent(
                type: .marker, dateInterval: DateInterval(start: t0 + 40, duration: 0),
                metadata: ["lap": "1"])
        ])
        try await live.addMetadata(["route": "river"])
        try await live.addSamples([
            HKQuantitySample(
                type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: bpm, doubleValue: 90),
                start: t0 + 60, end: t0 + 61)
        ])
        clock.set(62)
        try await live.endCollection(at: t0 + 62)
        try await live.flushJournal()
        source.stopSensors()

        let other = try HKHealthStore(databasePath: path, clientIdentifier: "tests")
        other.wallClock = { t0 + 70 }
        let recoveredSession = try #require(try await other.recoverActiveWorkoutSession())
        let recovered = recoveredSession.associatedWorkoutBuilder()

        #expect(recoveredSession.state == session.state)
        #expect(recoveredSession.startDate == session.startDate)
        #expect(recovered.startDate == live.startDate && recovered.endDate == live.endDate)
        #expect(recovered.workoutEvents.map(\.type) == live.workoutEvents.map(\.type))
        #expect(recovered.workoutEvents.map(\.dateInterval) == live.workoutEvents.map(\.dateInterval))
        #expect(
            recovered.workoutEvents.map { $0.metadata?["lap"] as? String }
                == live.workoutEvents.map { $0.metadata?["lap"] as? String })
        #expect(recovered.elapsedTime(at: t0 + 62) == live.elapsedTime(at: t0 + 62))
        #expect(recovered.metadata["route"] as? String == "river")
        let liveActivities = live.workoutActivities
        let recoveredActivities = recovered.workoutActivities
        #expect(recoveredActivities.map(\.uuid) == liveActivities.map(\.uuid))
        #expect(recoveredActivities.map(\.startDate) == liveActivities.map(\.startDate))
        #expect(recoveredActivities.map(\.endDate) == liveActivities.map(\.endDate))
        #expect(recoveredActivities.first?.metadata?["leg"] as? String == "ride")
        // Not journaled (the journal has no entry for an activity's added metadata): recovery cannot have it.
        #expect(
            recoveredActivities.first?.metadata?["note"] == nil
                && liveActivities.first?.metadata?["note"] as? String != nil)
        let liveStatistics = live.allStatistics
        let recoveredStatistics = recovered.allStatistics
        #expect(Set(recoveredStatistics.keys) == Set(liveStatistics.keys))
        for (type, statistics) in liveStatistics {
            let other = try #require(recoveredStatistics[type])
            let unit = type.storageUnit
            if type.aggregationStyle == .cumulative {
                #expect(
                    other.sumQuantity()?.doubleValue(for: unit) == statistics.sumQuantity()?.doubleValue(for: unit),
                    "\(type)")
            } else {
                #expect(
                    other.averageQuantity()?.doubleValue(for: unit)
                        == statistics.averageQuantity()?.doubleValue(for: unit), "\(type)")
                #expect(
                    other.minimumQuantity()?.doubleValue(for: unit)
                        == statistics.minimumQuantity()?.doubleValue(for: unit), "\(type)")
                #expect(
                    other.maximumQuantity()?.doubleValue(for: unit)
                        == statistics.maximumQuantity()?.doubleValue(for: unit), "\(type)")
            }
            #expect(other.startDate == statistics.startDate && other.endDate == statistics.endDate, "\(type)")
        }
        let activityStatistics = try #require(liveActivities.first?.allStatistics)
        #expect(Set(try #require(recoveredActivities.first).allStatistics.keys) == Set(activityStatistics.keys))
        let liveZones = try #require(live.zoneGroup(for: HKQuantityType(.heartRate)))
        #expect(recovered.zoneGroup(for: HKQuantityType(.heartRate))?.durations == liveZones.durations)
        #expect(try await recovered.zoneConfiguration(for: HKQuantityType(.heartRate)) == zones)

        // The recovered builder finishes the workout; the live one's journal is gone with it.
        let workout = try #require(try await recovered.finishWorkout())
        #expect(workout.duration == live.elapsedTime(at: t0 + 62))
        #expect(
            try await fetch(other, HKQuantityType(.heartRate), HKQuery.predicateForObjects(from: workout)).count == 51,
            "0–19 s and 30–59 s from the strap (none while paused), and the app's")
        #expect(try await other.recoverActiveWorkoutSession() == nil)
    }

    /// A triathlon recording interrupted during its bike leg comes back collecting for the bike, as the live one
    /// did: the leg's plan change is part of `apply` (it was a side door before, which the journal's fold never
    /// took, so the recovered builder collected for the whole swim-bike-run).
    @Test func aRecoveredMultisportLegCollectsForTheLeg() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("legs.sqlite")
        let (store, _) = try await liveStore(databasePath: path)
        let session = try HKWorkoutSession(healthStore: store, configuration: configuration(.swimBikeRun))
        let live = session.associatedWorkoutBuilder()
        live.dataSource = HKLiveWorkoutDataSource(
            healthStore: store, workoutConfiguration: configuration(.swimBikeRun))
        session.startActivity(with: t0)
        try await live.beginCollection(at: t0)
        let everyLeg = try #require(live.dataSource?.typesToCollect)
        session.beginNewActivity(configuration: configuration(.swimming), date: t0, metadata: nil)
        session.endCurrentActivity(on: t0 + 600)
        session.beginNewActivity(configuration: configuration(.cycling), date: t0 + 660, metadata: nil)
        let bike = try #require(live.dataSource?.typesToCollect)
        #expect(bike.contains(HKQuantityType(.distanceCycling)) && !bike.contains(HKQuantityType(.distanceSwimming)))
        #expect(everyLeg.contains(HKQuantityType(.distanceSwimming)))
        try await live.flushJournal()

        let other = try HKHealthStore(databasePath: path, clientIdentifier: "tests")
        let recoveredSession = try #require(try await other.recoverActiveWorkoutSession())
        let recovered = recoveredSession.associatedWorkoutBuilder()
        recovered.dataSource = HKLiveWorkoutDataSource(
            healthStore: other, workoutConfiguration: configuration(.swimBikeRun))
        #expect(recovered.dataSource?.typesToCollect == bike)

        // Ending the leg goes back to the workout's own plan, live and recovered alike.
        recoveredSession.endCurrentActivity(on: t0 + 3600)
        #expect(recovered.dataSource?.typesToCollect == everyLeg)
        recovered.discardWorkout()
        live.discardWorkout()
    }

    /// The same inputs applied live and folded from their journal entries leave the same core, without a store's
    /// help: the decoder turns each recorded entry back into the input that made it.
    @Test func theDecodedEntriesFoldToTheLiveState() async throws {
        let (store, _) = try await liveStore()
        var live = RecordingCore(activity: .running, deliverySpacing: .zero, source: testSource)
        live.openJournal(LiveJournal(database: try store.database(), builderID: 1))
        let zones = try HKWorkoutZoneConfiguration(
            quantityType: HKQuantityType(.heartRate),
            zoneBoundaries: [100, 120, 140].map { HKQuantity(unit: bpm, doubleValue: $0) })
        let leg = UUID()
        let samples = (0 ..< 30).map { second in
            CollectedSample(
                uuid: UUID(), type: HKQuantityType(.heartRate), start: Double(second), end: Double(second) + 1,
                value: 110 + Double(second))
        }
        let inputs: [RecordingInput] = [
            .sessionState(from: .notStarted, to: .running, date: Date(storeValue: 0)),
            .began(at: Date(storeValue: 0)),
            .zoneConfiguration(zones),
            .activityBegan(
                RecordingCore.Activity(
                    uuid: leg, configuration: configuration(.running), start: Date(storeValue: 0),
                    end: nil, metadata: ["leg": "1"])),
            .samples(Array(samples[0 ..< 10])),
            .sessionState(from: .running, to: .paused, date: Date(storeValue: 10)),
            .events(
                [
                    HKWorkoutEvent(
                        type: .pause, dateInterval: DateInterval(start: Date(storeValue: 10), duration: 0),
                        metadata: nil)
                ],
                checkedAt: Date(storeValue: 10)),
            .sessionState(from: .paused, to: .running, date: Date(storeValue: 15)),
            .events(
                [
                    HKWorkoutEvent(
                        type: .resume, dateInterval: DateInterval(start: Date(storeValue: 15), duration: 0),
                        metadata: nil)
                ],
                checkedAt: Date(storeValue: 15)),
            .samples(Array(samples[15...])),
            .activityEnded(uuid: leg, at: Date(storeValue: 25)),
            .metadata(["k": "v"]),
            .ended(at: Date(storeValue: 30)),
        ]
        // The journal as the writer would have stored it: sample batches and entries in sequence order.
        var rows: [(sequence: Int64, input: RecordingInput)] = []
        for input in inputs {
            let actions = try live.apply(input, now: .zero)
            for batch in actions.writes {
                if !batch.samples.isEmpty { rows.append((batch.samplesSequence, .samples(batch.samples))) }
                if let entry = batch.entry {
                    let decoded = try JSONDecoder().decode(JournalEntry.self, from: Data(entry.payload))
                    rows.append((entry.sequence, try #require(try JournalDecoder.input(decoded))))
                }
            }
        }
        if let rest = live.flush(), !rest.samples.isEmpty {
            rows.append((rest.samplesSequence, .samples(rest.samples)))
        }
        var folded = RecordingCore.replaying(activity: .running, deliverySpacing: .zero, source: testSource)
        for row in rows.sorted(by: { $0.sequence < $1.sequence }) { _ = try folded.apply(row.input, now: .zero) }

        #expect(folded.lifecycle == live.lifecycle)
        #expect(folded.session == live.session)
        #expect(folded.events.map(\.type) == live.events.map(\.type))
        #expect(folded.events.map(\.dateInterval) == live.events.map(\.dateInterval))
        #expect(folded.activities.map(\.uuid) == live.activities.map(\.uuid))
        #expect(folded.activities.map(\.end) == live.activities.map(\.end))
        #expect(folded.activities.map { $0.metadata?["leg"] as? String } == ["1"])
        #expect(folded.metadata["k"] as? String == "v")
        let end = Date(storeValue: 30)
        #expect(folded.elapsedTime(at: end) == live.elapsedTime(at: end))
        let type = HKQuantityType(.heartRate)
        #expect(
            folded.statistics(for: type, now: end)?.averageQuantity()
                == live.statistics(for: type, now: end)?.averageQuantity())
        #expect(
            folded.statistics(for: type, now: end)?.maximumQuantity()
                == live.statistics(for: type, now: end)?.maximumQuantity())
        #expect(folded.zoneGroup(for: type, at: end)?.durations == live.zoneGroup(for: type, at: end)?.durations)
        #expect(
            folded.workoutActivity(withUUID: leg, through: end)?.allStatistics.keys.sorted {
                $0.identifier < $1.identifier
            }
                == live.workoutActivity(withUUID: leg, through: end)?.allStatistics.keys.sorted {
                    $0.identifier < $1.identifier
                })
    }
}
