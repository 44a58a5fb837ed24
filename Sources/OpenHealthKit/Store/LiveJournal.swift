import ByteCoding
import FitnessSensors
import Foundation
import HealthKitModel
import Synchronization
import WorkoutEngine

/// The crash-safe record of a workout builder: the writer of its journal rows.
///
/// The recording core buffers samples and heartbeats (``JournalBuffer``) and hands them over as batches with their
/// sequence numbers; this writes each batch in one transaction on a serial queue of its own, beside the thread that
/// collects readings and never under the builder's lock. Batches are written in the order they were handed over.
/// When a write is done (or has failed), `completion` tells the builder, which updates its buffer. Entries (state
/// changes, events, activities, metadata) go in batches too; the builder's `async` calls that record one await
/// ``waitForWrites()`` outside its lock, so the entry is in the store when they return. Waiting suspends the
/// calling task: no thread blocks on the writer, which can wait up to the busy timeout for another process's lock.
/// The journal is deleted when its builder finishes or is discarded (``StoreBackend/finishWorkout(_:check:)``,
/// ``StoreBackend/discardRecordingBlocking(builderID:extra:source:)``). Each batch is one
/// ``StoreBackend/appendJournal(_:builderID:)``, called on this writer's queue.
final class LiveJournal: RecordingJournal {
    let database: any StoreBackend
    let builderID: Int64
    private let writer = DispatchQueue(label: "OpenHealthKit.LiveJournal.writer")
    private let progress = Mutex(Progress())
    /// Runs on the writer's queue before each batch's transaction: the seam of the tests of a slow disk.
    let beforeEachWrite = Mutex<(@Sendable () -> Void)?>(nil)

    /// How many batches were handed over and how many are done, and the tasks waiting for a number to be done.
    private struct Progress {
        var queued = 0
        var done = 0
        var waiters: [(upTo: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    /// Creates the journal row for a new builder, the calling task suspended.
    static func create(
        database: any StoreBackend, builderUUID: UUID, client: String, hasSession: Bool,
        configuration: HKWorkoutConfiguration, device: HKDevice?, now: Date
    ) async throws -> LiveJournal {
        let configurationJSON = try String(
            decoding: JSONEncoder().encode(ConfigurationRecord(configuration)), as: UTF8.self)
        let deviceJSON = try device.map { try String(decoding: JSONEncoder().encode($0.fields), as: UTF8.self) }
        let id = try await database.createJournal(
            JournalHeader(
                builderUUID: builderUUID, client: client, hasSession: hasSession, configuration: configurationJSON,
                device: deviceJSON, created: now))
        return LiveJournal(database: database, builderID: id)
    }

    init(database: any StoreBackend, builderID: Int64) {
        self.database = database
        self.builderID = builderID
    }

    /// Queues a batch's write. `completion` runs on the writer's queue with the batch's emptied sample buffer (for
    /// reuse) or the error; on an error nothing of the batch is in the store.
    func write(_ batch: JournalBatch, completion: @escaping @Sendable (Result<[CollectedSample], any Error>) -> Void) {
        progress.withLock { $0.queued += 1 }
        writer.async { [self] in
            beforeEachWrite.withLock { $0 }?()
            do {
                try write(batch)
                // The written samples are released here, on the writer's thread, and their buffer given back.
                var buffer: [CollectedSample] = []
                swap(&buffer, &batch.samples)
                buffer.removeAll(keepingCapacity: true)
                completion(.success(buffer))
            } catch {
                completion(.failure(error))
            }
            // After the builder has heard of it: a waiter then finds the builder's buffer up to date.
            let ready = progress.withLock { progress in
                progress.done += 1
                let done = progress.done
                let ready = progress.waiters.filter { $0.upTo <= done }.map(\.continuation)
                progress.waiters.removeAll { $0.upTo <= done }
                return ready
            }
            for continuation in ready { continuation.resume() }
        }
    }

    /// Returns once every batch queued so far is written (or has failed); the calling task is suspended meanwhile.
    func waitForWrites() async {
        await withCheckedContinuation { continuation in
            let waiting = progress.withLock { progress in
                guard progress.done < progress.queued else { return false }
                progress.waiters.append((progress.queued, continuation))
                return true
            }
            if !waiting { continuation.resume() }
        }
    }

    /// Blocks the calling thread until every batch queued so far is written (or has failed): only for HealthKit's
    /// synchronous `discardWorkout()`, whose store write blocks its caller anyway; never on the path of a reading.
    func waitForWritesBlocking() {
        writer.sync {}
    }

    /// Writes one batch in one transaction. Runs on the writer queue.
    private func write(_ batch: JournalBatch) throws {
        try database.appendJournal(batch, builderID: builderID)
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
            let time = Double(
                bitPattern: UInt64(try reader.readUInt32("beat time")) | UInt64(try reader.readUInt32("beat time"))
                    << 32)
            beats.append(.init(time: time, precededByGap: try reader.readUInt8("gap flag") != 0))
        }
        try reader.expectEnd("the heartbeat batch")
        return beats
    }
}
