import Foundation
import GRDB
import HealthKitModel
import WorkoutEngine

/// The live journal's statements: the `live_builders` row of a builder being recorded and its `live_journal` rows
/// (``JournalKind``: entries, sample batches, heartbeat batches, in sequence order). ``LiveJournal`` writes through
/// these, recovery reads through them, and finishing a workout moves the journal's samples into `samples`.
extension StoreDatabase {
    /// A journal row's columns, as recovery reads them.
    struct JournalRow {
        var sequence: Int64
        var kind: Int
        var payload: [UInt8]
    }

    /// What identifies an interrupted recording.
    struct InterruptedJournal {
        var id: Int64
        var configuration: String
        var device: String?
    }

    /// Creates a builder's journal; returns its id.
    func insertJournal(
        uuid: UUID, client: String, hasSession: Bool, configuration: String, device: String?,
        created: Double, _ db: Database
    ) throws -> Int64 {
        try db.execute(
            sql: """
                INSERT INTO live_builders (uuid, client, has_session, configuration, device, created) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [uuid, client, hasSession, configuration, device, created])
        return db.lastInsertedRowID
    }

    /// The statement that appends journal rows, cached on the connection.
    struct JournalRowInsert {
        let statement: Statement
        func add(builderID: Int64, sequence: Int64, kind: JournalKind, payload: [UInt8]) throws {
            try statement.execute(arguments: [builderID, sequence, kind.rawValue, Data(payload)])
        }
    }

    func journalRowInsert(_ db: Database) throws -> JournalRowInsert {
        JournalRowInsert(
            statement: try db.cachedStatement(
                sql: "INSERT INTO live_journal (builder_id, seq, kind, payload) VALUES (?, ?, ?, ?)"))
    }

    /// Deletes a journal and its rows (the builder finished or was discarded).
    func deleteJournal(builderID: Int64, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM live_builders WHERE id = ?", arguments: [builderID])
    }

    /// The latest journal of `client` whose recording had a session: what `recoverActiveWorkoutSession` offers.
    func latestInterruptedJournal(client: String, _ db: Database) throws -> InterruptedJournal? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT id, configuration, device FROM live_builders WHERE client = ? AND has_session = 1
                ORDER BY created DESC, id DESC LIMIT 1
                """, arguments: [client]
        ).map { InterruptedJournal(id: $0[0], configuration: $0[1], device: $0[2]) }
    }

    /// A journal's rows in sequence order, one at a time.
    func journalRows(builderID: Int64, _ db: Database) throws -> some Cursor<JournalRow> {
        try Row.fetchCursor(
            db, sql: "SELECT seq, kind, payload FROM live_journal WHERE builder_id = ? ORDER BY seq",
            arguments: [builderID]
        )
        .map { JournalRow(sequence: $0[0], kind: $0[1], payload: [UInt8]($0[2] as Data)) }
    }
}

extension StoreDatabase {
    /// Moves a journal's samples into the samples table (associated with `workoutID` when given), in the caller's
    /// transaction. Returns how many samples were moved.
    /// With `onlyAppAdded`, only the samples the app added are kept (a discarded workout).
    func moveJournalSamples(
        builderID: Int64, extra: [CollectedSample], workoutID: Int64?, source: HKSourceRevision,
        onlyAppAdded: Bool = false, _ db: Database
    ) throws -> Int {
        let sourceRowID = try sourceID(source, db)
        var insert = try SampleBulkInsert(db)
        var moved = 0
        // One batch in memory at a time: a long workout's journal is larger than it is worth holding at once.
        let nextBatch = try db.cachedStatement(
            sql:
                "SELECT seq, payload FROM live_journal WHERE builder_id = ? AND kind = \(JournalKind.samples.rawValue) AND seq > ? ORDER BY seq LIMIT 1"
        )
        var after: Int64 = 0
        while let row = try Row.fetchOne(nextBatch, arguments: [builderID, after]) {
            after = row[0]
            let batch = [UInt8](row[1] as Data)
            let records: [SampleBatchCodec.Record]
            do { records = try SampleBatchCodec.decode(batch) } catch {
                throw HKError(.errorDatabaseInaccessible, "A journaled sample batch is damaged: \(error).")
            }
            for r in records where (!onlyAppAdded || r.appAdded) && !r.alreadyStored {
                try insert.add(
                    SampleRow(
                        uuid: r.uuid, typeID: r.typeID, start: r.start, end: r.end, value: r.value, unit: r.unitString,
                        sourceID: sourceRowID, deviceID: r.deviceID, metadata: r.metadataJSON, workoutID: workoutID))
                moved += 1
            }
        }
        for sample in extra where (!onlyAppAdded || sample.appAdded) && !sample.alreadyStored {
            let typeRowID = try typeID(sample.type.identifier, db)
            let deviceRowID = try sample.device.map { try deviceID($0, db) }
            try insert.add(
                SampleRow(
                    uuid: sample.uuid, typeID: typeRowID, start: sample.start, end: sample.end, value: sample.value,
                    unit: sample.unitString, sourceID: sourceRowID, deviceID: deviceRowID,
                    metadata: sample.metadataJSON,
                    workoutID: workoutID))
        }
        try insert.finish()
        return moved + extra.filter { (!onlyAppAdded || $0.appAdded) && !$0.alreadyStored }.count
    }
}

extension StoreDatabase {
    /// Calls `body` with each of a journal's heartbeat batches, in order, one batch in memory at a time.
    func forEachJournalHeartbeatBatch(
        builderID: Int64, _ db: Database,
        _ body: ([HeartbeatCollector.Beat]) throws -> Void
    ) throws {
        let next = try db.cachedStatement(
            sql:
                "SELECT seq, payload FROM live_journal WHERE builder_id = ? AND kind = \(JournalKind.heartbeats.rawValue) AND seq > ? ORDER BY seq LIMIT 1"
        )
        var after: Int64 = 0
        while let row = try Row.fetchOne(next, arguments: [builderID, after]) {
            after = row[0]
            let beats: [HeartbeatCollector.Beat]
            do { beats = try HeartbeatBatchCodec.decode([UInt8](row[1] as Data)) } catch {
                throw HKError(.errorDatabaseInaccessible, "A journaled heartbeat batch is damaged: \(error).")
            }
            try body(beats)
        }
    }
}
