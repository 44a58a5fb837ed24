import FITFile
import Foundation
import OpenHealthKit
import TestSupport
import Testing
import WorkoutExport
import WorkoutImport

/// Running dynamics and running power from FIT, as a watch writes them (standard record fields) and as Stryd's
/// Connect IQ field writes them (developer fields): imported as HealthKit's running samples, and exported back as
/// standard fields that Garmin's FIT SDK and fitparse read with the file's values.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct RunningDynamicsTests {
    static func store() async throws -> HKHealthStore {
        let store = HKHealthStore.inMemory(clientIdentifier: "dynamics-tests")
        try await store.requestAuthorization(
            toShare: WorkoutImporter.shareTypes, read: Set(WorkoutImporter.shareTypes.map { $0 as HKObjectType }))
        return store
    }

    /// Imports the run; returns the store and workout.
    static func imported(stryd: Bool) async throws -> (HKHealthStore, HKWorkout) {
        let path = try ImportTestFiles.write(ImportTestFiles.runWithDynamics(stryd: stryd), name: "dynamics.fit")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try await store()
        let workout = try await WorkoutImporter.save(try WorkoutImporter.read(path: path), to: store).workout
        return (store, workout)
    }

    static func values(
        _ identifier: HKQuantityTypeIdentifier, _ unit: HKUnit, of workout: HKWorkout, in store: HKHealthStore
    ) async throws -> [Double] {
        try await HKSampleQueryDescriptor(
            predicates: [
                .quantitySample(type: HKQuantityType(identifier), predicate: HKQuery.predicateForObjects(from: workout))
            ],
            sortDescriptors: [SortDescriptor(\.startDate)]
        ).result(for: store).map { $0.quantity.doubleValue(for: unit) }
    }

    @Test(arguments: [false, true])
    func importedAsRunningSamples(stryd: Bool) async throws {
        let (store, workout) = try await Self.imported(stryd: stryd)
        #expect(workout.workoutActivityType == .running)
        let seconds = 0 ..< 60
        let power = try await Self.values(.runningPower, .watt(), of: workout, in: store)
        #expect(power == seconds.map(ImportTestFiles.runPower))
        let contact = try await Self.values(
            .runningGroundContactTime, .secondUnit(with: .milli), of: workout, in: store)
        #expect(contact == seconds.map(ImportTestFiles.contact))
        let oscillation = try await Self.values(
            .runningVerticalOscillation, .meterUnit(with: .centi), of: workout, in: store)
        #expect(oscillation.count == 60)
        #expect(zip(oscillation, seconds.map(ImportTestFiles.oscillation)).allSatisfy { abs($0 - $1) < 1e-9 })
        let stride = try await Self.values(.runningStrideLength, .meter(), of: workout, in: store)
        if stryd {
            #expect(stride.isEmpty, "Stryd's field writes no stride length")
        } else {
            #expect(stride.count == 60)
            #expect(zip(stride, seconds.map(ImportTestFiles.stride)).allSatisfy { abs($0 - $1) < 1e-9 })
        }
    }

    /// Stryd's developer fields come back as the standard fields Garmin's SDK and fitparse read: power in W,
    /// stance_time in 1/10 ms, vertical_oscillation in 1/10 mm (a centimetre is 100 of them), step_length (from a
    /// watch's file) in 1/10 mm.
    @Test(.timeLimit(.minutes(2)), arguments: [false, true])
    func exportedAsStandardFields(stryd: Bool) async throws {
        let (store, workout) = try await Self.imported(stryd: stryd)
        let data = try await WorkoutExportData.load(workout, from: store)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dynamics-\(UUID()).fit").path
        try Data(FITActivityWriter.encode(data)).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let seconds = 0 ..< 60
        for reader in ["decode-garmin", "decode-fitparse"] {
            let records = try ExportOracle.decode(reader, path: path).filter {
                $0.number == Int(FITMessageNumber.record)
            }
            #expect(records.count == 60, "\(reader)")
            #expect(records.map { $0.number(7) } == seconds.map(ImportTestFiles.runPower), "\(reader): power")
            #expect(
                records.map { $0.number(41) } == seconds.map { ImportTestFiles.contact($0) * 10 },
                "\(reader): stance_time")
            #expect(
                records.map { $0.number(39) } == seconds.map { (ImportTestFiles.oscillation($0) * 100).rounded() },
                "\(reader): vertical_oscillation")
            #expect(
                records.map { $0.number(85) }
                    == seconds.map { stryd ? nil : (ImportTestFiles.stride($0) * 10_000).rounded() },
                "\(reader): step_length")
        }
    }
}
