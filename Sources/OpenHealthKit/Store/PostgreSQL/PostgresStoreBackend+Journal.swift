import Foundation
import PostgresNIO
import WorkoutEngine

/// The live journal on PostgreSQL, as ``StoreDatabase`` keeps it on SQLite (migration 2's `live_builders` and
/// `live_journal`): ``LiveJournal`` appends a recording's entries, sample batches and heartbeat batches as it runs,
/// recovery reads them after a crash, and finishing the workout moves the journal's samples into `samples` and its
/// heartbeats into heartbeat series, in the one transaction that saves the workout. Sample batches name the
/// backend's own type and device ids, as on SQLite.
///
/// A running recording holds a lease on its journal: a session advisory lock, on a connection the store keeps for its
/// leases, that the server releases when the recorder's process or connection ends. Recovery offers only journals
/// nobody holds and takes the lease of the one it offers, so `workout recover` on another machine never offers (or
/// finishes, or discards) a ride still being recorded into the same person's store, and two recoveries never take
/// the same one. A lease lost with its connection (the server restarted) is taken again by the recording's next
/// journal write.
extension PostgresStoreBackend {
    /// The advisory lock of a journal's lease: this key and the journal's id (in 31 bits).
    static let leaseKey: Int64 = 7136

    /// Takes the lease of a journal on the lease connection (made when there is none or it closed, taking again
    /// the leases it held). False when another session holds it, or the server could not be asked.
    func takeLease(_ builderID: Int64) async -> Bool {
        guard let connection = try? await leaseConnection(),
            await Self.lease("pg_try_advisory_lock", builderID, on: connection)
        else { return false }
        leases.withLock { _ = $0.builders.insert(builderID) }
        return true
    }

    /// Runs `function` (taking or giving back a lease) for a journal on the lease connection; whether it answered
    /// true. The connection is idle between leases: one that does not answer within ``idleAnswerLimit`` (a server
    /// that restarted, which PostgresNIO can miss on an idle connection) is closed, and the answer is false. The
    /// deadline's task runs on ``BridgeExecutor``, which needs no thread of the pool a blocking caller may hold.
    private static func lease(_ function: String, _ builderID: Int64, on connection: PostgresConnection) async -> Bool {
        let watchdog = Task(executorPreference: BridgeExecutor.shared) {
            try await Task.sleep(for: idleAnswerLimit)
            try? await connection.close()
        }
        defer { watchdog.cancel() }
        let rows = try? await connection.rows(
            "SELECT \(function)(?::integer, ?::integer)", [.integer(leaseKey), .integer(builderID % 2_147_483_648)])
        return (try? rows?.first?.at(0, as: Bool.self)) ?? false
    }

    /// The open lease connection, a new one (with the leases held before taken again) when it closed.
    private func leaseConnection() async throws -> PostgresConnection {
        if let open = leases.withLock({ $0.connection }), !open.isClosed { return open }
        let connection = try await connect()
        let held = leases.withLock { leases in
            let old = leases.connection
            leases.connection = connection
            return (old, leases.builders)
        }
        if let old = held.0 { try? await old.close() }
        for builderID in held.1 { _ = await Self.lease("pg_try_advisory_lock", builderID, on: connection) }
        return connection
    }

    /// Gives a journal's lease back (its workout finished or was discarded).
    func releaseLease(_ builderID: Int64) async {
        guard let connection = leases.withLock({ $0.builders.remove(builderID) != nil ? $0.connection : nil }),
            !connection.isClosed
        else { return }
        _ = await Self.lease("pg_advisory_unlock", builderID, on: connection)
    }

    /// Takes again the leases a closed lease connection lost (the journal's writer calls it before each batch).
    private func renewLeases() async {
        let lost = leases.withLock { !$0.builders.isEmpty && ($0.connection?.isClosed ?? true) }
        if lost { _ = try? await leaseConnection() }
    }

    func createJournal(_ header: JournalHeader) async throws -> Int64 {
        let id = try await transaction(write: true) { c -> Int64 in
            guard
                let row = try await c.rows(
                    """
                    INSERT INTO live_builders (uuid, client, has_session, configuration, device, created)
                    VALUES (?, ?, ?, ?, ?, ?) RETURNING id
                    """,
                    [
                        .uuid(header.builderUUID), .text(header.client), .boolean(header.hasSession),
                        .text(header.configuration), PostgresValue(header.device), .real(header.created.storeValue),
                    ]
                ).first
            else { throw HKError(.errorDatabaseInaccessible, "The recording's journal could not be made.") }
            return try row.at(0)
        }
        // Without a lease the recording goes on; another machine's recovery could then offer it.
        _ = await takeLease(id)
        return id
    }

    func deleteJournal(builderID: Int64) async throws {
        try await transaction(write: true) { c in try await self.deleteJournal(builderID: builderID, c) }
        await releaseLease(builderID)
    }

    private func deleteJournal(builderID: Int64, _ c: PostgresConnection) async throws {
        _ = try await c.rows("DELETE FROM live_builders WHERE id = ?", [.integer(builderID)])
    }

    /// Appends a batch in one transaction, the calling thread blocked (``LiveJournal`` calls it on its writer's
    /// queue, as it calls the SQLite backend's).
    func appendJournal(_ batch: JournalBatch, builderID: Int64) throws {
        let samples = batch.samples
        let beats = batch.beats
        let (samplesSequence, beatsSequence, entry) = (batch.samplesSequence, batch.beatsSequence, batch.entry)
        try Self.blocking {
            await self.renewLeases()
            try await self.transaction(write: true) { c in
                func add(_ sequence: Int64, _ kind: JournalKind, _ payload: [UInt8]) async throws {
                    _ = try await c.rows(
                        "INSERT INTO live_journal (builder_id, seq, kind, payload) VALUES (?, ?, ?, ?)",
                        [.integer(builderID), .integer(sequence), .integer(Int64(kind.rawValue)), .bytes(payload)])
                }
                if !samples.isEmpty {
                    // Ids looked up once per type and device in the batch, not once per sample.
                    var typeIDs: [UInt16: Int64] = [:]
                    var deviceIDs: [UInt32: Int64] = [:]
                    for sample in samples {
                        if typeIDs[sample.typeCode] == nil {
                            typeIDs[sample.typeCode] = try await self.typeID(sample.type.identifier, c)
                        }
                        if deviceIDs[sample.deviceCode] == nil, let device = sample.device {
                            deviceIDs[sample.deviceCode] = try await self.deviceID(device, c)
                        }
                    }
                    let encoded = SampleBatchCodec.encode(
                        samples, typeID: { typeIDs[$0] ?? 0 }, deviceID: { deviceIDs[$0] ?? 0 })
                    try await add(samplesSequence, .samples, encoded)
                }
                if !beats.isEmpty { try await add(beatsSequence, .heartbeats, HeartbeatBatchCodec.encode(beats)) }
                if let entry { try await add(entry.sequence, entry.kind, entry.payload) }
            }
        }
    }

    /// The latest journal of `client` whose recording had a session, with its rows in order.
    func interruptedRecording(client: String) async throws -> InterruptedRecording? {
        // Another person's recordings are theirs to recover.
        if isSharedView { return nil }
        return try await transaction(write: false) { c -> InterruptedRecording? in
            // The newest journal of the client nobody is recording into (whose lease this store then holds).
            var found: PostgresRandomAccessRow?
            for candidate in try await c.rows(
                """
                SELECT id, configuration, device FROM live_builders WHERE client = ? AND has_session
                ORDER BY created DESC, id DESC
                """, [.text(client)])
            where await self.takeLease(try candidate.at(0)) {
                found = candidate
                break
            }
            guard let journal = found else { return nil }
            let builderID: Int64 = try journal.at(0)
            let rows = try await c.rows(
                "SELECT seq, kind, payload FROM live_journal WHERE builder_id = ? ORDER BY seq", [.integer(builderID)]
            ).map {
                InterruptedRecording.Row(
                    sequence: try $0.at(0), kind: Int(try $0.at(1, as: Int32.self)), payload: try $0.bytes(2) ?? [])
            }
            var types: [Int64: String] = [:]
            for row in try await c.rows("SELECT id, identifier FROM types") { types[try row.at(0)] = try row.at(1) }
            return InterruptedRecording(
                builderID: builderID, configuration: try journal.at(1), device: try journal.at(2), rows: rows,
                typeIdentifiers: types)
        }
    }

    func discardRecordingBlocking(builderID: Int64, extra: [CollectedSample], source: HKSourceRevision) throws {
        try Self.blocking {
            try await self.transaction(write: true) { c in
                try await self.moveJournalSamples(
                    builderID: builderID, extra: extra, workoutID: nil, source: source, onlyAppAdded: true, c)
                try await self.deleteJournal(builderID: builderID, c)
            }
            await self.releaseLease(builderID)
        }
    }

    func finishWorkout(_ finish: WorkoutToFinish, check: ShareCheck) async throws {
        try await transaction(write: true) { c in
            try await self.verify(check, c)
            guard let workoutID = try await self.insert([finish.workout], source: finish.source, c).first else {
                throw HKError(.errorDatabaseInaccessible, "The workout could not be saved.")
            }
            try await self.moveJournalSamples(
                builderID: finish.builderID ?? -1, extra: finish.samples, workoutID: workoutID, source: finish.source,
                onlyAppAdded: false, c)
            // Heartbeats rebuilt from RR intervals, the journal's then the pending ones, as heartbeat series of at
            // most HKHeartbeatSeriesBuilder.maximumCount beats, saved under the workout's share authorization.
            var series: [HKHeartbeatSeriesSample] = []
            var chunker = HeartbeatSeriesChunker(device: finish.device, source: finish.source)
            if let builderID = finish.builderID {
                for row in try await c.rows(
                    "SELECT payload FROM live_journal WHERE builder_id = ? AND kind = ? ORDER BY seq",
                    [.integer(builderID), .integer(Int64(JournalKind.heartbeats.rawValue))])
                {
                    let beats: [HeartbeatCollector.Beat]
                    do { beats = try HeartbeatBatchCodec.decode(try row.bytes(0) ?? []) } catch {
                        throw HKError(.errorDatabaseInaccessible, "A journaled heartbeat batch is damaged: \(error).")
                    }
                    try chunker.take(beats) { series.append($0) }
                }
            }
            try chunker.take(finish.beats) { series.append($0) }
            try chunker.flush { series.append($0) }
            _ = try await self.insert(series, source: finish.source, workoutID: workoutID, c)
            if let builderID = finish.builderID { try await self.deleteJournal(builderID: builderID, c) }
            try await self.associate(uuids: finish.associated, workoutID: workoutID, c)
            for (position, sensor) in finish.sensors.enumerated() {
                try await c.rows(
                    """
                    INSERT INTO workout_sensors (workout_id, position, device_id, battery_first, battery_last)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                    [
                        .integer(workoutID), .integer(Int64(position)),
                        .integer(try await self.deviceID(sensor.device, c)),
                        PostgresValue(sensor.batteryPercentAtStart.map(Int64.init)),
                        PostgresValue(sensor.batteryPercentAtEnd.map(Int64.init)),
                    ])
            }
            if let plan = finish.workoutPlan { try await self.setWorkoutPlan(plan, workoutID: workoutID, c) }
        }
        if let builderID = finish.builderID { await releaseLease(builderID) }
    }

    /// Moves a journal's samples, then `extra`, into `samples` (associated with `workoutID` when given), in the
    /// caller's transaction, one journal batch in memory at a time and up to 64 rows per statement. With
    /// `onlyAppAdded`, only the samples the app added are kept (a discarded workout).
    private func moveJournalSamples(
        builderID: Int64, extra: [CollectedSample], workoutID: Int64?, source: HKSourceRevision, onlyAppAdded: Bool,
        _ c: PostgresConnection
    ) async throws {
        let sourceRowID = try await sourceID(source, c)
        var rows = SampleRowBatch(sourceID: sourceRowID, workoutID: workoutID)
        var after: Int64 = 0
        while let row = try await c.rows(
            "SELECT seq, payload FROM live_journal WHERE builder_id = ? AND kind = ? AND seq > ? ORDER BY seq LIMIT 1",
            [.integer(builderID), .integer(Int64(JournalKind.samples.rawValue)), .integer(after)]
        ).first {
            after = try row.at(0)
            let records: [SampleBatchCodec.Record]
            do { records = try SampleBatchCodec.decode(try row.bytes(1) ?? []) } catch {
                throw HKError(.errorDatabaseInaccessible, "A journaled sample batch is damaged: \(error).")
            }
            for r in records where (!onlyAppAdded || r.appAdded) && !r.alreadyStored {
                try await rows.add(
                    [
                        .uuid(r.uuid), .integer(r.typeID), .real(r.start), .real(r.end), .real(r.value),
                        PostgresValue(r.unitString), PostgresValue(r.deviceID), PostgresValue(r.metadataJSON),
                    ], c)
            }
        }
        for sample in extra where (!onlyAppAdded || sample.appAdded) && !sample.alreadyStored {
            let typeRowID = try await typeID(sample.type.identifier, c)
            var deviceRowID: Int64?
            if let device = sample.device { deviceRowID = try await deviceID(device, c) }
            try await rows.add(
                [
                    .uuid(sample.uuid), .integer(typeRowID), .real(sample.start), .real(sample.end),
                    .real(sample.value), PostgresValue(sample.unitString), PostgresValue(deviceRowID),
                    PostgresValue(sample.metadataJSON),
                ], c)
        }
        try await rows.flush(c)
    }
}
