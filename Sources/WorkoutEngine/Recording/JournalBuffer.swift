import Foundation
import HealthKitModel

/// What one journal write puts in the store, with the sequence numbers it was given. A class, so that the writer
/// can take the sample buffer out uniquely referenced and give it back emptied.
///
/// `@unchecked`: handed whole from the recording core to the journal's writer queue and back, never shared.
package final class JournalBatch: @unchecked Sendable {
    package var samples: [CollectedSample] = []
    package var samplesSequence: Int64 = 0
    package var beats: [HeartbeatCollector.Beat] = []
    package var beatsSequence: Int64 = 0
    package var entry: (sequence: Int64, kind: JournalKind, payload: [UInt8])?

    package var isEmpty: Bool { samples.isEmpty && beats.isEmpty && entry == nil }

    package init() {}
}

/// The kinds of journal rows (`live_journal.kind`).
package enum JournalKind: Int, Sendable {
    /// A JSON-encoded ``JournalEntry``: a state change, an event, an activity, metadata.
    case entry = 0
    /// A binary batch of samples (``SampleBatchCodec``).
    case samples = 1
    /// A binary batch of heartbeats (``HeartbeatBatchCodec``).
    case heartbeats = 2
}

/// The journal's buffer as a value: samples and heartbeats wait here until they are due, then go to the journal's
/// writer as one batch with its sequence numbers. The recording core holds it; its shell carries the batches to
/// ``LiveJournal``, which writes them on its own queue.
///
/// A batch is due when the oldest buffered item has waited `flushInterval` on the shell's monotonic clock (checked
/// on every tick of the flush timer, so a batch waits at most `flushInterval` plus a tick), or when `maximumPending`
/// items wait (checked on every append). An append never hands a batch over for its age: that would wake the
/// writer's thread on the path of the reading that happened to come last, and delay its delivery to the delegate.
/// An entry (a state change, an event) goes with everything buffered before it, so the order is kept.
///
/// Back-pressure never blocks the path of a reading. Up to `maximumInFlight` full batches queue for the writer, each
/// at most `maximumPending` items in a buffer that comes back for reuse, so memory stays the same from one hour to
/// the next however far the writer falls behind. Once the backlog (buffered and in flight) reaches `maximumBacklog`
/// while the writer is busy, the buffer is ``behind``: its shell raises the producers' back-pressure, and producers
/// that can wait are suspended until the backlog is down to half (`SensorBackPressure`). What producers that cannot
/// wait send meanwhile is kept, never dropped, and counted (``heldPastBound``); it goes to the writer as one larger
/// batch when a write completes (``written(buffer:count:)``). A writer that fails is never waited for: the recording
/// goes on in memory.
///
/// A batch that fails to write comes back (``failed(_:error:now:)``): its samples wait again, in front and in their
/// order, and the next append or entry reports the error.
package struct JournalBuffer {
    package static let maximumPending = 4096
    package static let maximumInFlight = 16
    /// The backlog past which producers are asked to wait: 16 full batches in flight, about 4 MB of samples, over an
    /// hour of a live recording's readings.
    package static let maximumBacklog = maximumInFlight * maximumPending
    /// Emptied buffers kept for reuse: a full one is a few hundred KB, which malloc would map afresh and zero.
    package static let maximumSpareBuffers = 4

    package var flushInterval: Duration
    package private(set) var sequence: Int64
    package private(set) var pending: [CollectedSample] = []
    package private(set) var pendingBeats: [HeartbeatCollector.Beat] = []
    /// When the oldest buffered item arrived, on the shell's monotonic clock.
    package private(set) var oldestPending: Duration?
    package private(set) var inFlight = 0
    /// Samples and beats handed over and not yet written.
    package private(set) var inFlightItems = 0
    /// The backlog reached `maximumBacklog` while the writer was busy, and has not come down to half of it since.
    package private(set) var behind = false
    /// What ``takePressureChange()`` last reported.
    private var reportedBehind = false
    /// Items appended while ``behind``: what producers that could not wait sent past the bound, kept in memory.
    package private(set) var heldPastBound = 0
    /// How many samples and beats at the front of the buffer came back from failed writes: the next failed batch's
    /// go after them, so that several batches failing in a row come back in their order.
    private var returned = (samples: 0, beats: 0)
    /// The error of a write that failed, reported by the next call that can throw.
    private var failure: (any Error)?
    package private(set) var closed = false
    /// Emptied sample buffers the writer gave back: a full buffer is a few hundred KB, which malloc would map afresh
    /// and zero every time.
    private var spareBuffers: [[CollectedSample]] = []

    package init(sequence: Int64, flushInterval: Duration = .milliseconds(500)) {
        self.sequence = sequence
        self.flushInterval = flushInterval
    }

    /// What an append asks of the shell.
    package enum Outcome {
        case nothing
        /// Write this batch on the writer's queue.
        case write(JournalBatch)
        /// A write failed earlier: report this error to the caller.
        case fail(any Error)
    }

    private var isFull: Bool { pending.count + pendingBeats.count >= Self.maximumPending }

    /// Whether another batch may be handed over for the rules of size and age (entries always are).
    private var writerHasRoom: Bool { inFlight < Self.maximumInFlight }

    /// What waits for the store: buffered, and handed over but not yet written.
    package var backlog: Int { pending.count + pendingBeats.count + inFlightItems }

    private func isDue(now: Duration) -> Bool {
        isFull || oldestPending.map { now - $0 >= flushInterval } ?? false
    }

    /// Whether ``behind`` changed since it was last asked: true when producers are to wait, false when they may go
    /// on, nil when nothing changed. The shell raises or releases its back-pressure accordingly.
    package mutating func takePressureChange() -> Bool? {
        guard behind != reportedBehind else { return nil }
        reportedBehind = behind
        return behind
    }

    /// Buffers samples and heartbeats; hands them over when `maximumPending` wait (the age rule is the tick's).
    package mutating func append(
        _ samples: [CollectedSample], beats: [HeartbeatCollector.Beat] = [], now: Duration
    ) -> Outcome {
        guard !closed, !samples.isEmpty || !beats.isEmpty else { return .nothing }
        if behind { heldPastBound += samples.count + beats.count }
        pending.append(contentsOf: samples)
        pendingBeats.append(contentsOf: beats)
        if oldestPending == nil { oldestPending = now }
        if !behind, inFlight > 0, backlog >= Self.maximumBacklog { behind = true }
        if let failure {
            self.failure = nil
            return .fail(failure)
        }
        guard isFull, writerHasRoom, let batch = handOver(entry: nil) else { return .nothing }
        return .write(batch)
    }

    /// The batch to write if the oldest buffered item is due (the flush timer's tick) and the writer has room.
    package mutating func batchIfDue(now: Duration) -> JournalBatch? {
        guard !closed, writerHasRoom, isDue(now: now) else { return nil }
        return handOver(entry: nil)
    }

    /// Everything buffered, with an entry after it, as one batch; nil when there is nothing (or the journal closed).
    package mutating func handOver(entry: (kind: JournalKind, payload: [UInt8])?) -> JournalBatch? {
        guard !closed else { return nil }
        let batch = JournalBatch()
        if !pending.isEmpty {
            sequence += 1
            batch.samples = pending
            batch.samplesSequence = sequence
            pending = spareBuffers.popLast() ?? []
        }
        if !pendingBeats.isEmpty {
            sequence += 1
            batch.beats = pendingBeats
            batch.beatsSequence = sequence
            pendingBeats.removeAll(keepingCapacity: true)
        }
        if let entry {
            sequence += 1
            batch.entry = (sequence, entry.kind, entry.payload)
        }
        oldestPending = nil
        returned = (0, 0)
        guard !batch.isEmpty else { return nil }
        inFlight += 1
        inFlightItems += batch.samples.count + batch.beats.count
        return batch
    }

    /// The writer wrote a batch of `count` samples and beats; its emptied sample buffer is kept for reuse. Returns
    /// the batch to write next when a full buffer was held back for the writer.
    package mutating func written(buffer: [CollectedSample], count: Int) -> JournalBatch? {
        inFlight -= 1
        inFlightItems -= count
        if spareBuffers.count < Self.maximumSpareBuffers { spareBuffers.append(buffer) }
        if behind, backlog <= Self.maximumBacklog / 2 { behind = false }
        return isFull && !closed ? handOver(entry: nil) : nil
    }

    /// The writer could not write a batch: nothing of it is in the store, so its samples wait again and the error
    /// is reported by the next call that can throw.
    package mutating func failed(_ batch: JournalBatch, error: any Error, now: Duration) {
        inFlight -= 1
        inFlightItems -= batch.samples.count + batch.beats.count
        // A writer that fails is not waited for: the recording goes on in memory.
        behind = false
        guard !closed else { return }
        failure = error
        pending.insert(contentsOf: batch.samples, at: returned.samples)
        pendingBeats.insert(contentsOf: batch.beats, at: returned.beats)
        returned.samples += batch.samples.count
        returned.beats += batch.beats.count
        if oldestPending == nil, !pending.isEmpty || !pendingBeats.isEmpty { oldestPending = now }
    }

    /// The error of a failed write, once.
    package mutating func takeFailure() -> (any Error)? {
        defer { failure = nil }
        return failure
    }

    /// The buffered samples and heartbeats, taken out (to be saved with the workout in its transaction).
    package mutating func takePending() -> (samples: [CollectedSample], beats: [HeartbeatCollector.Beat]) {
        defer {
            returned = (0, 0)
            behind = false
            pending.removeAll()
            pendingBeats.removeAll()
            oldestPending = nil
        }
        return (pending, pendingBeats)
    }

    /// Puts samples back in front (a save that failed).
    package mutating func restore(_ samples: [CollectedSample], beats: [HeartbeatCollector.Beat], now: Duration) {
        pending.insert(contentsOf: samples, at: 0)
        pendingBeats.insert(contentsOf: beats, at: 0)
        if oldestPending == nil, !pending.isEmpty || !pendingBeats.isEmpty { oldestPending = now }
    }

    /// The journal was deleted: nothing more is buffered or handed over.
    package mutating func close() {
        closed = true
        returned = (0, 0)
        behind = false
        pending.removeAll()
        pendingBeats.removeAll()
        oldestPending = nil
    }
}

/// What writes the journal's batches to the store: the shell's, opaque to the core (which never calls it).
package protocol RecordingJournal: AnyObject, Sendable {}
