import FITFile
import Foundation
import OpenHealthKit
import TestSupport
import Testing

@testable import WorkoutImport

/// A FIT import ends where the device's timer last stopped, and a file in system time (a device without a time fix)
/// is anchored by its activity message's local timestamp. The files are made here with FITFileBuilder and read back
/// by Garmin's FIT SDK and fitparse, so what the file says is not the reader's word alone.
@Suite(.blockingWaits) struct FITTimerImportTests {
    static let t0 = ImportTestFiles.t0
    static func field(_ number: UInt8, _ size: UInt8, _ type: FITBaseType) -> FITFieldDefinition {
        FITFieldDefinition(number: number, size: size, baseType: type)
    }

    /// A run as a watch writes it: timer start at 0, records every second 0…56 (120 bpm, then 180 bpm at 56 s), the
    /// timer stopped (stop_all) at 57 s, one more record at 75 s (90 bpm), and its session and activity messages at
    /// 75 s. In system time every `date_time` is 1,000 + t (seconds since the watch powered on); the activity's
    /// `local_timestamp` is t0 + 75, when `anchored`.
    static func watchRun(systemTime: Bool, anchored: Bool = true) -> [UInt8] {
        func time(_ t: UInt64) -> FITValue { .unsigned((systemTime ? 1000 : UInt64(t0)) + t) }
        var file = FITFileBuilder()
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.fileId,
                fields: [
                    field(0, 1, .enum), field(1, 2, .uint16), field(2, 2, .uint16), field(3, 4, .uint32z),
                    field(4, 4, .uint32),
                ]), localType: 0)
        file.write([.unsigned(4), .unsigned(1), .unsigned(4000), .unsigned(7), time(0)], localType: 0)
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.event,
                fields: [
                    field(253, 4, .uint32), field(0, 1, .enum), field(1, 1, .enum),
                ]), localType: 1)
        file.write([time(0), .unsigned(0), .unsigned(0)], localType: 1)
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.record,
                fields: [
                    field(253, 4, .uint32), field(3, 1, .uint8),
                ]), localType: 2)
        for t in 0 ... 56 { file.write([time(UInt64(t)), .unsigned(t == 56 ? 180 : 120)], localType: 2) }
        file.write([time(57), .unsigned(0), .unsigned(4)], localType: 1)
        file.write([time(75), .unsigned(90)], localType: 2)
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.session,
                fields: [
                    field(253, 4, .uint32), field(2, 4, .uint32), field(5, 1, .enum), field(6, 1, .enum),
                    field(7, 4, .uint32),
                ]), localType: 3)
        file.write([time(75), time(0), .unsigned(1), .unsigned(0), .unsigned(75_000)], localType: 3)
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.activity,
                fields: [
                    field(253, 4, .uint32), field(0, 4, .uint32), field(1, 2, .uint16), field(2, 1, .enum),
                    field(3, 1, .enum),
                    field(4, 1, .enum), field(5, 4, .uint32),
                ]), localType: 4)
        file.write(
            [
                time(75), .unsigned(57_000), .unsigned(1), .unsigned(0), .unsigned(26), .unsigned(1),
                anchored ? .unsigned(UInt64(t0) + 75) : .invalid,
            ], localType: 4)
        return file.finish()
    }

    static func store() async throws -> HKHealthStore {
        let store = HKHealthStore.inMemory(clientIdentifier: "fit-timer-import-tests")
        try await store.requestAuthorization(
            toShare: WorkoutImporter.shareTypes,
            read: Set(WorkoutImporter.shareTypes.map { $0 as HKObjectType }))
        return store
    }

    /// Ends at the stop (57 s), not at the session (75 s); the record after the stop is not imported; the last heart
    /// rate holds 1 s, to the stop: (56 × 120 + 1 × 180) / 57 = 121.05 bpm, where holding it 10 s to 66 s would give
    /// (56 × 120 + 10 × 180) / 66 = 129.09. The same in system time, anchored at t0 + 75 for the activity's 1,075.
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func theWorkoutEndsWhereTheTimerLastStopped(systemTime: Bool) async throws {
        let path = try ImportTestFiles.write(Self.watchRun(systemTime: systemTime), name: "watch.fit")
        defer { try? FileManager.default.removeItem(atPath: path) }
        // What the file says, read by the independent readers: the timer's stop_all (event 0, type 4) at 57 s and
        // the activity's local timestamp 75 s after t0, whatever the time base.
        let base = systemTime ? 1000.0 : Double(Self.t0)
        for reader in ["decode-garmin", "decode-fitparse"] {
            let messages = try ExportOracle.decode(reader, path: path)
            let stops = messages.filter { $0.number == Int(FITMessageNumber.event) && $0.number(1) == 4 }
            #expect(stops.compactMap { $0.number(253) } == [base + 57], "\(reader)")
            let activity = try #require(messages.first { $0.number == Int(FITMessageNumber.activity) }, "\(reader)")
            #expect(activity.number(5) == Double(Self.t0) + 75 && activity.number(253) == base + 75, "\(reader)")
        }

        let imported = try WorkoutImporter.read(path: path)
        #expect(imported.start == ImportTestFiles.date(0))
        #expect(imported.end == ImportTestFiles.date(57))
        #expect(imported.heartRate.count == 57 && imported.heartRate.last?.value == 180)
        #expect(imported.recordCount == 57)
        let workout = try await WorkoutImporter.save(imported, to: try await Self.store()).workout
        #expect(workout.duration == 57)
        let bpm = HKUnit.count().unitDivided(by: .minute())
        let average = try #require(
            workout.statistics(for: HKQuantityType(.heartRate))?.averageQuantity()?.doubleValue(for: bpm))
        #expect(abs(average - (56 * 120 + 180) / 57) < 1e-9)
    }

    /// A system-time file with nothing to anchor it is refused with one sentence.
    @Test(.timeLimit(.minutes(1)))
    func anUnanchoredSystemTimeFileIsOneSentence() throws {
        let path = try ImportTestFiles.write(Self.watchRun(systemTime: true, anchored: false), name: "unanchored.fit")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: ImportError.self) { try WorkoutImporter.read(path: path) }
        do { _ = try WorkoutImporter.read(path: path) } catch let error as ImportError {
            #expect(
                error.description == "\(path): its times count from when the device powered on (it had no time fix), "
                    + "and no activity message with a local timestamp anchors them to a date, so there is no workout to import."
            )
        }
    }
}
