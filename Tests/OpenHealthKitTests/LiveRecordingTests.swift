import FitnessSensors
import Foundation
import Synchronization
import Testing

@testable import OpenHealthKit

/// A live recording as `workout record` makes one, driven through the library type alone: the paired sensors, laps
/// that span back to the previous one, the pause toggle, the target power's steps, the end and the save.
@Suite(.timeLimit(.minutes(1))) struct LiveRecordingTests {
    static let bpm = HKUnit.count().unitDivided(by: .minute())

    /// The store's connector makes scripted sensors; the one it made is returned by `made`.
    private func pairedStrapStore() async throws -> (HKHealthStore, ManualWallClock, @Sendable () -> ScriptedSensor?) {
        let (store, clock) = try await liveStore()
        let made = Mutex<ScriptedSensor?>(nil)
        store.sensorConnector = SensorConnector(schemes: ["test"]) { paired in
            let sensor = ScriptedSensor(
                identifier: paired.identifier, name: paired.name, capabilities: paired.capabilities)
            made.withLock { $0 = sensor }
            return sensor
        }
        try await store.pairSensor(PairedSensor(identifier: "test:strap", name: "Strap", capabilities: .heartRateStrap))
        return (store, clock, { made.withLock { $0 } })
    }

    @Test func recordsLapsPausesAndSavesAsTheCommandDoes() async throws {
        let (store, clock, strap) = try await pairedStrapStore()
        var options = LiveRecording.Options()
        options.activityType = .running
        let recording = try await LiveRecording(healthStore: store, options: options)
        #expect(recording.sensorNames == ["Strap"])
        #expect(recording.startDate == t0)
        try await recording.start()
        let sensor = try #require(strap())
        #expect(!recording.collectedAnything)
        for second in 0 ... 9 {
            clock.set(Double(second))
            _ = sensor.send(.heartRate(HeartRateReading(bpm: 140, contact: .detected)), at: t0 + Double(second))
        }
        await recording.builder.waitForDelegateCalls()
        #expect(recording.collectedAnything)
        // Laps at 4 s and 9 s: the second spans back to the first's end.
        clock.set(4)
        #expect(try await recording.markLap() == t0 + 4)
        clock.set(9)
        try await recording.markLap()
        // Paused from 10 s to 12 s by the toggle.
        clock.set(10)
        recording.togglePause()
        #expect(recording.session.state == .paused)
        clock.set(12)
        recording.togglePause()
        #expect(recording.session.state == .running)
        clock.set(20)
        #expect(try await recording.end() == t0 + 20)
        #expect(recording.sensorStatuses.map(\.name) == ["Strap"])
        let workout = try await recording.save()
        let laps = (workout.workoutEvents ?? []).filter { $0.type == .lap }.map(\.dateInterval)
        #expect(laps == [DateInterval(start: t0, end: t0 + 4), DateInterval(start: t0 + 4, end: t0 + 9)])
        // 20 s less the 2 s paused.
        #expect(workout.duration == 18)
        #expect(workout.workoutActivityType == .running)
    }

    @Test func withNoSensorThereIsNothingToRecordFrom() async throws {
        let (store, _) = try await liveStore()
        let error = await expectHKError(.errorInvalidArgument) {
            _ = try await LiveRecording(healthStore: store, options: LiveRecording.Options())
        }
        #expect(error?.message == "There is no sensor to record from: none is paired and none given.")
    }

    /// With no trainer to control, the steps still move the target asked for: the first from the 3-second power
    /// rounded to 10 W (228 → 230, + 10 = 240), the next from there, and never past the maximum.
    @Test func targetPowerStepsFromTheThreeSecondPower() {
        let trainers = TrainerTargets(sensors: [], clock: ContinuousClock())
        #expect(trainers.target == nil)
        trainers.change(by: 1, from: 228)
        #expect(trainers.target == 240)
        trainers.change(by: -3, from: 500)
        #expect(trainers.target == 210)
        let fresh = TrainerTargets(sensors: [], clock: ContinuousClock())
        fresh.change(by: -1, from: nil)
        #expect(fresh.target == TrainerTargets.defaultStart - TrainerTargets.step)
        fresh.change(by: 1000, from: nil)
        #expect(fresh.target == TrainerTargets.maximum)
        #expect(fresh.notice == nil)
    }

    /// The figures a view reads, worked out by hand: read at 100 s with 90 s moving and the last lap ending at 60 s
    /// moving; a heart rate of 150 at 98 s in zones split at 140 and 160 bpm.
    @Test func figuresGiveTheViewItsValues() {
        let heartRate = HKQuantityType(.heartRate)
        let bound = { HKQuantity(unit: Self.bpm, doubleValue: $0) }
        let zones = [
            HKWorkoutZoneDuration(zone: HKWorkoutZone(index: 0, minimum: nil, maximum: bound(140)), duration: 50),
            HKWorkoutZoneDuration(
                zone: HKWorkoutZone(index: 1, minimum: bound(140), maximum: bound(160)), duration: 30),
            HKWorkoutZoneDuration(zone: HKWorkoutZone(index: 2, minimum: bound(160), maximum: nil), duration: 10),
        ]
        let figures = LiveWorkoutFigures(
            date: t0 + 100, startDate: t0, elapsedTime: 90, elapsedTimeAtLastLap: 60, laps: 2,
            collectedTypes: [heartRate],
            mostRecent: [
                heartRate: .init(
                    quantityType: heartRate, quantity: HKQuantity(unit: Self.bpm, doubleValue: 150), date: t0 + 98)
            ],
            heartRateZones: zones, sensors: [])
        // Running, 2 s after the figures: 92 s moving, 32 s in the lap; paused, the figures' own.
        #expect(figures.elapsedTime(at: t0 + 102, running: true) == 92)
        #expect(figures.lapElapsedTime(at: t0 + 102, running: true) == 32)
        #expect(figures.elapsedTime(at: t0 + 102, running: false) == 90)
        #expect(figures.lapElapsedTime(at: t0 + 100, running: true) == 30)
        // The heart rate is 2 s old at 100 s (fresh within 3 s), 5 s old at 103 s (stale).
        #expect(figures.mostRecentValue(of: heartRate, in: Self.bpm, at: t0 + 100, maximumAge: 3) == 150)
        #expect(figures.mostRecentValue(of: heartRate, in: Self.bpm, at: t0 + 103, maximumAge: 3) == nil)
        // 150 bpm is in [140, 160): the second zone.
        #expect(figures.heartRateZoneBoundaries == [140, 160])
        #expect(figures.heartRateZone(at: t0 + 100, maximumAge: 3) == 1)
        #expect(figures.heartRateZone(at: t0 + 103, maximumAge: 3) == nil)
        #expect(figures.heartRateZoneTimes(orZerosFor: [140, 160]) == [50, 30, 10])
        #expect(!figures.collectsPower && !figures.collectsCadence && !figures.collectsSpeed)
        #expect(!figures.cadenceIsRunning)
    }
}
