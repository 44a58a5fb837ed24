import ByteCoding
import FitnessSensors
import Foundation
import GRDB
import Synchronization

/// The crash-safe record of a workout builder: entries and sample batches appended to the store as they happen.
///
/// Entries (state changes, events, activities, metadata) are written before `record` returns. Samples are buffered
/// and handed to the journal's writer as one binary batch when the oldest buffered sample is `flushInterval` old on
/// the machine's monotonic clock (checked on every append), when `maximumPending` samples wait, or when
/// `flushIfDue()` is called by the recording's timer, so every sample is in the store within a second of real time.
/// The writer is a serial queue of its own: encoding a batch and writing it to SQLite happen beside the thread that
/// collects readings, not on it. Items get their sequence numbers in the order they were handed over, and the
/// writer keeps that order. A batch that fails to write goes back to the buffer and the next append or entry reports
/// the error. The journal is deleted when its builder finishes or is discarded.
final class LiveJournal: @unchecked Sendable {
    let database: StoreDatabase
    let builderID: Int64
    let flushInterval: TimeInterval
    /// At most this many samples wait in memory before a batch is handed over, whatever the rate.
    static let maximumPending = 4096
    /// Batches handed over and not yet written beyond which appending waits for the writer: memory stays bounded
    /// when readings arrive faster than the store takes them.
    static let maximumInFlight = 4
    private let state: Mutex<State>
    private let writer = DispatchQueue(label: "OpenHealthKit.LiveJournal.writer")

    private struct State {
        var sequence: Int64
        var pending: [CollectedSample] = []
        var pendingBeats: [HeartbeatCollector.Beat] = []
        /// When the oldest buffered item arrived, on the monotonic clock (nanoseconds of uptime).
        var oldestPending: UInt64?
        var inFlight = 0
        /// The error of a write that failed, reported by the next call that can throw.
        var failure: (any Error)?
        var closed = false
        /// Emptied sample buffers the writer gave back. A full buffer is a few hundred KB, which malloc maps
        /// afresh and unmaps every time: reusing one spares the collecting thread faulting in and zeroing new pages.
        var spareBuffers: [[CollectedSample]] = []
    }

    /// What one write puts in the store, with the sequence numbers it was given. A class, so that the writer can
    /// take the sample buffer out uniquely referenced and give it back emptied.
    private final class Batch: @unchecked Sendable {
        var samples: [CollectedSample] = []
        var samplesSequence: Int64 = 0
        var beats: [HeartbeatCollector.Beat] = []
        var beatsSequence: Int64 = 0
        var entry: (sequence: Int64, kind: Int, payload: [UInt8])?
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

    /// Writes an entry, after the samples buffered before it, and returns once it is in the store.
    func record(_ entry: JournalEntry) throws {
        let payload = try JSONEncoder().encode(entry)
        try handOverAndWait(entry: (0, [UInt8](payload)))
    }

    /// The monotonic time, in nanoseconds. The journal's deadline is about real durability (what a crash may lose),
    /// not about workout time, so it runs on the machine's clock even when a replay drives a virtual wall clock.
    private static func uptime() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    private func isDue(_ state: State, now: UInt64) -> Bool {
        state.pending.count + state.pendingBeats.count >= Self.maximumPending
            || state.oldestPending.map { Double(now &- $0) / 1e9 >= flushInterval } ?? false
    }

    /// Buffers samples; hands them to the writer when the oldest buffered item is due.
    func append(_ samples: [CollectedSample]) throws {
        guard !samples.isEmpty else { return }
        try buffer { $0.pending.append(contentsOf: samples) }
    }

    /// Buffers heartbeats, written with the samples.
    func appendHeartbeats(_ beats: [HeartbeatCollector.Beat]) throws {
        try buffer { $0.pendingBeats.append(contentsOf: beats) }
    }

    private func buffer(_ add: (inout State) -> Void) throws {
        let now = Self.uptime()
        enum Next { case nothing, wait, fail(any Error) }
        let next = state.withLock { state -> Next in
            guard !state.closed else { return .nothing }
            add(&state)
            if state.oldestPending == nil { state.oldestPending = now }
            if let failure = state.failure {
                state.failure = nil
                return .fail(failure)
            }
            guard isDue(state, now: now) else { return .nothing }
            handOver(&state, entry: nil)
            return state.inFlight > Self.maximumInFlight ? .wait : .nothing
        }
        switch next {
        case .nothing: return
        case .wait: writer.sync {}
        case .fail(let error): throw error
        }
    }

    /// Hands buffered items over if the oldest has waited `flushInterval`.
    func flushIfDue() {
        let now = Self.uptime()
        state.withLock { state in
            guard !state.closed, isDue(state, now: now) else { return }
            handOver(&state, entry: nil)
        }
    }

    /// Writes every buffered sample now, and returns once they are in the store.
    func flush() throws {
        try handOverAndWait(entry: nil)
    }

    /// How many samples wait in memory.
    var pendingCount: Int { state.withLock { $0.pending.count } }

    private func handOverAndWait(entry: (kind: Int, payload: [UInt8])?) throws {
        state.withLock { state in
            guard !state.closed else { return }
            handOver(&state, entry: entry)
        }
        writer.sync {}
        let failure = state.withLock { state -> (any Error)? in
            defer { state.failure = nil }
            return state.failure
        }
        if let failure { throw failure }
    }

    /// Gives the buffered items (and an entry) their sequence numbers and queues their write. Called under the
    /// lock, so items are queued in the order of their numbers.
    private func handOver(_ state: inout State, entry: (kind: Int, payload: [UInt8])?) {
        let batch = Batch()
        if !state.pending.isEmpty {
            state.sequence += 1
            batch.samples = state.pending
            batch.samplesSequence = state.sequence
            state.pending = state.spareBuffers.popLast() ?? []
        }
        if !state.pendingBeats.isEmpty {
            state.sequence += 1
            batch.beats = state.pendingBeats
            batch.beatsSequence = state.sequence
            state.pendingBeats.removeAll(keepingCapacity: true)
        }
        if let entry {
            state.sequence += 1
            batch.entry = (state.sequence, entry.kind, entry.payload)
        }
        state.oldestPending = nil
        guard !batch.samples.isEmpty || !batch.beats.isEmpty || batch.entry != nil else { return }
        state.inFlight += 1
        writer.async { [self] in
            do {
                try write(batch)
                // The written samples are released here, on the writer's thread, and their buffer kept for reuse.
                var buffer: [CollectedSample] = []
                swap(&buffer, &batch.samples)
                buffer.removeAll(keepingCapacity: true)
                self.state.withLock { state in
                    state.inFlight -= 1
                    if state.spareBuffers.count < 2 { state.spareBuffers.append(buffer) }
                }
            } catch {
                // Nothing of the batch is in the store: its samples wait again, and the error is reported.
                self.state.withLock { state in
                    state.inFlight -= 1
                    guard !state.closed else { return }
                    state.failure = error
                    state.pending.insert(contentsOf: batch.samples, at: 0)
                    state.pendingBeats.insert(contentsOf: batch.beats, at: 0)
                    if state.oldestPending == nil, !state.pending.isEmpty || !state.pendingBeats.isEmpty {
                        state.oldestPending = Self.uptime()
                    }
                }
            }
        }
    }

    /// Writes one batch in one transaction. Runs on the writer queue.
    private func write(_ batch: Batch) throws {
        let database = database
        let builderID = builderID
        try database.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO live_journal (builder_id, seq, kind, payload) VALUES (?, ?, ?, ?)")
            if !batch.samples.isEmpty {
                // Ids looked up once per type and device in the batch, not once per sample.
                var typeIDs: [UInt16: Int64] = [:]
                var deviceIDs: [UInt32: Int64] = [:]
                let encoded = try SampleBatchCodec.encode(batch.samples, typeID: { code in
                    if let id = typeIDs[code] { return id }
                    let id = try database.typeID(HKQuantityType.forCode(code).identifier, db)
                    typeIDs[code] = id
                    return id
                }, deviceID: { code in
                    if let id = deviceIDs[code] { return id }
                    guard let device = DeviceCodes.device(code) else { return 0 }
                    let id = try database.deviceID(device, db)
                    deviceIDs[code] = id
                    return id
                })
                try insert.execute(arguments: [builderID, batch.samplesSequence, 1, Data(encoded)])
            }
            if !batch.beats.isEmpty {
                try insert.execute(arguments: [builderID, batch.beatsSequence, 2, Data(HeartbeatBatchCodec.encode(batch.beats))])
            }
            if let entry = batch.entry {
                try insert.execute(arguments: [builderID, entry.sequence, entry.kind, Data(entry.payload)])
            }
        }
    }

    /// Takes the buffered heartbeats out (to save them with the workout), once every batch handed over is written.
    func takePendingHeartbeats() -> [HeartbeatCollector.Beat] {
        writer.sync {}
        return state.withLock { state in
            defer { state.pendingBeats.removeAll() }
            return state.pendingBeats
        }
    }

    /// Deletes the journal: the builder finished (its samples are now in the store) or was discarded.
    func close(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM live_builders WHERE id = ?", arguments: [builderID])
        state.withLock { $0.closed = true; $0.pending.removeAll(); $0.pendingBeats.removeAll() }
    }

    /// Takes the buffered samples out (to save them with the workout in the same transaction), once every batch
    /// handed over is written.
    func takePending() -> [CollectedSample] {
        writer.sync {}
        return state.withLock { state in
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
        var insert = try SampleBulkInsert(db)
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
                try insert.add(SampleRow(uuid: r.uuid, typeID: r.typeID, start: r.start, end: r.end, value: r.value, unit: r.unitString,
                                     sourceID: sourceRowID, deviceID: r.deviceID, metadata: r.metadataJSON, workoutID: workoutID))
                moved += 1
            }
        }
        for sample in extra where !onlyAppAdded || sample.appAdded {
            let typeRowID = try typeID(sample.type.identifier, db)
            let deviceRowID = try sample.device.map { try deviceID($0, db) }
            try insert.add(SampleRow(uuid: sample.uuid, typeID: typeRowID, start: sample.start, end: sample.end, value: sample.value,
                                 unit: sample.unitString, sourceID: sourceRowID, deviceID: deviceRowID, metadata: sample.metadataJSON,
                                 workoutID: workoutID))
        }
        try insert.finish()
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
    /// Calls `body` with each of a journal's heartbeat batches, in order, one batch in memory at a time.
    func forEachJournalHeartbeatBatch(builderID: Int64, _ db: Database,
                                      _ body: ([HeartbeatCollector.Beat]) throws -> Void) throws {
        let next = try db.cachedStatement(sql: "SELECT seq, payload FROM live_journal WHERE builder_id = ? AND kind = 2 AND seq > ? ORDER BY seq LIMIT 1")
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

    /// Whether a journal holds heartbeats.
    func hasJournalHeartbeats(builderID: Int64, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM live_journal WHERE builder_id = ? AND kind = 2)",
                          arguments: [builderID]) ?? false
    }
}
