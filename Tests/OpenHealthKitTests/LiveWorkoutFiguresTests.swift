import FitnessSensors
import Foundation
@testable import OpenHealthKit
import Testing

/// The live figures a primary sends its companion: they survive the trip, and bytes that are not figures are refused
/// in one sentence.
@Suite(.timeLimit(.minutes(1))) struct LiveWorkoutFiguresTests {
    static let bpm = HKUnit.count().unitDivided(by: .minute())

    @Test func figuresSurviveEncoding() throws {
        let heartRate = HKQuantityType(.heartRate)
        let power = HKQuantityType(.cyclingPower)
        // A zone configuration of two zones split at 140 bpm, 95 s and 30 s in them.
        let zones = [
            HKWorkoutZoneDuration(zone: HKWorkoutZone(index: 0, minimum: nil, maximum: HKQuantity(unit: Self.bpm, doubleValue: 140)), duration: 95),
            HKWorkoutZoneDuration(zone: HKWorkoutZone(index: 1, minimum: HKQuantity(unit: Self.bpm, doubleValue: 140), maximum: nil), duration: 30),
        ]
        let strap = HKSensorStatus(identifier: "unix:/tmp/strap.sock", name: "Strap", capabilities: .heartRate,
                                   connection: .lost(since: t0 + 100, reason: "gone"), batteryPercent: 81, skinContact: true,
                                   dropouts: 1, malformedNotifications: 2, problem: nil, closedDropoutTime: 4)
        let figures = LiveWorkoutFigures(
            date: t0 + 125, startDate: t0, elapsedTime: 125, elapsedTimeAtLastLap: 60, laps: 1, collectedTypes: [heartRate, power],
            mostRecent: [heartRate: .init(quantityType: heartRate, quantity: HKQuantity(unit: Self.bpm, doubleValue: 151), date: t0 + 124),
                         power: .init(quantityType: power, quantity: HKQuantity(unit: .watt(), doubleValue: 230), date: t0 + 124.5)],
            heartRateZones: zones, sensors: [strap])
        let decoded = try LiveWorkoutFigures(data: figures.encoded())
        #expect(decoded == figures)
        #expect(decoded.mostRecent[heartRate]?.quantity.doubleValue(for: Self.bpm) == 151)
        #expect(decoded.heartRateZones?.map(\.duration) == [95, 30])
        #expect(decoded.sensors.first?.connection == .lost(since: t0 + 100, reason: "gone"))
    }

    @Test func bytesThatAreNotFiguresAreRefused() async {
        let garbage = await expectHKError(.errorInvalidArgument) { _ = try LiveWorkoutFigures(data: Data("hello".utf8)) }
        #expect(garbage?.message == "The data received is not live workout figures (5 bytes that do not decode).")
        let future = Data(#"{"version":2,"date":0,"elapsedTime":0,"elapsedTimeAtLastLap":0,"laps":0,"collectedTypes":[],"mostRecent":[],"sensors":[]}"#.utf8)
        let version = await expectHKError(.errorInvalidArgument) { _ = try LiveWorkoutFigures(data: future) }
        #expect(version?.message == "The live workout figures are of version 2; this build reads version 1.")
        let wrongUnit = Data(#"{"version":1,"date":0,"elapsedTime":0,"elapsedTimeAtLastLap":0,"laps":0,"collectedTypes":[],"mostRecent":[{"type":"HKQuantityTypeIdentifierHeartRate","unit":"W","value":1,"date":0}],"sensors":[]}"#.utf8)
        let unit = await expectHKError(.errorInvalidArgument) { _ = try LiveWorkoutFigures(data: wrongUnit) }
        #expect(unit?.message == "The live workout figures hold the unit \"W\", which does not fit.")
    }
}
