import Foundation
import GRDB
import Testing

@testable import OpenHealthKit

/// Schema migrations on real store files: one written by the previous schema (v5) is carried forward; one written by
/// a newer schema is refused and left byte for byte as it was.
///
/// `Fixtures/store-v5.sqlite` was written by the `workout` tool at the previous schema (main at 803e623):
/// `workout demo` twice (two 30-minute runs, each with 360 heart-rate, 30 energy and 30 distance samples), then
/// `workout delete` of one run (its workout and 420 samples: 421 deleted objects), then `VACUUM` with the
/// rollback journal. Its remaining distance samples sum to 5,364 m (`SELECT sum(value)` on the file).
@Suite(.timeLimit(.minutes(1))) struct StoreMigrationTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/store-v5.sqlite").path

    /// A private copy of the fixture (the fixture itself is never opened for writing).
    func copyOfFixture(_ directory: borrowing TemporaryDirectory) throws -> String {
        let path = directory.file("store.sqlite")
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: path)
        return path
    }

    @Test func aStoreWrittenByThePreviousSchemaIsCarriedForward() async throws {
        let directory = try TemporaryDirectory()
        let path = try copyOfFixture(directory)
        let store = try HKHealthStore(databasePath: path, clientIdentifier: "workout")
        let distance = HKQuantityType(.distanceWalkingRunning)
        try await store.requestAuthorization(toShare: [distance], read: [distance, .workoutType()])
        let migrations = try await store.database().read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
        }
        #expect(
            migrations.suffix(11) == [
                "v5: heartbeat series", "v6: source priority, compact deletion records",
                "v7: activity goals", "v8: workout effort relationships", "v9: workout routes",
                "v10: workout sensors", "v11: shared series timelines",
                "v12: grouped deletion records", "v13: category samples", "v14: workout plans",
                "v15: correlations",
            ])
        // What was stored is all there: one workout, its distance (5,364 m), its deletions.
        let workouts = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(
            for: store)
        #expect(workouts.count == 1)
        let sum = try await HKStatisticsQueryDescriptor(
            predicate: .quantitySample(type: distance), options: .cumulativeSum
        )
        .result(for: store)?.sumQuantity()?.doubleValue(for: .meter())
        #expect(sum == 5_364)
        let changes = try await store.fetchChanges(
            [
                HKQueryDescriptor(sampleType: distance, predicate: nil),
                HKQueryDescriptor(sampleType: .workoutType(), predicate: nil),
            ],
            after: 0, limit: 0)
        #expect(changes.deleted.count == 31)  // the deleted run and its 30 distance samples
        // The source order is backfilled from the samples already stored, and new sources follow it.
        #expect(try await store.sourcePriority(for: distance).map(\.bundleIdentifier) == ["workout"])
        let phone = store.asClient("phone")
        try await phone.requestAuthorization(toShare: [distance], read: [distance])
        try await phone.save(
            HKQuantitySample(
                type: distance, quantity: HKQuantity(unit: .meter(), doubleValue: 10),
                start: workouts[0].startDate, end: workouts[0].startDate + 60))
        #expect(try await store.sourcePriority(for: distance).map(\.bundleIdentifier) == ["workout", "phone"])
        // The phone's minute overlaps the run's distance: merged by priority, the sum does not change.
        let merged = try await HKStatisticsQueryDescriptor(
            predicate: .quantitySample(type: distance), options: .cumulativeSum
        )
        .result(for: store)?.sumQuantity()?.doubleValue(for: .meter())
        #expect(merged == 5_364)
        // Deletion records from before v6 have no date: the first purge drops them.
        #expect(try await store.purgeDeletedObjects(deletedBefore: t0) == 421)
    }

    @Test func aStoreWrittenByANewerSchemaIsRefusedAndLeftUntouched() async throws {
        let directory = try TemporaryDirectory()
        let path = try copyOfFixture(directory)
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from a later OpenHealthKit')")
        }
        try queue.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        var thrown: HKError?
        do { _ = try HKHealthStore(databasePath: path) } catch let error as HKError { thrown = error }
        #expect(thrown?.code == .errorDatabaseInaccessible)
        #expect(
            thrown?.message
                == "The health store \(path) was written by a newer version of OpenHealthKit; it was left untouched.")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files == ["store.sqlite"])  // no WAL or shared-memory file either
        // The lazily opened default-style store reports the same sentence on every call.
        let lazy = HKHealthStore(openingLazily: path, clientIdentifier: "tests")
        await #expect(throws: HKError.self) { try await lazy.pairedSensors() }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
