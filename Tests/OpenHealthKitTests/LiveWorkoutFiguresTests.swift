import FitnessSensors
import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit

/// The live figures a primary sends its companion: they survive the trip, and bytes that are not figures are refused
/// in one sentence.
@Suite(.timeLimit(.minutes(1))) struct LiveWorkoutFiguresTests {
    static let bpm = HKUnit.count().unitDivided(by: .minute())

    @Test func figuresSurviveEncoding() throws {
        let heartRate = HKQuantityType(.heartRate)
        let power = HKQuantityType(.cyclingPower)
        // A zone configuration of two zones split at 140 bpm, 95 s and 30 s in them.
        let zones = [
            HKWorkoutZoneDuration(
                zone: HKWorkoutZone(index: 0, minimum: nil, maximum: HKQuantity(unit: Self.bpm, doubleValue: 140)),
                duration: 95),
            HKWorkoutZoneDuration(
                zone: HKWorkoutZone(index: 1, minimum: HKQuantity(unit: Self.bpm, doubleValue: 140), maximum: nil),
                duration: 30),
        ]
        let strap = HKSensorStatus(
            identifier: "unix:/tmp/strap.sock", name: "Strap", capabilities: .heartRate,
            connection: .lost(since: t0 + 100, reason: "gone"), batteryPercent: 81, skinContact: true,
            dropouts: 1, malformedNotifications: 2, problem: nil, closedDropoutTime: 4)
        let figures = LiveWorkoutFigures(
            date: t0 + 125, startDate: t0, elapsedTime: 125, elapsedTimeAtLastLap: 60, laps: 1,
            collectedTypes: [heartRate, power],
            mostRecent: [
                heartRate: .init(
                    quantityType: heartRate, quantity: HKQuantity(unit: Self.bpm, doubleValue: 151), date: t0 + 124),
                power: .init(
                    quantityType: power, quantity: HKQuantity(unit: .watt(), doubleValue: 230), date: t0 + 124.5),
            ],
            heartRateZones: zones, sensors: [strap])
        let decoded = try LiveWorkoutFigures(data: figures.encoded())
        #expect(decoded == figures)
        #expect(decoded.mostRecent[heartRate]?.quantity.doubleValue(for: Self.bpm) == 151)
        #expect(decoded.heartRateZones?.map(\.duration) == [95, 30])
        #expect(decoded.sensors.first?.connection == .lost(since: t0 + 100, reason: "gone"))
    }

    @Test func bytesThatAreNotFiguresAreRefused() async {
        let garbage = await expectHKError(.errorInvalidArgument) {
            _ = try LiveWorkoutFigures(data: Data("hello".utf8))
        }
        #expect(garbage?.message == "The data received is not live workout figures (5 bytes that do not decode).")
        let future = Data(
            #"{"version":2,"date":0,"elapsedTime":0,"elapsedTimeAtLastLap":0,"laps":0,"collectedTypes":[],"mostRecent":[],"sensors":[]}"#
                .utf8)
        let version = await expectHKError(.errorInvalidArgument) { _ = try LiveWorkoutFigures(data: future) }
        #expect(version?.message == "The live workout figures are of version 2; this build reads version 1.")
        let wrongUnit = Data(
            #"{"version":1,"date":0,"elapsedTime":0,"elapsedTimeAtLastLap":0,"laps":0,"collectedTypes":[],"mostRecent":[{"type":"HKQuantityTypeIdentifierHeartRate","unit":"W","value":1,"date":0}],"sensors":[]}"#
                .utf8)
        let unit = await expectHKError(.errorInvalidArgument) { _ = try LiveWorkoutFigures(data: wrongUnit) }
        #expect(unit?.message == "The live workout figures hold the unit \"W\", which does not fit.")
    }

    /// Figures read from a live builder on a test clock: a heart rate of 150 at 10 s, a pause from 10 s to 15 s, a
    /// lap over the first 8 s; read at 15 s, the moving time is 10 s (15 − 5 paused) and the lap ended at 8 s.
    @Test func figuresAreReadFromALiveBuilder() async throws {
        let clock = ManualClock()
        let store = HKHealthStore.testing(clock: clock)
        try await store.authorizeWorkoutTypes()
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .cycling
        let session = try HKWorkoutSession(healthStore: store, configuration: configuration)
        let builder = session.associatedWorkoutBuilder()
        let strap = ScriptedSensor(identifier: "test:strap", name: "Strap", capabilities: .heartRateStrap)
        let dataSource = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration)
        dataSource.attach(strap)
        builder.dataSource = dataSource
        let start = clock.date
        session.startActivity(with: start)
        try await builder.beginCollection(at: start)
        try await builder.addWorkoutEvents([
            HKWorkoutEvent(type: .lap, dateInterval: DateInterval(start: start, end: start + 8), metadata: nil)
        ])
        clock.advance(by: .seconds(10))
        #expect(strap.send(.heartRate(HeartRateReading(bpm: 150, contact: .detected)), at: clock.date))
        await builder.waitForDelegateCalls()
        session.pause()
        clock.advance(by: .seconds(5))

        let figures = LiveWorkoutFigures(builder: builder, at: clock.date)
        #expect(figures.date == start + 15)
        #expect(figures.startDate == start)
        #expect(figures.elapsedTime == 10)
        #expect(figures.laps == 1)
        #expect(figures.elapsedTimeAtLastLap == 8)
        #expect(figures.collectedTypes.contains(HKQuantityType(.heartRate)))
        let heartRate = try #require(figures.mostRecent[HKQuantityType(.heartRate)])
        #expect(heartRate.quantity.doubleValue(for: Self.bpm) == 150)
        #expect(heartRate.date == start + 10)
        #expect(figures.sensors.map(\.name) == ["Strap"])
        #expect(try LiveWorkoutFigures(data: figures.encoded()) == figures)
    }
}
