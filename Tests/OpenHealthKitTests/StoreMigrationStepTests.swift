import Foundation
import GRDB
import Testing

@testable import OpenHealthKit

/// Every schema version as a real store file, carried forward by opening it: the schema it ends with is a fresh
/// store's, and the migrations that move data move it. Generic over the migration list: a new migration is covered
/// without changing this file (its data test, when it moves data, goes below).
@Suite(.timeLimit(.minutes(1))) struct StoreMigrationStepTests {
    /// A store file written by the schema up to `identifier` (a real file, as an older OpenHealthKit left it).
    func store(
        upTo identifier: String, in directory: borrowing TemporaryDirectory,
        then fill: (Database) throws -> Void = { _ in }
    ) throws -> String {
        let path = directory.file("\(identifier.prefix { $0 != ":" }).sqlite")
        let queue = try DatabaseQueue(path: path)
        try StoreSchema.migrator.migrate(queue, upTo: identifier)
        try queue.write(fill)
        try queue.close()
        return path
    }

    /// The schema as `sqlite_master` lists it, in a stable order.
    func schema(_ path: String) throws -> [String] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
                .map { "\($0[0] as String) \($0[1] as String) on \($0[2] as String): \(($0[3] as String?) ?? "")" }
        }
    }

    @Test func eachVersionFromV1IsCarriedForwardToTheFreshSchema() throws {
        let directory = try TemporaryDirectory()
        let identifiers = StoreSchema.migrator.migrations
        #expect(identifiers.first?.hasPrefix("v1:") == true)
        let freshPath = directory.file("fresh.sqlite")
        _ = try StoreDatabase.open(path: freshPath)
        let fresh = try schema(freshPath)
        #expect(fresh.contains { $0.hasPrefix("table samples on samples") })
        // Every older version as a file, carried forward by opening it (its missing migrations all at once).
        for identifier in identifiers.dropLast() {
            let path = try store(upTo: identifier, in: directory)
            _ = try StoreDatabase.open(path: path)
            #expect(try schema(path) == fresh, "carried forward from \(identifier)")
            let applied = try DatabaseQueue(path: path).read { db in
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
            }
            #expect(applied == identifiers, "from \(identifier)")
        }
        // And step by step: one file taken through every version in turn, opened by the store at each.
        let stepped = directory.file("stepped.sqlite")
        for identifier in identifiers {
            let queue = try DatabaseQueue(path: stepped)
            try StoreSchema.migrator.migrate(queue, upTo: identifier)
            #expect(try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } == ["ok"])
            try queue.close()
        }
        _ = try StoreDatabase.open(path: stepped)
        #expect(try schema(stepped) == fresh)
    }

    // MARK: Migrations that move data

    /// v6 fills `type_sources` from the samples already stored: each type's sources with the anchor of their first
    /// sample of it (the default source priority), and its trigger keeps it for samples inserted afterwards.
    @Test func v6RecordsWhichSourcesSavedEachTypeFromTheSamplesStored() async throws {
        let directory = try TemporaryDirectory()
        let path = try store(upTo: "v5: heartbeat series", in: directory) { db in
            try db.execute(
                sql: """
                    INSERT INTO types (id, identifier) VALUES (1, 'HKQuantityTypeIdentifierHeartRate'),
                                                              (2, 'HKQuantityTypeIdentifierStepCount');
                    INSERT INTO sources (id, key, name, bundle_identifier, os_version)
                        VALUES (1, 'watch', 'Watch', 'watch', '1.0.0'), (2, 'phone', 'Phone', 'phone', '1.0.0');
                    """)
            // Anchors 1…6: heart rate from the phone first (anchor 2), then the watch (anchor 3); steps from the
            // watch only (anchor 1 first, 5 again).
            for (id, type, source) in [(1, 2, 1), (2, 1, 2), (3, 1, 1), (4, 1, 2), (5, 2, 1), (6, 1, 1)]
                as [(Int, Int, Int)]
            {
                try db.execute(
                    sql: """
                        INSERT INTO samples (id, uuid, type_id, start, "end", value, unit, source_id)
                        VALUES (?, randomblob(16), ?, ?, ?, 1, 'count', ?)
                        """, arguments: [id, type, Double(id), Double(id), source])
            }
        }
        let database = try await StoreDatabase.open(path: path)
        let rows = try await database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT type_id, source_id, first_anchor FROM type_sources ORDER BY type_id, first_anchor"
            )
            .map { [$0[0] as Int, $0[1] as Int, $0[2] as Int] }
        }
        #expect(rows == [[1, 2, 2], [1, 1, 3], [2, 1, 1]])
        // A source saving a type for the first time after the migration is recorded by the trigger.
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO samples (id, uuid, type_id, start, "end", value, unit, source_id)
                    VALUES (7, randomblob(16), 2, 7, 7, 1, 'count', 2)
                    """)
        }
        let steps = try await database.read { db in
            try Int.fetchAll(db, sql: "SELECT source_id FROM type_sources WHERE type_id = 2 ORDER BY first_anchor")
        }
        #expect(steps == [1, 2])
        // The deletion records from before v6 have no date: their age is unknown.
        #expect(try await database.read { db in try db.columns(in: "deleted_objects").map(\.name) }.contains("deleted"))
    }

    /// v12 marks the deletion ranges stored before it as format 0 (16 bytes per UUID), which they are.
    @Test func v12KeepsTheDeletionRangesStoredBeforeItReadable() async throws {
        let directory = try TemporaryDirectory()
        let uuids = (0 ..< 3).map { _ in UUID() }
        let blob = Data(uuids.flatMap { uuid in withUnsafeBytes(of: uuid.uuid) { Array($0) } })
        let path = try store(upTo: "v11: shared series timelines", in: directory) { db in
            try db.execute(
                sql: """
                    INSERT INTO types (id, identifier) VALUES (1, 'HKQuantityTypeIdentifierCyclingPower');
                    INSERT INTO sources (id, key, name, bundle_identifier, os_version) VALUES (1, 'k', 'Watch', 'watch', '1.0.0');
                    """)
            try db.execute(
                sql:
                    "INSERT INTO deleted_ranges (anchor, type_id, source_id, count, uuids, deleted) VALUES (9, 1, 1, 3, ?, 0)",
                arguments: [blob])
        }
        let database = try await StoreDatabase.open(path: path)
        let format = try await database.read { db in
            try Int.fetchOne(db, sql: "SELECT format FROM deleted_ranges WHERE anchor = 9")
        }
        #expect(format == 0)
        let decoded = try DeletedUUIDsCodec.decode(blob, format: 0, count: 3)
        #expect(decoded == uuids)
    }
}
