import FitnessSensors
import Foundation
import Testing

@testable import OpenHealthKit

/// The source a test core's statistics name.
let testSource = HKSource(name: "t", bundleIdentifier: "t")

/// The recording core as a state machine, in the manner of swift-async-algorithms: a state, an input, the expected
/// actions. Times: `time` is a reading's wall time (seconds since the reference date), `now` the shell's monotonic
/// clock. Expected values are worked out by hand in the comments.
@Suite(.timeLimit(.minutes(1))) struct RecordingCoreTests {
    /// A core collecting cycling, with a strap (channel 0) and two power meters (channels 1 and 2).
    func cyclingCore(spacing: Duration = .milliseconds(1), begin: Bool = true) -> RecordingCore {
        var core = RecordingCore(activity: .cycling, deliverySpacing: spacing, source: testSource)
        core.updateSettings { $0.capabilities = SensorCapabilities.heartRateStrap.union(.powerMeter) }
        _ = core.addChannel(identifier: "strap", deviceCode: 0)
        _ = core.addChannel(identifier: "trainer", deviceCode: 0)
        _ = core.addChannel(identifier: "pedals", deviceCode: 0)
        if begin { _ = try! core.apply(.began(at: Date(storeValue: 0)), now: .zero) }
        core.hasDelegate = true
        return core
    }

    /// A reading from a channel at wall time `time`, at monotonic `now`.
    func read(
        _ core: inout RecordingCore, _ value: SensorReadingValue, from channel: Int, at time: Double,
        now: Duration = .zero
    ) -> RecordingCore.Actions {
        try! core.apply(.reading(value, channel: channel, time: time), now: now)
    }

    func power(_ watts: Int) -> SensorReadingValue { .power(PowerReading(watts: watts)) }

    /// Total active energy collected, in kcal (kJ of work counted as kcal).
    func energy(_ core: RecordingCore) -> Double {
        core.statistics(for: HKQuantityType(.activeEnergyBurned), now: .distantFuture)?
            .sumQuantity()?.doubleValue(for: .kilocalorie()) ?? 0
    }

    @Test func nothingIsTakenBeforeCollectingOrWhileTheSessionIsPaused() {
        var core = cyclingCore(begin: false)
        var actions = read(&core, power(200), from: 1, at: 0)
        #expect(actions.writes.isEmpty && actions.delivery == nil)
        _ = try! core.apply(.began(at: Date(storeValue: 0)), now: .zero)
        _ = try! core.apply(.sessionState(from: .running, to: .paused, date: Date(storeValue: 0.5)), now: .zero)
        actions = read(&core, power(200), from: 1, at: 1)
        #expect(actions.delivery == nil)
        #expect(core.journal.pending.isEmpty)
    }

    @Test func aReadingBecomesASampleAJournalItemAndADelivery() {
        var core = cyclingCore()
        let actions = read(
            &core, .heartRate(HeartRateReading(bpm: 130, contact: .detected)), from: 0, at: 10, now: .seconds(5))
        #expect(core.journal.pending.map(\.value) == [130])
        #expect(actions.writes.isEmpty, "the journal buffers it: not due for 500 ms")
        // The first delivery is due at once; the next one no sooner than the spacing after it.
        #expect(actions.delivery?.deadline == .seconds(5))
        #expect(core.deliveries.types == [HKQuantityType(.heartRate).code])
        let second = read(
            &core, .heartRate(HeartRateReading(bpm: 131, contact: .detected)), from: 0, at: 11, now: .seconds(5))
        #expect(second.delivery == nil, "one delivery is already scheduled")
        _ = core.takeDelivery(1)
        let third = read(
            &core, .heartRate(HeartRateReading(bpm: 132, contact: .detected)), from: 0, at: 12, now: .seconds(5))
        #expect(third.delivery?.deadline == .seconds(5) + .milliseconds(1))
    }

    @Test func typesNotCollectedAreDropped() {
        var core = cyclingCore()
        core.updateSettings { $0.disable(HKQuantityType(.cyclingPower)) }
        _ = read(&core, power(200), from: 1, at: 0, now: .zero)
        _ = read(&core, power(200), from: 1, at: 1, now: .zero)
        // Without power, neither power nor the energy integrated from it is collected.
        #expect(core.journal.pending.isEmpty)
    }

    /// Power from a trainer (ranked first) and pedals: one device per measurement, failover after 3 s of silence,
    /// and back when the first returns. Energy is counted once.
    @Test func oneDevicePerMeasurementWithFailoverAndReturn() {
        var core = cyclingCore()
        // 0–10 s: both send 200 W every second. Only the trainer's readings count.
        for second in 0 ... 10 {
            _ = read(&core, power(200), from: 1, at: Double(second), now: .zero)
            _ = read(&core, power(300), from: 2, at: Double(second), now: .zero)
        }
        // 10 s of 200 W from one meter: 200 × 10 / 1000 = 2 kJ, counted as 2 kcal (not 2 + 3).
        #expect(abs(energy(core) - 2) < 1e-9)
        // 11–20 s: the trainer is silent. The pedals take over once it has been silent more than 3 s: at 14 s.
        for second in 11 ... 20 { _ = read(&core, power(300), from: 2, at: Double(second), now: .zero) }
        let pedalsTaken = core.journal.pending.filter {
            $0.typeCode == HKQuantityType(.cyclingPower).code && $0.value == 300
        }
        #expect(pedalsTaken.map(\.start) == [14, 15, 16, 17, 18, 19, 20])
        // The trainer returns at 21 s and takes power back at once.
        _ = read(&core, power(200), from: 1, at: 21, now: .zero)
        _ = read(&core, power(300), from: 2, at: 21, now: .zero)
        let powerAt21 = core.journal.pending.filter {
            $0.start == 21 && $0.typeCode == HKQuantityType(.cyclingPower).code
        }
        #expect(powerAt21.map(\.value) == [200])
    }

    @Test func aDisconnectionHandsTheMeasurementOverAtOnceAndBridgesNothing() {
        var core = cyclingCore()
        _ = read(&core, power(200), from: 1, at: 0, now: .zero)
        _ = read(&core, power(200), from: 1, at: 1, now: .zero)  // 0.2 kJ
        _ = try! core.apply(.connection(.disconnected(reason: "lost"), channel: 1), now: .zero)
        _ = read(&core, power(300), from: 2, at: 1.5, now: .zero)  // taken at once: the trainer is gone
        #expect(core.journal.pending.last?.value == 300)
        // The trainer comes back at 2.5 s: no energy for 1–2.5 s from it (its continuity was reset).
        _ = read(&core, power(200), from: 1, at: 2.5, now: .zero)
        _ = read(&core, power(200), from: 1, at: 3.5, now: .zero)  // 0.2 kJ
        #expect(abs(energy(core) - 0.4) < 1e-9)
    }

    @Test func anEntryIsJournaledAfterTheSamplesBeforeIt() {
        var core = cyclingCore()
        _ = read(&core, power(200), from: 1, at: 0, now: .zero)
        let batch = core.journal.handOver(entry: (.entry, [0x7B, 0x7D]))
        #expect(batch?.samples.count == 1)
        #expect(batch.map { $0.samplesSequence < $0.entry!.sequence } == true)
    }

    @Test func theFlushTickHandsOverOnlyWhatIsDue() throws {
        var core = cyclingCore()
        _ = read(&core, power(200), from: 1, at: 0, now: .milliseconds(100))
        #expect(try core.apply(.tick(time: 0.25), now: .milliseconds(350)).writes.isEmpty)
        #expect(try core.apply(.tick(time: 0.5), now: .milliseconds(600)).writes.first?.samples.count == 1)
    }

    @Test func theFlushTickReportsAZoneGoneStale() throws {
        var core = cyclingCore()
        let bpm = HKUnit(from: "count/min")
        let zones = try HKWorkoutZoneConfiguration(
            quantityType: HKQuantityType(.heartRate),
            zoneBoundaries: [100, 120, 140, 160].map { HKQuantity(unit: bpm, doubleValue: $0) })
        _ = try core.apply(.zoneConfiguration(zones), now: .zero)
        // 130 bpm at 10 s is in the zone from 120 to 140 (index 2: below 100, 100–120, 120–140, …).
        _ = read(&core, .heartRate(HeartRateReading(bpm: 130, contact: .detected)), from: 0, at: 10, now: .seconds(1))
        var due = core.takeAllDeliveries()
        #expect(due.zoneChanges.map(\.current) == [2])
        // A zero-length reading holds for the maximum hold; within it the tick reports nothing.
        let hold = StatisticsAccumulator.defaultMaximumHold
        #expect(try core.apply(.tick(time: 10 + hold / 2), now: .seconds(2)).delivery == nil)
        // Past it the strap is silent: the tick reports the zone gone (2 → none), once.
        let stale = try core.apply(.tick(time: 10 + hold + 1), now: .seconds(3))
        #expect(stale.delivery != nil)
        due = core.takeAllDeliveries()
        #expect(due.zoneChanges.map(\.previous) == [2])
        #expect(due.zoneChanges.map(\.current) == [nil])
        #expect(try core.apply(.tick(time: 10 + hold + 2), now: .seconds(4)).delivery == nil)
        // Not collecting (ended): the tick checks nothing.
        _ = read(&core, .heartRate(HeartRateReading(bpm: 150, contact: .detected)), from: 0, at: 20, now: .seconds(5))
        _ = core.takeAllDeliveries()
        _ = try core.apply(.ended(at: Date(storeValue: 21)), now: .seconds(5))
        #expect(try core.apply(.tick(time: 20 + hold + 1), now: .seconds(6)).delivery == nil)
    }
}

/// A sensor's readings, a disconnect, then readings again, through the data source and the builder: the heartbeat
/// series marks the gap, and neither samples nor energy are bridged across it.
@Suite(.timeLimit(.minutes(1))) struct DisconnectionTests {
    @Test func aGapIsMarkedAndNothingIsBridged() async throws {
        let (store, clock) = try await liveStore()
        try await store.requestAuthorization(toShare: [HKSeriesType.heartbeat()], read: [HKSeriesType.heartbeat()])
        let session = try HKWorkoutSession(healthStore: store, configuration: configuration(.cycling))
        let builder = session.associatedWorkoutBuilder()
        let source = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration(.cycling))
        let strap = ScriptedSensor(identifier: "test:strap", name: "Strap", capabilities: .heartRateStrap)
        let meter = ScriptedSensor(identifier: "test:meter", name: "Meter", capabilities: .powerMeter)
        source.attach(strap)
        source.attach(meter)
        builder.dataSource = source
        session.startActivity(with: t0)
        try await builder.beginCollection(at: t0)
        func second(_ s: Int) {
            clock.set(Double(s))
            strap.send(
                .heartRate(HeartRateReading(bpm: 60, rrIntervals: [1.0], contact: .detected)), at: t0 + Double(s))
            meter.send(.power(PowerReading(watts: 100)), at: t0 + Double(s))
        }
        for s in 1 ... 5 { second(s) }  // power 1–5 s: 4 s × 100 W = 0.4 kJ
        strap.send(.connection(.disconnected(reason: "lost"), at: t0 + 5.5))
        meter.send(.connection(.disconnected(reason: "lost"), at: t0 + 5.5))
        for s in 7 ... 9 { second(s) }  // 7–9 s: 2 s × 100 W = 0.2 kJ; nothing for 5–7 s
        session.end()
        try await builder.endCollection(at: t0 + 10)
        let workout = try #require(try await builder.finishWorkout())
        let energy = try #require(workout.statistics(for: HKQuantityType(.activeEnergyBurned))?.sumQuantity())
        #expect(abs(energy.doubleValue(for: .kilocalorie()) - 0.6) < 1e-9)
        let heartRates = try await fetch(store, HKQuantityType(.heartRate), HKQuery.predicateForObjects(from: workout))
        #expect(heartRates.count == 8, "one sample per reading, none made up for the gap")
        let series = try #require(
            try await fetch(store, HKSeriesType.heartbeat(), HKQuery.predicateForObjects(from: workout))
                .first as? HKHeartbeatSeriesSample)
        var beats: [(TimeInterval, Bool)] = []
        for try await beat in HKHeartbeatSeriesQueryDescriptor(series).results(for: store) {
            beats.append((beat.timeIntervalSinceStart, beat.precededByGap))
        }
        // Beats at 1…5 s, then at 7…9 s; the first after the disconnection is marked.
        #expect(beats.map(\.0) == [0, 1, 2, 3, 4, 6, 7, 8])
        #expect(beats.map(\.1) == [false, false, false, false, false, true, false, false])
    }
}
