import FITFile
import Foundation
import OpenHealthKit
import TestSupport
import Testing
import WorkoutExport
import WorkoutImport

/// A FIT activity file written by Garmin's own encoder (`fit_oracle.py encode-activity`: 900 s of riding with a
/// pause from 450 s to 480 s) is imported, exported again, and the export is read back by Garmin's FIT SDK for
/// Python and by fitparse: both decode it without error (fitparse checks the CRC) and find every message of the
/// activity recipe with the values the script wrote (its formulas are restated here, not taken from the code).
@Suite(.blockingWaits) struct FITExportTests {
    static let start: UInt64 = 1_100_000_000  // the script's START (FIT time)
    static let moving = Array(0 ..< 450) + Array(480 ..< 900)  // the script's record seconds: the pause has none

    static func heartRate(_ t: Int) -> Double { Double(120 + (t * 7) % 50) }
    static func power(_ t: Int) -> Double { Double(150 + (t * 13) % 200) }
    static func cadence(_ t: Int) -> Double { Double(80 + (t * 3) % 20) }
    static func speed(_ t: Int) -> Double { ((8.0 + 2.0 * sin(Double(t) / 60.0)) * 1000).rounded() / 1000 }

    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("fit-export-\(UUID())-\(name)").path
    }

    static func store() async throws -> HKHealthStore {
        let store = HKHealthStore.inMemory(clientIdentifier: "export-tests")
        try await store.requestAuthorization(
            toShare: WorkoutImporter.shareTypes,
            read: Set(WorkoutImporter.shareTypes.map { $0 as HKObjectType }))
        return store
    }

    /// Garmin's encoder writes the ride, the import saves it: the workout to export.
    static func importedGarminRide(_ store: HKHealthStore, multisport: Bool = false) async throws -> HKWorkout {
        let path = temporaryPath("garmin.fit")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try ExportOracle.run(["encode-activity", path, "900"] + (multisport ? ["--multisport"] : []))
        return try await WorkoutImporter.save(try WorkoutImporter.read(path: path), to: store).workout
    }

    @Test(.timeLimit(.minutes(2)))
    func garminAndFitparseReadTheExportWithTheRidesValues() async throws {
        let store = try await Self.store()
        let workout = try await Self.importedGarminRide(store)
        let data = try await WorkoutExportData.load(workout, from: store)
        let path = Self.temporaryPath("export.fit")
        try Data(FITActivityWriter.encode(data)).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }

        for reader in ["decode-garmin", "decode-fitparse"] {
            let messages = try ExportOracle.decode(reader, path: path)
            func all(_ number: UInt16) -> [ExportOracle.Message] { messages.filter { $0.number == Int(number) } }
            // The recipe's order: file_id first, file_creator, device_info, ..., activity last.
            #expect(messages.first?.number == Int(FITMessageNumber.fileId), "\(reader)")
            #expect(messages.dropFirst().first?.number == Int(FITMessageNumber.fileCreator), "\(reader)")
            #expect(messages.last?.number == Int(FITMessageNumber.activity), "\(reader)")

            let fileId = try #require(all(FITMessageNumber.fileId).first)
            #expect(
                fileId.number(0) == 4 && fileId.number(1) == 255, "\(reader): type activity, manufacturer development")
            #expect(fileId.number(4) == Double(Self.start), "\(reader): time_created is the start")
            #expect(all(FITMessageNumber.fileCreator).first?.number(0) == 100, "\(reader): software version 1.00")

            let devices = all(FITMessageNumber.deviceInfo)
            #expect(devices.map { $0.number(0) } == [0, 1], "\(reader): the creator, then the imported ride's device")
            #expect(devices.first?.string(27) == "OpenHealthKit")
            #expect(devices.last?.number(2) == 255, "\(reader): the ride's maker is 'Development', FIT's 255")

            // Timer: start, stop_all at the pause (450 s), start at the resume (480 s), stop_all at the end (900 s).
            let timer = all(FITMessageNumber.event).filter { $0.number(0) == 0 }
            #expect(timer.map { $0.number(1) } == [0, 4, 0, 4], "\(reader)")
            #expect(timer.map { $0.number(253) } == [0.0, 450, 480, 900].map { Double(Self.start) + $0 }, "\(reader)")

            let records = all(FITMessageNumber.record)
            #expect(records.count == 870, "\(reader): 900 s less the 30 s pause")
            #expect(records.map { $0.number(253) } == Self.moving.map { Double(Self.start + UInt64($0)) }, "\(reader)")
            #expect(records.map { $0.number(3) } == Self.moving.map { Self.heartRate($0) }, "\(reader): heart rate")
            #expect(records.map { $0.number(7) } == Self.moving.map { Self.power($0) }, "\(reader): power")
            #expect(records.map { $0.number(4) } == Self.moving.map { Self.cadence($0) }, "\(reader): cadence")
            #expect(
                records.map { $0.number(73) } == Self.moving.map { (Self.speed($0) * 1000).rounded() },
                "\(reader): speed in mm/s")
            // Distance: the script's running sum of speeds (each rounded to the centimetre), less the first record's,
            // which the import counts from (its distance samples run from record to record).
            var sum = 0.0
            var distances: [Double] = []
            for t in Self.moving {
                sum += 8.0 + 2.0 * sin(Double(t) / 60.0)
                distances.append((sum * 100).rounded() / 100)
            }
            let exported = records.dropFirst().map { $0.number(5) ?? -1 }
            let expected = distances.dropFirst().map { (($0 - distances[0]) * 100).rounded() }
            #expect(zip(exported, expected).allSatisfy { abs($0 - $1) <= 1 }, "\(reader): distance in cm, to 1 cm")

            // hrv: the script wrote [0.5 + (t mod 7) × 0.01, 0.51] s every 10 s of records.
            let intervals = all(FITMessageNumber.hrv).flatMap { $0.numbers(0) }.compactMap { $0 }
            let written = Self.moving.filter { $0 % 10 == 0 }.flatMap { t -> [Double] in
                [500 + Double(t % 7) * 10, 510]
            }
            #expect(intervals == written, "\(reader): beat-to-beat intervals in ms")

            let lap = try #require(all(FITMessageNumber.lap).first)
            #expect(all(FITMessageNumber.lap).count == 1, "\(reader)")
            #expect(lap.number(2) == Double(Self.start) && lap.number(253) == Double(Self.start + 900), "\(reader)")

            let session = try #require(all(FITMessageNumber.session).first)
            #expect(all(FITMessageNumber.session).count == 1, "\(reader)")
            #expect(session.number(5) == 2 && session.number(6) == 7, "\(reader): cycling, road")
            #expect(
                session.number(7) == 900_000 && session.number(8) == 870_000, "\(reader): elapsed and timer time in ms")
            // Heart rate is time-weighted (StatisticsAndSeries): each reading holds until the next, at most
            // 10 s, so the reading at 449 s weighs 10 s before the pause and the others 1 s each.
            let weightedHeartRate = (Self.moving.map(Self.heartRate).reduce(0, +) + 9 * Self.heartRate(449)) / 879
            let meanPower = Self.moving.map(Self.power).reduce(0, +) / 870
            #expect(
                session.number(16) == weightedHeartRate.rounded() && session.number(17) == 169, "\(reader): heart rate")
            #expect(session.number(20) == meanPower.rounded() && session.number(21) == 349, "\(reader): power")
            #expect(session.number(19) == 99, "\(reader): max cadence 80 + 19")
            #expect(session.number(26) == 1 && session.number(25) == 0, "\(reader): one lap, the first")
            // Normalized power (Coggan's rule as `NormalizedPower` documents it): a 1 Hz series of the ridden seconds
            // (the pause's seconds are left out, so the reading at 449 s does not hold into it), its 30 s trailing
            // means, the fourth root of their fourth powers' mean.
            let series = Self.moving.map(Self.power)
            let means = (29 ..< series.count).map { i in series[i - 29 ... i].reduce(0, +) / 30 }
            let np = pow(means.map { pow($0, 4) }.reduce(0, +) / Double(means.count), 0.25)
            #expect(session.number(34) == np.rounded(), "\(reader): normalized power")
            let zones = session.numbers(65).compactMap { $0 }
            #expect(
                zones.count == 5 && abs(zones.reduce(0, +) - 870_000) <= 5,
                "\(reader): time in zones adds up to the moving time")
            let distance = try #require(session.number(9))
            #expect(
                abs(distance - ((distances.last! - distances[0]) * 100).rounded()) <= 1, "\(reader): total distance")

            let activity = try #require(all(FITMessageNumber.activity).first)
            #expect(activity.number(0) == 870_000 && activity.number(1) == 1, "\(reader)")
            #expect(activity.number(3) == 26 && activity.number(4) == 1, "\(reader): event activity, stop")
        }
    }

    /// Garmin's multisport file (swim 0–300 s, transition 300–360 s, ride 360–900 s, sessions written as their
    /// legs) exported again: a session per leg with the leg's sport, a lap each, and an activity of 3 sessions.
    @Test(.timeLimit(.minutes(2)))
    func multisportExportHasASessionPerLeg() async throws {
        let store = try await Self.store()
        let workout = try await Self.importedGarminRide(store, multisport: true)
        let path = Self.temporaryPath("tri.fit")
        try Data(FITActivityWriter.encode(try await WorkoutExportData.load(workout, from: store))).write(
            to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        for reader in ["decode-garmin", "decode-fitparse"] {
            let messages = try ExportOracle.decode(reader, path: path)
            let sessions = messages.filter { $0.number == Int(FITMessageNumber.session) }
            #expect(sessions.map { $0.number(5) } == [5, 3, 2], "\(reader): swimming, transition, cycling")
            #expect(sessions.map { $0.number(6) } == [18, 0, 7], "\(reader): open water, generic, road")
            #expect(
                sessions.map { $0.number(2) } == [0.0, 300, 360].map { Double(Self.start) + $0 },
                "\(reader): start times")
            #expect(
                sessions.map { $0.number(25) } == [0, 1, 2] && sessions.map { $0.number(26) } == [1, 1, 1], "\(reader)")
            // The ride leg holds the pause (450–480 s): 540 s elapsed, 510 s on the timer.
            #expect(sessions.last?.number(7) == 540_000 && sessions.last?.number(8) == 510_000, "\(reader)")
            #expect(messages.filter { $0.number == Int(FITMessageNumber.lap) }.count == 3, "\(reader)")
            #expect(
                messages.last?.number == Int(FITMessageNumber.activity) && messages.last?.number(1) == 3, "\(reader)")
        }
    }
}
