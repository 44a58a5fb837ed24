import FitnessSensors
import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit

/// Apple's article "Dividing a HealthKit workout into activities" as the script: a swim-bike-run session whose
/// legs are begun and ended, with a strap and a power meter, and a data source that follows the legs.
@Suite(.postgresCluster, .timeLimit(.minutes(1))) struct LiveWorkoutTests {
    struct Rig {
        let store: HKHealthStore
        let clock: ManualWallClock
        let session: HKWorkoutSession
        let builder: HKLiveWorkoutBuilder
        let dataSource: HKLiveWorkoutDataSource
        let strap: ScriptedSensor
        let meter: ScriptedSensor
        let recorder: BuilderRecorder

        /// Sends one second of readings at `second`: heart rate (with an RR interval) and, when riding, power.
        func tick(_ second: Int, bpm: Int, watts: Int? = nil) {
            clock.set(Double(second))
            strap.send(
                .heartRate(HeartRateReading(bpm: bpm, rrIntervals: [60.0 / Double(bpm)], contact: .detected)),
                at: t0 + Double(second))
            if let watts { meter.send(.power(PowerReading(watts: watts)), at: t0 + Double(second)) }
        }
    }

    func rig(_ activity: HKWorkoutActivityType, deliverySpacing: Duration = .zero) async throws -> Rig {
        let (store, clock) = try await liveStore(deliverySpacing: deliverySpacing)
        let workoutConfiguration = configuration(activity)
        let session = try HKWorkoutSession(healthStore: store, configuration: workoutConfiguration)
        let builder = session.associatedWorkoutBuilder()
        let dataSource = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: workoutConfiguration)
        let strap = ScriptedSensor(
            identifier: "test:strap", name: "Strap", capabilities: .heartRateStrap,
            deviceInformation: DeviceInformation(manufacturerName: "ACME", modelNumber: "HR-1"))
        let meter = ScriptedSensor(identifier: "test:meter", name: "Meter", capabilities: .powerMeter)
        dataSource.attach(strap)
        dataSource.attach(meter)
        builder.dataSource = dataSource
        let recorder = BuilderRecorder()
        builder.delegate = recorder
        return Rig(
            store: store, clock: clock, session: session, builder: builder, dataSource: dataSource, strap: strap,
            meter: meter, recorder: recorder)
    }

    /// A flood of readings makes a delegate call a millisecond at most, naming every type collected (delivering each
    /// reading would make 40,000). The spacing runs on the store's monotonic clock, which the test moves: 1 ms every
    /// 100 ticks, 200 ms in all.
    @Test func didCollectDataOfIsCoalescedUnderAFlood() async throws {
        let rig = try await rig(.cycling, deliverySpacing: .milliseconds(1))
        rig.session.startActivity(with: t0)
        try await rig.builder.beginCollection(at: t0)
        var elapsedMilliseconds = 0
        for tick in 0 ..< 20_000 {
            let second = Double(tick) / 100
            rig.strap.send(.heartRate(HeartRateReading(bpm: 120 + tick % 40, contact: .detected)), at: t0 + second)
            rig.meter.send(.power(PowerReading(watts: 200 + tick % 50)), at: t0 + second)
            if tick % 100 == 99 {
                rig.clock.monotonic.advance(by: .milliseconds(1))
                elapsedMilliseconds += 1
            }
        }
        await rig.builder.waitForDelegateCalls()
        let flood = rig.recorder.deliveries
        #expect(flood >= 1)
        #expect(
            flood <= elapsedMilliseconds + 2, "\(flood) deliveries for 40,000 readings in \(elapsedMilliseconds) ms")
        #expect(
            rig.recorder.collectedTypes == [
                HKQuantityType(.heartRate), HKQuantityType(.cyclingPower),
                HKQuantityType(.activeEnergyBurned),
            ])
        #expect(
            rig.builder.statistics(for: HKQuantityType(.heartRate))?.maximumQuantity()?
                .doubleValue(for: HKUnit(from: "count/min")) == 159)
    }

    /// Coalescing never reorders: a delegate call queued after readings comes after their `didCollectDataOf`, and
    /// readings collected after the call come after it, even while a spaced delivery is waiting.
    @Test func coalescedDeliveriesKeepTheirPlaceAmongOtherCalls() async throws {
        // A second between deliveries: the readings after the first wait for a spaced delivery.
        let rig = try await rig(.cycling, deliverySpacing: .seconds(1))
        rig.session.startActivity(with: t0)
        try await rig.builder.beginCollection(at: t0)
        let power = HKQuantityType(.cyclingPower), heartRate = HKQuantityType(.heartRate)
        for tick in 0 ..< 300 {
            rig.meter.send(.power(PowerReading(watts: 200 + tick % 50)), at: t0 + Double(tick) / 100)
        }
        rig.clock.set(3)
        try await rig.builder.addWorkoutEvents([
            HKWorkoutEvent(
                type: .marker, dateInterval: DateInterval(start: t0 + 3, duration: 0),
                metadata: nil)
        ])
        for tick in 300 ..< 600 {
            rig.strap.send(
                .heartRate(HeartRateReading(bpm: 120 + tick % 40, contact: .detected)), at: t0 + Double(tick) / 100)
        }
        await rig.builder.waitForDelegateCalls()
        let timeline = rig.recorder.timeline
        let event = try #require(timeline.firstIndex(of: .call("event")), "\(timeline)")
        for (index, entry) in timeline.enumerated() {
            guard case .data(let types) = entry else { continue }
            if types.contains(power) { #expect(index < event, "power collected before the event, delivered after it") }
            if types.contains(heartRate) {
                #expect(index > event, "heart rate collected after the event, delivered before it")
            }
        }
        #expect(rig.recorder.collectedTypes.isSuperset(of: [power, heartRate]))
    }

    @Test func triathlonLegsActivitiesAndTypesToCollect() async throws {
        let rig = try await rig(.swimBikeRun)
        let (session, builder, dataSource) = (rig.session, rig.builder, rig.dataSource)
        let typesBefore = dataSource.typesToCollect
        #expect(
            typesBefore.isSuperset(of: [
                HKQuantityType(.distanceSwimming), HKQuantityType(.distanceCycling),
                HKQuantityType(.distanceWalkingRunning), HKQuantityType(.heartRate),
            ]))

        session.startActivity(with: t0)
        try await builder.beginCollection(at: t0)
        #expect(rig.strap.isStarted && rig.meter.isStarted)

        session.beginNewActivity(configuration: configuration(.swimming), date: t0, metadata: nil)
        #expect(dataSource.typesToCollect.contains(HKQuantityType(.distanceSwimming)))
        #expect(dataSource.typesToCollect.contains(HKQuantityType(.swimmingStrokeCount)))
        #expect(!dataSource.typesToCollect.contains(HKQuantityType(.cyclingPower)))
        // The meter's power is not collected while swimming.
        for second in 0 ..< 60 { rig.tick(second, bpm: 140, watts: 250) }

        session.beginNewActivity(configuration: configuration(.transition), date: t0 + 60, metadata: nil)
        for second in 60 ..< 70 { rig.tick(second, bpm: 150) }

        session.beginNewActivity(configuration: configuration(.cycling), date: t0 + 70, metadata: nil)
        #expect(dataSource.typesToCollect.contains(HKQuantityType(.cyclingPower)))
        #expect(!dataSource.typesToCollect.contains(HKQuantityType(.distanceSwimming)))
        for second in 70 ..< 130 { rig.tick(second, bpm: 160, watts: second < 100 ? 200 : 300) }
        rig.clock.set(130)
        session.pause()
        for second in 130 ..< 140 { rig.tick(second, bpm: 170, watts: 999) }  // paused: nothing is collected
        rig.clock.set(140)
        session.resume()

        session.beginNewActivity(configuration: configuration(.running), date: t0 + 140, metadata: nil)
        #expect(dataSource.typesToCollect.contains(HKQuantityType(.distanceWalkingRunning)))
        #expect(dataSource.typesToCollect.contains(HKQuantityType(.runningStrideLength)))
        #expect(!dataSource.typesToCollect.contains(HKQuantityType(.cyclingPower)))
        for second in 140 ..< 200 { rig.tick(second, bpm: 165) }
        session.endCurrentActivity(on: t0 + 200)
        rig.clock.set(200)
        session.end()
        try await builder.endCollection(at: t0 + 200)
        await builder.waitForDelegateCalls()
        #expect(rig.recorder.collectedTypes.contains(HKQuantityType(.heartRate)))
        #expect(
            rig.recorder.calls.filter { $0.hasPrefix("begin") } == [
                "begin(swimming)", "begin(transition)", "begin(cycling)", "begin(running)",
            ])
        #expect(rig.recorder.calls.contains("event"))

        let workout = try #require(try await builder.finishWorkout())
        #expect(workout.workoutActivityType == .swimBikeRun)
        #expect(workout.duration == 190)
        #expect(workout.workoutEvents?.map(\.type) == [.pause, .resume])
        let legs = workout.workoutActivities
        #expect(legs.map { $0.workoutConfiguration.activityType } == [.swimming, .transition, .cycling, .running])
        #expect(legs.map(\.endDate) == [t0 + 60, t0 + 70, t0 + 140, t0 + 200])
        #expect(legs[2].duration == 60)  // 70 s less the 10 s pause
        let bpm = HKUnit(from: "count/min")
        let power = HKQuantityType(.cyclingPower)
        #expect(legs[0].statistics(for: HKQuantityType(.heartRate))?.averageQuantity()?.doubleValue(for: bpm) == 140)
        #expect(legs[0].statistics(for: power) == nil)
        let ride = try #require(legs[2].statistics(for: power))
        #expect(ride.averageQuantity()?.doubleValue(for: .watt()) == 250)  // 30 × 200 W, 30 × 300 W
        #expect(ride.maximumQuantity()?.doubleValue(for: .watt()) == 300)  // the paused 999 W never arrived
        #expect(legs[3].statistics(for: HKQuantityType(.heartRate))?.averageQuantity()?.doubleValue(for: bpm) == 165)
        // Energy integrated from power while riding (PowerEnergy: each reading's watts until the next): the readings
        // at 70…99 s hold 200 W for a second each (30 × 200 J), those at 100…128 s 300 W (29 × 300 J); the one at
        // 129 s has no next reading before the pause, which ends its hold. kJ counted as kcal.
        let energy = try #require(
            workout.statistics(for: HKQuantityType(.activeEnergyBurned))?.sumQuantity()?.doubleValue(
                for: .kilocalorie()))
        #expect(abs(energy - (30 * 0.2 + 29 * 0.3)) < 1e-9)

        // Everything is in the store, associated with the workout.
        let heart = try await fetch(rig.store, HKQuantityType(.heartRate), HKQuery.predicateForObjects(from: workout))
        #expect(heart.count == 190)
        #expect(heart.first?.device?.manufacturer == "ACME")
        #expect(try await fetch(rig.store, power, HKQuery.predicateForObjects(from: workout)).count == 60)
        // The article's query: workouts with a cycling leg.
        let cycling = HKQuery.predicateForWorkoutActivities(workoutActivityType: .cycling)
        let found = try await HKSampleQueryDescriptor(
            predicates: [.workout(HKQuery.predicateForWorkouts(activityPredicate: cycling))],
            sortDescriptors: [], limit: 25
        ).result(for: rig.store)
        #expect(found.map(\.uuid) == [workout.uuid])
        #expect(
            found.first?.workoutActivities[2].statistics(for: power)?.averageQuantity()?.doubleValue(for: .watt())
                == 250)
        #expect(!rig.strap.isStarted)
    }

    @Test func dataSourceDropsWhatItMustNotRecord() async throws {
        let rig = try await rig(.cycling)
        rig.session.startActivity(with: t0)
        try await rig.builder.beginCollection(at: t0)
        rig.strap.send(.heartRate(HeartRateReading(bpm: 90, contact: .notDetected)), at: t0 + 1)  // no skin contact
        rig.strap.send(.heartRate(HeartRateReading(bpm: 91, contact: .detected)), at: t0 + 2)
        rig.strap.send(.battery(BatteryReading(percent: 80)), at: t0 + 3)
        rig.dataSource.disableCollection(for: HKQuantityType(.cyclingPower))
        rig.meter.send(.power(PowerReading(watts: 200)), at: t0 + 4)
        rig.dataSource.enableCollection(
            for: HKQuantityType(.cyclingPower),
            predicate: HKQuery.predicateForSamples(withStart: t0 + 10, end: nil, options: .strictStartDate))
        rig.meter.send(.power(PowerReading(watts: 210)), at: t0 + 5)  // before the predicate's start
        rig.meter.send(.power(PowerReading(watts: 220)), at: t0 + 11)
        // A meter that goes silent produces nothing more: no frozen value.
        rig.meter.send(.connection(.disconnected(reason: "link lost"), at: t0 + 12))
        try await rig.builder.endCollection(at: t0 + 100)
        let workout = try #require(try await rig.builder.finishWorkout())
        let power = try #require(workout.statistics(for: HKQuantityType(.cyclingPower)))
        #expect(power.averageQuantity()?.doubleValue(for: .watt()) == 220)
        #expect(try await fetch(rig.store, HKQuantityType(.cyclingPower), nil).count == 1)
        #expect(try await fetch(rig.store, HKQuantityType(.heartRate), nil).count == 1)
        // The explicit set stays when a new activity would change the defaults.
        let leg = RecordingCore.Activity(
            uuid: UUID(), configuration: configuration(.running), start: t0 + 100, end: nil)
        rig.builder.withCore { _ = try? $0.apply(.activityBegan(leg), now: .zero) }
        #expect(rig.dataSource.typesToCollect.contains(HKQuantityType(.cyclingPower)))
    }

    @Test func nothingIsCollectedBeforeCollectionBegins() async throws {
        let rig = try await rig(.running)
        rig.session.startActivity(with: t0)
        rig.tick(1, bpm: 100)
        #expect(!rig.strap.isStarted)
        try await rig.builder.beginCollection(at: t0)
        rig.tick(2, bpm: 101)
        try await rig.builder.endCollection(at: t0 + 10)
        let workout = try #require(try await rig.builder.finishWorkout())
        #expect(
            workout.statistics(for: HKQuantityType(.heartRate))?.mostRecentQuantity()?.doubleValue(
                for: HKUnit(from: "count/min")) == 101)
    }

    @Test(arguments: StoreKind.available) func recoveryRestoresSessionBuilderAndSamples(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let path = try await kind.freshStoreName(directory)
        do {
            let (store, clock) = try await liveStore(databasePath: path)
            let (session, builder, strap) = try await strapRecording(store, activity: .swimBikeRun)
            session.beginNewActivity(configuration: configuration(.cycling), date: t0, metadata: nil)
            for second in 0 ..< 30 {
                clock.set(Double(second))
                strap.send(.heartRate(HeartRateReading(bpm: 120 + second, contact: .detected)), at: t0 + Double(second))
            }
            clock.set(30)
            session.pause()
            // The journal holds what arrived more than half a second ago; flush the rest as the timer would.
            try await builder.flushJournal()
            // The program "crashes" here: nothing is finished, the objects are abandoned.
            builder.dataSource?.stopSensors()
        }
        let store = try await HKHealthStore.open(databasePath: path, clientIdentifier: "tests")
        store.wallClock = { t0 + 40 }
        let session = try #require(try await store.recoverActiveWorkoutSession())
        #expect(session.state == .paused)
        #expect(session.startDate == t0)
        #expect(session.currentActivity.workoutConfiguration.activityType == .cycling)
        let builder = session.associatedWorkoutBuilder()
        #expect(builder.startDate == t0)
        #expect(builder.workoutEvents.map(\.type) == [.pause])
        #expect(builder.workoutActivities.map { $0.workoutConfiguration.activityType } == [.cycling])
        let heart = try #require(builder.statistics(for: HKQuantityType(.heartRate)))
        #expect(heart.maximumQuantity()?.doubleValue(for: HKUnit(from: "count/min")) == 149)
        #expect(heart.minimumQuantity()?.doubleValue(for: HKUnit(from: "count/min")) == 120)
        session.end()
        try await builder.endCollection(at: t0 + 40)
        let workout = try #require(try await builder.finishWorkout())
        #expect(
            try await fetch(store, HKQuantityType(.heartRate), HKQuery.predicateForObjects(from: workout)).count == 30)
        // Finishing cleared the journal: nothing more to recover.
        #expect(try await store.recoverActiveWorkoutSession() == nil)
    }
}
