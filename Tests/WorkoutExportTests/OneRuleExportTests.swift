import FITFile
import FitnessSensors
import Foundation
import OpenHealthKit
import TestSupport
import Testing
import WorkoutExport

/// An exported file says what the library says: its timer time is the workout's duration (``WorkoutPauses``: pause
/// and resume events, never motion pauses), and its laps are the ones `workout replay` prints (``WorkoutLaps``: the
/// last lap after the last lap event included), with the same figures. Read back by Garmin's FIT SDK and fitparse.
@Suite(.blockingWaits) struct OneRuleExportTests {
    static func fixture(_ name: String) -> String {
        ExportOracle.root.appendingPathComponent("fixtures").appendingPathComponent(name).path
    }

    static func store() async throws -> HKHealthStore {
        let store = HKHealthStore.inMemory(clientIdentifier: "one-rule-export-tests")
        let types = WorkoutExportData.readTypes.compactMap { $0 as? HKSampleType }
        try await store.requestAuthorization(toShare: Set(types), read: WorkoutExportData.readTypes)
        return store
    }

    /// The fixture as a plain scan reads it: its lap and pause actions, and the power readings outside pauses, in
    /// seconds from its start.
    static func scan(
        _ path: String
    ) throws -> (laps: [Double], pauses: [(Double, Double)], watts: [(Double, Double)], end: Double) {
        let reader = try FixtureReader(path: path)
        var laps: [Double] = [], pauses: [(Double, Double)] = [], watts: [(Double, Double)] = []
        var pausedAt: Double?
        var end = 0.0
        while let event = try reader.next() {
            end = event.seconds
            switch event.kind {
            case let .notification(_, characteristic, bytes):
                guard pausedAt == nil,
                    let payload = try? SensorPayload.decode(characteristic: characteristic, bytes: bytes),
                    case .cyclingPowerMeasurement(let power) = payload
                else { continue }
                watts.append((event.seconds, Double(power.instantaneousPower)))
            case .action(.lap): laps.append(event.seconds)
            case .action(.pause): pausedAt = event.seconds
            case .action(.resume):
                pauses.append((pausedAt ?? event.seconds, event.seconds))
                pausedAt = nil
            default: break
            }
        }
        return (laps, pauses, watts, end)
    }

    /// The replayed interval ride: 42 minutes, two pauses of a minute, 11 lap actions. The file has 12 laps (the
    /// 5 minutes after the last lap action are the 12th, as `workout replay` prints it), starting at the fixture's
    /// lap times; their timer times add up to the session's, the activity's and the workout's duration (2,400 s);
    /// each lap's average power is the mean of the fixture's power readings in it, computed here from the bytes.
    @Test(.timeLimit(.minutes(3)))
    func aReplayedIntervalRideExportsTheLapsReplayPrints() async throws {
        let path = Self.fixture("intervals-pauses-laps.jsonl")
        let scan = try Self.scan(path)
        #expect(scan.laps.count == 11 && scan.pauses.count == 2)
        let store = try await Self.store()
        let replay = try WorkoutReplay(fixtureAt: path, healthStore: store)
        let workout = try await replay.run(pace: .instant)
        #expect(workout.duration == scan.end - scan.pauses.reduce(0) { $0 + $1.1 - $1.0 })
        #expect(workout.duration == 2400)

        // What `workout replay` prints for the laps, and the file.
        let laps = WorkoutLaps.intervals(of: workout)
        let starts = [0.0] + scan.laps
        #expect(laps.map { $0.start.timeIntervalSince(workout.startDate) } == starts)
        #expect(laps.last?.end == workout.endDate)
        let data = try await WorkoutExportData.load(workout, from: store)
        let fit = FITExportTests.temporaryPath("intervals.fit")
        defer { try? FileManager.default.removeItem(atPath: fit) }
        try ExportFile.write(try ExportFormat.fit.encode(data), to: fit)
        let fitStart = Double(FITProfile.timestamp(workout.startDate))
        for reader in ["decode-garmin", "decode-fitparse"] {
            let messages = try ExportOracle.decode(reader, path: fit)
            let fileLaps = messages.filter { $0.number == Int(FITMessageNumber.lap) }
            #expect(fileLaps.count == 12, "\(reader): 12 laps, the last after the last lap action")
            #expect(fileLaps.map { $0.number(2) } == starts.map { fitStart + $0 }, "\(reader): lap start times")
            // total_timer_time is field 8, scale 1000.
            let timers = fileLaps.compactMap { $0.number(8) }
            #expect(timers.reduce(0, +) == 2_400_000, "\(reader): the laps' timer times add up to the duration")
            let session = try #require(messages.first { $0.number == Int(FITMessageNumber.session) })
            #expect(
                session.number(8) == 2_400_000 && session.number(26) == 12, "\(reader): session timer time and laps")
            let activity = try #require(messages.first { $0.number == Int(FITMessageNumber.activity) })
            #expect(activity.number(0) == 2_400_000, "\(reader): activity timer time")
            for (index, lap) in fileLaps.enumerated() {
                let from = starts[index], to = index + 1 < starts.count ? starts[index + 1] : scan.end
                let inLap = scan.watts.filter { $0.0 >= from && $0.0 < to }.map(\.1)
                let mean = inLap.reduce(0, +) / Double(inLap.count)
                // avg_power (field 19) is a whole watt: the mean rounded.
                #expect(lap.number(19) == mean.rounded(), "\(reader): lap \(index + 1) average power \(mean)")
            }
        }
        // The heart rate the summary prints for each lap (the library's lap statistics) is the file's.
        let messages = try ExportOracle.decode("decode-fitparse", path: fit)
        let fileLaps = messages.filter { $0.number == Int(FITMessageNumber.lap) }
        let bpm = HKUnit.count().unitDivided(by: .minute())
        for (index, lap) in laps.enumerated() {
            let statistics = try await store.statistics(for: workout, during: lap)
            let heart = try #require(statistics[HKQuantityType(.heartRate)]?.averageQuantity()?.doubleValue(for: bpm))
            #expect(fileLaps[index].number(15) == heart.rounded(), "lap \(index + 1) average heart rate")
        }

        // TCX: the same 12 laps and timer times.
        let tcx = try #require(String(data: Data(try ExportFormat.tcx.encode(data)), encoding: .utf8))
        #expect(tcx.components(separatedBy: "<Lap StartTime=").count - 1 == 12)
        let times = tcx.components(separatedBy: "<TotalTimeSeconds>").dropFirst().compactMap {
            Double($0.prefix { $0 != "<" })
        }
        #expect(times.reduce(0, +) == 2400)
    }

    /// A built 10-minute ride paused by the person from 100 s to 160 s and auto-paused by the system (motion
    /// paused/resumed) from 300 s to 330 s: its duration is 540 s (HealthKit leaves out pause/resume intervals only),
    /// and so are the FIT file's session, activity and lap timer times and the TCX lap's; the file's timer stops
    /// once (at 100 s), not at the motion pause.
    @Test(.timeLimit(.minutes(2)))
    func motionPausesAreNotTimerTime() async throws {
        let store = try await Self.store()
        let start = BuiltWorkoutExportTests.start
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .cycling
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: nil)
        try await builder.beginCollection(at: start)
        let bpm = HKUnit.count().unitDivided(by: .minute())
        try await builder.addSamples(
            (0 ..< 600).filter { (t: Int) in t < 100 || t >= 160 }.map { (t: Int) -> HKQuantitySample in
                HKQuantitySample(
                    type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: bpm, doubleValue: 140),
                    start: start + TimeInterval(t), end: start + TimeInterval(t), device: nil, metadata: nil)
            })
        func event(_ type: HKWorkoutEventType, _ t: TimeInterval) -> HKWorkoutEvent {
            HKWorkoutEvent(type: type, dateInterval: DateInterval(start: start + t, duration: 0), metadata: nil)
        }
        try await builder.addWorkoutEvents([
            event(.pause, 100), event(.resume, 160), event(.motionPaused, 300),
            event(.motionResumed, 330),
        ])
        try await builder.endCollection(at: start + 600)
        let workout = try #require(try await builder.finishWorkout())
        #expect(workout.duration == 540)

        let data = try await WorkoutExportData.load(workout, from: store)
        #expect(data.pauses == [DateInterval(start: start + 100, end: start + 160)])
        let fit = FITExportTests.temporaryPath("motion.fit")
        defer { try? FileManager.default.removeItem(atPath: fit) }
        try ExportFile.write(try ExportFormat.fit.encode(data), to: fit)
        for reader in ["decode-garmin", "decode-fitparse"] {
            let messages = try ExportOracle.decode(reader, path: fit)
            let session = try #require(messages.first { $0.number == Int(FITMessageNumber.session) })
            #expect(session.number(8) == 540_000 && session.number(7) == 600_000, "\(reader): timer 540 s of 600 s")
            let lap = try #require(messages.first { $0.number == Int(FITMessageNumber.lap) })
            #expect(lap.number(8) == 540_000, "\(reader): the one lap's timer time")
            let activity = try #require(messages.first { $0.number == Int(FITMessageNumber.activity) })
            #expect(activity.number(0) == 540_000, "\(reader): activity timer time")
            // Timer events (event 0): start at 0, stop_all (4) at 100, start at 160, stop_all at the end.
            let timer = messages.filter { $0.number == Int(FITMessageNumber.event) && $0.number(0) == 0 }
            let fitStart = Double(FITProfile.timestamp(start))
            #expect(timer.map { ($0.number(253) ?? -1) - fitStart } == [0, 100, 160, 600], "\(reader): timer events")
            #expect(timer.map { $0.number(1) ?? -1 } == [0, 4, 0, 4], "\(reader): start, stop_all, start, stop_all")
        }
        let tcx = try #require(String(data: Data(try ExportFormat.tcx.encode(data)), encoding: .utf8))
        #expect(tcx.contains("<TotalTimeSeconds>540</TotalTimeSeconds>"))
    }
}
