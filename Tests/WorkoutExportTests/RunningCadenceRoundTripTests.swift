import FITFile
import Foundation
import OpenHealthKit
import TestSupport
import Testing
import WorkoutExport
import WorkoutImport

/// A run's cadence through import and export: the FIT file's record cadences (``ImportTestFiles/runCadence(_:)``,
/// strides a minute with a fractional part) become step samples and come back record by record, exactly, in the
/// exported file as Garmin's FIT SDK and fitparse read it (the first record has no previous one to count from), and
/// imported again, the workout's running cadence is the same but for that first record.
@Suite(.blockingWaits) struct RunningCadenceRoundTripTests {
    @Test(.timeLimit(.minutes(2))) func aRunsCadenceComesBackRecordByRecord() async throws {
        let path = try ImportTestFiles.write(ImportTestFiles.run(), name: "cadence-run.fit")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try await RunningDynamicsTests.store()
        let workout = try await WorkoutImporter.save(try WorkoutImporter.read(path: path), to: store).workout
        let cadence = try #require(try await store.runningCadence(for: workout))
        // Records 1…119: 40 at 2 × 85.25, 40 at 2 × 86.25, 39 at 2 × 84.25 steps a minute, a second each.
        let average: Double = (40.0 * 170.5 + 40.0 * 172.5 + 39.0 * 168.5) / 119
        #expect(abs(cadence.averageStepsPerMinute - average) < 1e-9)
        #expect(abs(cadence.maximumStepsPerMinute - 172.5) < 1e-9)

        let exported = FileManager.default.temporaryDirectory.appendingPathComponent("cadence-\(UUID()).fit").path
        try Data(FITActivityWriter.encode(try await WorkoutExportData.load(workout, from: store)))
            .write(to: URL(fileURLWithPath: exported))
        defer { try? FileManager.default.removeItem(atPath: exported) }
        for reader in ["decode-garmin", "decode-fitparse"] {
            let messages = try ExportOracle.decode(reader, path: exported)
            let records = messages.filter { $0.number == Int(FITMessageNumber.record) }
            let values = records.compactMap { record in record.number(4).map { $0 + (record.number(53) ?? 0) / 128 } }
            #expect(values == (1 ..< 120).map(ImportTestFiles.runCadence), "\(reader)")
            let session = try #require(messages.first { $0.number == Int(FITMessageNumber.session) })
            #expect(session.number(19) == 86 && session.number(93) == 32, "\(reader): max_running_cadence 86.25")
        }

        let second = try await RunningDynamicsTests.store()
        let back = try await WorkoutImporter.save(try WorkoutImporter.read(path: exported), to: second).workout
        let backCadence = try #require(try await second.runningCadence(for: back))
        // The export's first record with a cadence is second 1, so records 2…119 count: 39, 40 and 39 of them.
        let again: Double = (39.0 * 170.5 + 40.0 * 172.5 + 39.0 * 168.5) / 118
        #expect(abs(backCadence.averageStepsPerMinute - again) < 1e-9)
        #expect(abs(backCadence.maximumStepsPerMinute - cadence.maximumStepsPerMinute) < 1e-6)
    }
}
