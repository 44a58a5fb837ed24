import FitnessSensors
import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit
@testable import WorkoutCommands

/// One view model: the recording's view (``LiveMonitor``, reading its builder) and a companion's (the same figures
/// after the trip a mirrored session makes, as ``MirrorMonitor`` reads them) show the same frame, and the page's JSON
/// (`--serve`) is that same snapshot serialised.
@Suite(.timeLimit(.minutes(1))) struct LiveSnapshotTests {
    static let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)

    @Test func theRecordingsViewAndAMirroredOneShowTheSameFigures() async throws {
        let clock = LiveViewTests.WallClock()
        let store = HKHealthStore.inMemory(
            clientIdentifier: "snapshot-tests",
            clocks: LiveClocks(wall: { clock.now }, monotonic: clock.monotonic, deliverySpacing: .zero))
        let types = HKLiveWorkoutDataSource.collectableTypes
        try await store.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .cycling
        let session = try HKWorkoutSession(healthStore: store, configuration: configuration)
        let builder = session.associatedWorkoutBuilder()
        let source = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration)
        let strap = ScriptedSensor(identifier: "test:strap", name: "Strap", capabilities: .heartRateStrap)
        let meter = ScriptedSensor(identifier: "test:meter", name: "Meter", capabilities: .powerMeter)
        for sensor in [strap, meter] { source.attach(sensor) }
        builder.dataSource = source
        let bpm = HKUnit(from: "count/min")
        try await builder.setCustomZoneConfiguration(
            try HKWorkoutZoneConfiguration(
                quantityType: HKQuantityType(.heartRate),
                zoneBoundaries: [100, 120, 140, 160].map { HKQuantity(unit: bpm, doubleValue: $0) }),
            for: HKQuantityType(.heartRate))
        let monitor = LiveMonitor(session: session, builder: builder, dataSource: source, start: Self.t0)
        builder.delegate = monitor
        session.startActivity(with: Self.t0)
        try await builder.beginCollection(at: Self.t0)
        await monitor.loadZones()
        // 0–6 s: 130 bpm and 200 + 5 × s W once a second; a lap at 3 s.
        for second in 0 ... 6 {
            clock.set(Double(second))
            let at = Self.t0 + Double(second)
            _ = strap.send(.heartRate(HeartRateReading(bpm: 130, contact: .detected)), at: at)
            _ = meter.send(.power(PowerReading(watts: 200 + 5 * second)), at: at)
            await builder.waitForDelegateCalls()
            if second == 3 { try await builder.addWorkoutEvents([HKWorkoutEvent.lap(from: Self.t0, to: at)]) }
        }
        let now = clock.now
        let local = monitor.snapshot(at: now)
        let sent = try LiveWorkoutFigures(data: LiveWorkoutFigures(builder: builder, at: now).encoded())
        let mirrored = LiveSnapshot(
            figures: sent, at: now, elapsed: 6, activity: "cycling", paused: false, running: true,
            zone: sent.heartRateZone(at: now, maximumAge: LiveSnapshot.freshness),
            zoneBoundaries: sent.heartRateZoneBoundaries)
        // By hand, at 6 s: 6 s moving, lap 2 for 3 s; 230 W now, the 3 s mean of the readings at 4, 5, 6 s
        // (220 + 225 + 230) / 3 = 225 W; 130 bpm is in [120, 140), Z3, for all 6 s.
        let frame = [
            "cycling   moving 0:06   elapsed 0:06   lap 2  0:03",
            "heart rate 130 bpm   power 230 W (3 s 225 W)   cadence –   speed –",
            "zone Z3 120–139 bpm [░░░░░░|░░░░░░|██████|░░░░░░|░░░░░░]",
            "Z1 0:00  Z2 0:00  Z3 0:06  Z4 0:00  Z5 0:00",
            "Strap       connected   skin contact yes",
            "Meter       connected",
        ]
        #expect(LiveView.lines(local) == frame)
        #expect(LiveView.lines(mirrored) == frame)
        // The page's JSON is the same view model serialised: the same figures, in SI units, zones 0-based.
        #expect(local.jsonData() == mirrored.jsonData())
        let json = try #require(try JSONSerialization.jsonObject(with: local.jsonData()) as? [String: Any])
        #expect(json["version"] as? Int == 1)
        #expect(json["activity"] as? String == "cycling")
        #expect(json["paused"] as? Bool == false)
        #expect(json["elapsedSeconds"] as? Double == 6)
        #expect(json["movingSeconds"] as? Double == 6)
        #expect(json["heartRate"] as? Double == 130)
        #expect(json["power"] as? Double == 230)
        #expect(json["power3s"] as? Double == 225)
        #expect(json["cadence"] == nil && json["speed"] == nil)
        #expect(json["laps"] as? Int == 1)
        #expect(json["lapSeconds"] as? Double == 3)
        #expect(json["date"] as? Double == now.timeIntervalSince1970)
        let zones = try #require(json["heartRateZones"] as? [String: Any])
        #expect(zones["current"] as? Int == 2)
        #expect(zones["boundaries"] as? [Double] == [100, 120, 140, 160])
        #expect(zones["seconds"] as? [Double] == [0, 0, 6, 0, 0])
        #expect(json["powerZones"] == nil)
        let sensors = try #require(json["sensors"] as? [[String: Any]])
        #expect(sensors.map { $0["name"] as? String } == ["Strap", "Meter"])
        #expect(sensors.map { $0["connection"] as? String } == ["connected", "connected"])
        #expect(sensors.map { $0["skinContact"] as? Bool } == [true, nil])
        session.end()
        try await builder.endCollection(at: now)
    }
}
