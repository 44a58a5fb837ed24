import FitnessSensors
import Foundation
import Testing

@testable import OpenHealthKit

/// Each figure has one rule in the library: paused time (``WorkoutPauses``), laps (``WorkoutLaps``), the hold of a
/// reading (``ReadingHold``), heart-rate-reserve zones, a multisport workout's distance and the 3-second power the
/// builder keeps. Expected values are worked out by hand in the comments.
@Suite(.timeLimit(.minutes(1))) struct OneRuleTests {
    static let start = Date(timeIntervalSinceReferenceDate: 800_000_000)

    func event(_ type: HKWorkoutEventType, _ t: TimeInterval, length: TimeInterval = 0) -> HKWorkoutEvent {
        HKWorkoutEvent(type: type, dateInterval: DateInterval(start: Self.start + t, duration: length), metadata: nil)
    }

    /// Pause 100–160, a second pause at 130 ignored (already paused), a resume at 200 ignored (running), motion
    /// paused 300–330 (not a pause), pause at 500 never resumed: paused 100–160 and 500–600 of 0–600, so 440 s run.
    @Test func pausesAreThePersonsPausesAndResumes() {
        let events = [
            event(.pause, 100), event(.pause, 130), event(.resume, 160), event(.resume, 200),
            event(.motionPaused, 300), event(.motionResumed, 330), event(.pause, 500),
        ]
        let pauses = WorkoutPauses.intervals(in: events, from: Self.start, to: Self.start + 600)
        #expect(
            pauses == [
                DateInterval(start: Self.start + 100, end: Self.start + 160),
                DateInterval(start: Self.start + 500, end: Self.start + 600),
            ])
        #expect(WorkoutPauses.runningTime(from: Self.start, to: Self.start + 600, events: events) == 440)
        #expect(
            WorkoutPauses.runningTime(of: DateInterval(start: Self.start, end: Self.start + 600), outside: pauses)
                == 440)
        // The zone engine's pauses are the same, the last open-ended.
        #expect(
            ZonePause.from(events) == [
                ZonePause(start: (Self.start + 100).storeValue, end: (Self.start + 160).storeValue),
                ZonePause(start: (Self.start + 500).storeValue, end: .infinity),
            ])
        // Clipped to a window: 120–550 holds 120–160 and 500–550 paused, 430 − 90 = 340 s running.
        #expect(WorkoutPauses.runningTime(from: Self.start + 120, to: Self.start + 550, events: events) == 340)
    }

    /// Lap events at 600 (instant), 780 (instant), then one lasting 900–1000: laps 0–600, 600–780, 900–1000, and
    /// 1000–1200 after the last one. Half a second left after a last lap is no lap.
    @Test func theTimeAfterTheLastLapIsALap() {
        let events = [event(.lap, 600), event(.lap, 780), event(.lap, 900, length: 100), event(.marker, 1100)]
        let laps = WorkoutLaps.intervals(in: events, from: Self.start, to: Self.start + 1200)
        #expect(
            laps.map { [$0.start.timeIntervalSince(Self.start), $0.end.timeIntervalSince(Self.start)] }
                == [[0, 600], [600, 780], [900, 1000], [1000, 1200]])
        #expect(WorkoutLaps.intervals(in: events, from: Self.start, to: Self.start + 1000.5).count == 3)
        #expect(WorkoutLaps.intervals(in: [event(.marker, 10)], from: Self.start, to: Self.start + 100).isEmpty)
    }

    /// A power reading holds 5 s, heart rate 10 s; the statistics' hold is heart rate's.
    @Test func eachKindOfReadingHasItsHold() {
        #expect(ReadingHold.hold(for: HKQuantityType(.cyclingPower)) == 5)
        #expect(ReadingHold.hold(for: HKQuantityType(.runningPower)) == 5)
        #expect(ReadingHold.hold(for: HKQuantityType(.heartRate)) == 10)
        #expect(StatisticsAccumulator.defaultMaximumHold == ReadingHold.heartRate)
        // 400 W at 6 s, next reading at 14 s: it holds 5 s, 2 kJ (2 kcal), to 11 s. 0 W and a reading after
        // itself add nothing.
        #expect(PowerEnergy.energy(watts: 400, at: 6, next: 14).map { [$0.kilocalories, $0.end] } == [2, 11])
        #expect(PowerEnergy.energy(watts: 250, at: 2, next: 6).map { [$0.kilocalories, $0.end] } == [1, 6])
        #expect(PowerEnergy.energy(watts: 0, at: 2, next: 3) == nil)
        #expect(PowerEnergy.energy(watts: 200, at: 3, next: 3) == nil)
    }

    /// Heart-rate-reserve zones from 180 and 72 count/min: 72 + 0.6/0.7/0.8/0.9 × 108 = 136.8, 147.6, 158.4, 169.2,
    /// the system zones' boundaries; an app's configuration. 150 and 60: 114, 123, 132, 141. A maximum not above
    /// the resting rate is an error.
    @Test func heartRateReserveZonesAreTheSystemZonesRule() throws {
        let zones = try HKWorkoutZoneConfiguration.heartRateReserve(maximum: 180, resting: 72)
        #expect(zones.boundaryValues == [136.8, 147.6, 158.4, 169.2])
        #expect(zones.source == .app)
        #expect(try SystemZones.heartRate(resting: 72, maximum: 180).boundaryValues == zones.boundaryValues)
        #expect(
            try HKWorkoutZoneConfiguration.heartRateReserve(maximum: nil, resting: nil).boundaryValues
                == zones.boundaryValues)
        #expect(
            try HKWorkoutZoneConfiguration.heartRateReserve(maximum: 150, resting: 60).boundaryValues == [
                114, 123, 132, 141,
            ])
        #expect(throws: HKError.self) { try HKWorkoutZoneConfiguration.heartRateReserve(maximum: 70, resting: 72) }
        // A value on a boundary is in the zone above it (min-inclusive): 136.8 is Z2 (index 1), 136.7 Z1.
        let bpm = HKUnit.count().unitDivided(by: .minute())
        #expect(zones.zone(containing: HKQuantity(unit: bpm, doubleValue: 136.8))?.index == 1)
        #expect(zones.zone(containing: HKQuantity(unit: bpm, doubleValue: 136.7))?.index == 0)
        #expect(zones.zone(containing: HKQuantity(unit: bpm, doubleValue: 200))?.index == 4)
        #expect(zones.zone(containing: HKQuantity(unit: .watt(), doubleValue: 150)) == nil)
    }

    /// A swim-bike-run with 750 m swum, 20 km ridden and 5 km run covered 25.75 km; a ride covered its cycling
    /// distance only.
    @Test func aMultisportWorkoutsDistanceIsEveryLegs() async throws {
        let store = HKHealthStore.inMemory(clientIdentifier: "one-rule-tests")
        let types: Set<HKSampleType> = [
            .workoutType(), HKQuantityType(.distanceSwimming), HKQuantityType(.distanceCycling),
            HKQuantityType(.distanceWalkingRunning),
        ]
        try await store.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .swimBikeRun
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: nil)
        try await builder.beginCollection(at: Self.start)
        func distance(
            _ identifier: HKQuantityTypeIdentifier, _ metres: Double, _ from: TimeInterval
        ) -> HKQuantitySample {
            HKQuantitySample(
                type: HKQuantityType(identifier), quantity: HKQuantity(unit: .meter(), doubleValue: metres),
                start: Self.start + from, end: Self.start + from + 100, device: nil, metadata: nil)
        }
        try await builder.addSamples([
            distance(.distanceSwimming, 750, 0), distance(.distanceCycling, 20_000, 200),
            distance(.distanceWalkingRunning, 5000, 400),
        ])
        try await builder.endCollection(at: Self.start + 600)
        let workout = try #require(try await builder.finishWorkout())
        #expect(workout.distanceCovered?.doubleValue(for: .meter()) == 25_750)
    }

    /// Four power readings within a millisecond make fewer delegate calls than readings (coalesced): a delegate
    /// reading the most recent value at each call misses some (it sees 600 W last), while the builder's 3-second
    /// power counts all four: (100 + 200 + 300 + 600) / 4 = 300 W. Sample times are arrival times to the millisecond: 10.000 s for the first three (0, 0.2, 0.4 ms),
    /// 10.001 s for the last (0.6 ms). At 13.0005 s the window (10.0005, 13.0005] holds only the last; at 13.001 s
    /// none.
    @Test func theBuildersThreeSecondPowerCountsCoalescedReadings() async throws {
        let tests = LiveWorkoutTests()
        let rig = try await tests.rig(.cycling, deliverySpacing: .milliseconds(1))
        rig.session.startActivity(with: t0)
        try await rig.builder.beginCollection(at: t0)
        for (index, watts) in [100, 200, 300, 600].enumerated() {
            rig.meter.send(.power(PowerReading(watts: watts)), at: t0 + 10 + Double(index) * 0.0002)
        }
        rig.clock.monotonic.advance(by: .milliseconds(1))
        await rig.builder.waitForDelegateCalls()
        #expect(rig.recorder.deliveries < 4)
        let power = HKQuantityType(.cyclingPower)
        #expect(rig.builder.statistics(for: power)?.mostRecentQuantity()?.doubleValue(for: .watt()) == 600)
        #expect(rig.builder.threeSecondPower(at: t0 + 10.001)?.doubleValue(for: .watt()) == 300)
        #expect(rig.builder.threeSecondPower(at: t0 + 13.0005)?.doubleValue(for: .watt()) == 600)
        #expect(rig.builder.threeSecondPower(at: t0 + 13.001) == nil)
    }

    /// A mirrored recording's companion shows the builder's 3-second power, carried by the live figures: 200 W at
    /// 10 s and 300 W at 10.5 s give 250 W at 11 s; it survives encoding, and figures without it decode to nil.
    @Test func theLiveFiguresCarryTheBuildersThreeSecondPower() async throws {
        let rig = try await LiveWorkoutTests().rig(.cycling)
        rig.session.startActivity(with: t0)
        try await rig.builder.beginCollection(at: t0)
        rig.meter.send(.power(PowerReading(watts: 200)), at: t0 + 10)
        rig.meter.send(.power(PowerReading(watts: 300)), at: t0 + 10.5)
        await rig.builder.waitForDelegateCalls()
        let figures = LiveWorkoutFigures(builder: rig.builder, at: t0 + 11)
        #expect(figures.threeSecondPower?.doubleValue(for: .watt()) == 250)
        #expect(try LiveWorkoutFigures(data: figures.encoded()) == figures)
        let without = Data(
            #"{"version":1,"date":0,"elapsedTime":0,"elapsedTimeAtLastLap":0,"laps":0,"collectedTypes":[],"mostRecent":[],"sensors":[]}"#
                .utf8)
        #expect(try LiveWorkoutFigures(data: without).threeSecondPower == nil)
    }

    /// A run's cadence live: the builder's last step sample's steps a minute (`runningCadence(at:)`): readings of
    /// 172 and 176 steps/min a second apart make one sample over 10 s to 11 s of 2.933 steps (176 ÷ 60, kept to a
    /// thousandth): 175.98 steps/min; at 14 s (3 s after)
    /// it still shows, at 14.001 s none. The live figures carry it through encoding; figures without it decode to nil.
    @Test func theLiveRunningCadenceIsTheLastStepSamples() async throws {
        let rig = try await LiveWorkoutTests().rig(.running)
        rig.session.startActivity(with: t0)
        try await rig.builder.beginCollection(at: t0)
        rig.meter.send(.stepCadence(StepCadenceReading(stepsPerMinute: 172)), at: t0 + 10)
        rig.meter.send(.stepCadence(StepCadenceReading(stepsPerMinute: 176)), at: t0 + 11)
        await rig.builder.waitForDelegateCalls()
        let cadence = try #require(rig.builder.runningCadence(at: t0 + 11.5))
        #expect(abs(cadence.doubleValue(for: RunningCadence.unit) - 175.98) < 1e-9)
        #expect(rig.builder.runningCadence(at: t0 + 14) != nil)
        #expect(rig.builder.runningCadence(at: t0 + 14.001) == nil)
        let figures = LiveWorkoutFigures(builder: rig.builder, at: t0 + 11.5)
        #expect(figures.runningCadence == cadence)
        #expect(try LiveWorkoutFigures(data: figures.encoded()) == figures)
        let without = Data(
            #"{"version":1,"date":0,"elapsedTime":0,"elapsedTimeAtLastLap":0,"laps":0,"collectedTypes":[],"mostRecent":[],"sensors":[]}"#
                .utf8)
        #expect(try LiveWorkoutFigures(data: without).runningCadence == nil)
    }
}
