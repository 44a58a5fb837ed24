import FitnessSensors
import Foundation
import GRDB
import Synchronization

/// The crash-safe record of a workout builder: entries and sample batches appended to the store as they happen.
///
/// Entries (state changes, events, activities, metadata) are written at once. Samples are buffered and written as
/// one binary batch when the oldest buffered sample is `flushInterval` old on the machine's monotonic clock (checked
/// on every append), when `maximumPending` samples wait, or when `flushIfDue()` is called by the recording's timer,
/// so every sample is in the store within a second of real time. The
/// journal is deleted when its builder finishes or is discarded.
final class LiveJournal: @unchecked Sendable {
    let database: StoreDatabase
    let builderID: Int64
    let flushInterval: TimeInterval
    /// At most this many samples wait in memory, whatever the rate: memory stays flat and a batch stays small.
    static let maximumPending = 4096
    private let state: Mutex<State>

    private struct State {
        var sequence: Int64
        var pending: [CollectedSample] = []
        var pendingBeats: [HeartbeatCollector.Beat] = []
        /// When the oldest buffered item arrived, on the monotonic clock (nanoseconds of uptime).
        var oldestPending: UInt64?
        var closed = false
    }

    /// Creates the journal row for a new builder.
    static func create(database: StoreDatabase, builderUUID: UUID, client: String, hasSession: Bool,
                       configuration: HKWorkoutConfiguration, device: HKDevice?, now: Date,
                       flushInterval: TimeInterval = 0.5) throws -> LiveJournal {
        let configurationJSON = try String(decoding: JSONEncoder().encode(ConfigurationRecord(configuration)), as: UTF8.self)
        let deviceJSON = try device.map { try String(decoding: JSONEncoder().encode($0.fields), as: UTF8.self) }
        let id = try database.write { db -> Int64 in
            try db.execute(sql: """
                INSERT INTO live_builders (uuid, client, has_session, configuration, device, created) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [builderUUID, client, hasSession, configurationJSON, deviceJSON, now.storeValue])
            return db.lastInsertedRowID
        }
        return LiveJournal(database: database, builderID: id, sequence: 0, flushInterval: flushInterval)
    }

    init(database: StoreDatabase, builderID: Int64, sequence: Int64, flushInterval: TimeInterval = 0.5) {
        self.database = database
        self.builderID = builderID
        self.flushInterval = flushInterval
        self.state = Mutex(State(sequence: sequence))
    }

    /// Writes an entry now (after the samples buffered before it, so the order is kept).
    func record(_ entry: JournalEntry) throws {
        let payload = try JSONEncoder().encode(entry)
        try write(extra: (0, [UInt8](payload)))
    }

    /// The monotonic time, in nanoseconds. The journal's deadline is about real durability (what a crash may lose),
    /// not about workout time, so it runs on the machine's clock even when a replay drives a virtual wall clock.
    private static func uptime() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    private func isDue(_ state: State, now: UInt64) -> Bool {
        state.pending.count + state.pendingBeats.count >= Self.maximumPending
            || state.oldestPending.map { Double(now &- $0) / 1e9 >= flushInterval } ?? false
    }

    /// Buffers samples; writes them when the oldest buffered item is due.
    func append(_ samples: [CollectedSample]) throws {
        guard !samples.isEmpty else { return }
        let now = Self.uptime()
        let due = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.pending.append(contentsOf: samples)
            if state.oldestPending == nil { state.oldestPending = now }
            return isDue(state, now: now)
        }
        if due { try flush() }
    }

    /// Buffers heartbeats, written with the samples.
    func appendHeartbeats(_ beats: [HeartbeatCollector.Beat]) throws {
        let now = Self.uptime()
        let due = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.pendingBeats.append(contentsOf: beats)
            if state.oldestPending == nil { state.oldestPending = now }
            return isDue(state, now: now)
        }
        if due { try flush() }
    }

    /// Writes buffered items if the oldest has waited `flushInterval`.
    func flushIfDue() throws {
        let now = Self.uptime()
        if state.withLock({ isDue($0, now: now) }) { try flush() }
    }

    /// Writes every buffered sample now.
    func flush() throws {
        try write(extra: nil)
    }

    /// How many samples wait in memory.
    var pendingCount: Int { state.withLock { $0.pending.count } }

    private func write(extra: (Int, [UInt8])?) throws {
        // The lock is held across the write so batches and entries reach the store in the order they happened.
        try state.withLock { state in
            guard !state.closed else { return }
            let samples = state.pending
            let beats = state.pendingBeats
            let database = database
            let builderID = builderID
            var sequence = state.sequence
            try database.write { db in
                let insert = try db.cachedStatement(sql: "INSERT INTO live_journal (builder_id, seq, kind, payload) VALUES (?, ?, ?, ?)")
                if !samples.isEmpty {
                    // Ids looked up once per type and device object in the batch, not once per sample.
                    var typeIDs: [ObjectIdentifier: Int64] = [:]
                    var deviceIDs: [ObjectIdentifier: Int64] = [:]
                    let batch = try SampleBatchCodec.encode(samples, typeID: { type in
                        if let id = typeIDs[ObjectIdentifier(type)] { return id }
                        let id = try database.typeID(type.identifier, db)
                        typeIDs[ObjectIdentifier(type)] = id
                        return id
                    }, deviceID: { device in
                        if let id = deviceIDs[ObjectIdentifier(device)] { return id }
                        let id = try database.deviceID(device, db)
                        deviceIDs[ObjectIdentifier(device)] = id
                        return id
                    })
                    sequence += 1
                    try insert.execute(arguments: [builderID, sequence, 1, Data(batch)])
                }
                if !beats.isEmpty {
                    sequence += 1
                    try insert.execute(arguments: [builderID, sequence, 2, Data(HeartbeatBatchCodec.encode(beats))])
                }
                if let (kind, payload) = extra {
                    sequence += 1
                    try insert.execute(arguments: [builderID, sequence, kind, Data(payload)])
                }
            }
            state.sequence = sequence
            state.pending.removeAll(keepingCapacity: true)
            state.pendingBeats.removeAll(keepingCapacity: true)
            state.oldestPending = nil
        }
    }

    /// Takes the buffered heartbeats out (to save them with the workout).
    func takePendingHeartbeats() -> [HeartbeatCollector.Beat] {
        state.withLock { state in
            defer { state.pendingBeats.removeAll() }
            return state.pendingBeats
        }
    }

    /// Deletes the journal: the builder finished (its samples are now in the store) or was discarded.
    func close(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM live_builders WHERE id = ?", arguments: [builderID])
        state.withLock { $0.closed = true; $0.pending.removeAll(); $0.pendingBeats.removeAll() }
    }

    /// Takes the buffered samples out (to save them with the workout in the same transaction).
    func takePending() -> [CollectedSample] {
        state.withLock { state in
            defer { state.pending.removeAll(); state.oldestPending = nil }
            return state.pending
        }
    }
}

extension StoreDatabase {
    /// Moves a journal's samples into the samples table (associated with `workoutID` when given), in the caller's
    /// transaction. Returns how many samples were moved.
    /// With `onlyAppAdded`, only the samples the app added are kept (a discarded workout).
    func moveJournalSamples(builderID: Int64, extra: [CollectedSample], workoutID: Int64?, source: HKSourceRevision,
                            onlyAppAdded: Bool = false, _ db: Database) throws -> Int {
        let sourceRowID = try sourceID(source, db)
        let insert = try SampleInsert(db)
        var moved = 0
        // One batch in memory at a time: a long workout's journal is larger than it is worth holding at once.
        let nextBatch = try db.cachedStatement(sql: "SELECT seq, payload FROM live_journal WHERE builder_id = ? AND kind = 1 AND seq > ? ORDER BY seq LIMIT 1")
        var after: Int64 = 0
        while let row = try Row.fetchOne(nextBatch, arguments: [builderID, after]) {
            after = row[0]
            let batch = [UInt8](row[1] as Data)
            let records: [SampleBatchCodec.Record]
            do { records = try SampleBatchCodec.decode(batch) } catch {
                throw HKError(.errorDatabaseInaccessible, "A journaled sample batch is damaged: \(error).")
            }
            for r in records where !onlyAppAdded || r.appAdded {
                _ = try insert(uuid: r.uuid, typeID: r.typeID, start: r.start, end: r.end, value: r.value, unit: r.unitString,
                               sourceID: sourceRowID, deviceID: r.deviceID, metadata: r.metadataJSON, workoutID: workoutID)
            }
            moved += onlyAppAdded ? records.filter(\.appAdded).count : records.count
        }
        for sample in extra where !onlyAppAdded || sample.appAdded {
            let typeRowID = try typeID(sample.type.identifier, db)
            let deviceRowID = try sample.device.map { try deviceID($0, db) }
            _ = try insert(uuid: sample.uuid, typeID: typeRowID, start: sample.start, end: sample.end, value: sample.value,
                           unit: sample.unitString, sourceID: sourceRowID, deviceID: deviceRowID, metadata: sample.metadataJSON,
                           workoutID: workoutID)
        }
        return moved + extra.filter { !onlyAppAdded || $0.appAdded }.count
    }
}

/// Journaled heartbeats: a little-endian u32 count, then per beat its time (f64 seconds since the reference date)
/// and a gap flag (u8).
enum HeartbeatBatchCodec {
    static func encode(_ beats: [HeartbeatCollector.Beat]) -> [UInt8] {
        var writer = ByteWriter(capacity: 4 + beats.count * 9)
        writer.write(UInt32(beats.count))
        for beat in beats {
            writer.write(beat.time.bitPattern)
            writer.write(UInt8(beat.precededByGap ? 1 : 0))
        }
        return writer.bytes
    }

    static func decode(_ bytes: [UInt8]) throws(DecodeError) -> [HeartbeatCollector.Beat] {
        var reader = ByteReader(bytes)
        let count = Int(try reader.readUInt32("beat count"))
        guard count <= bytes.count / 9 else { throw DecodeError("beat count \(count) larger than the batch", at: 0) }
        var beats: [HeartbeatCollector.Beat] = []
        beats.reserveCapacity(count)
        for _ in 0 ..< count {
            let time = Double(bitPattern: UInt64(try reader.readUInt32("beat time")) | UInt64(try reader.readUInt32("beat time")) << 32)
            beats.append(.init(time: time, precededByGap: try reader.readUInt8("gap flag") != 0))
        }
        try reader.expectEnd("the heartbeat batch")
        return beats
    }
}

extension StoreDatabase {
    /// A journal's heartbeats, in order.
    func journalHeartbeats(builderID: Int64, _ db: Database) throws -> [HeartbeatCollector.Beat] {
        var beats: [HeartbeatCollector.Beat] = []
        for blob in try Data.fetchAll(db, sql: "SELECT payload FROM live_journal WHERE builder_id = ? AND kind = 2 ORDER BY seq",
                                      arguments: [builderID]) {
            do { beats += try HeartbeatBatchCodec.decode([UInt8](blob)) } catch {
                throw HKError(.errorDatabaseInaccessible, "A journaled heartbeat batch is damaged: \(error).")
            }
        }
        return beats
    }
}
