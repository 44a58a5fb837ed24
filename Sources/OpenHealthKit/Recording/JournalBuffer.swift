import Foundation

/// What one journal write puts in the store, with the sequence numbers it was given. A class, so that the writer
/// can take the sample buffer out uniquely referenced and give it back emptied.
final class JournalBatch: @unchecked Sendable {
    var samples: [CollectedSample] = []
    var samplesSequence: Int64 = 0
    var beats: [HeartbeatCollector.Beat] = []
    var beatsSequence: Int64 = 0
    var entry: (sequence: Int64, kind: JournalKind, payload: [UInt8])?

    var isEmpty: Bool { samples.isEmpty && beats.isEmpty && entry == nil }
}

/// The kinds of journal rows (`live_journal.kind`).
enum JournalKind: Int, Sendable {
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
/// writer's thread on the path of the reading that happened to come last, and delay its delivery to the delegate. An entry (a state
/// change, an event) goes with everything buffered before it, so the order is kept. When more than
/// `maximumInFlight` batches are handed over and not yet written, appending asks the shell to wait for the writer
/// (outside its lock): memory stays bounded when readings arrive faster than the store takes them.
///
/// A batch that fails to write comes back (``failed(_:error:now:)``): its samples wait again, in front, and the
/// next append or entry reports the error.
struct JournalBuffer {
    static let maximumPending = 4096
    static let maximumInFlight = 4

    var flushInterval: Duration
    private(set) var sequence: Int64
    private(set) var pending: [CollectedSample] = []
    private(set) var pendingBeats: [HeartbeatCollector.Beat] = []
    /// When the oldest buffered item arrived, on the shell's monotonic clock.
    private(set) var oldestPending: Duration?
    private(set) var inFlight = 0
    /// The error of a write that failed, reported by the next call that can throw.
    private var failure: (any Error)?
    private(set) var closed = false
    /// Emptied sample buffers the writer gave back: a full buffer is a few hundred KB, which malloc would map afresh
    /// and zero every time.
    private var spareBuffers: [[CollectedSample]] = []

    init(sequence: Int64, flushInterval: Duration = .milliseconds(500)) {
        self.sequence = sequence
        self.flushInterval = flushInterval
    }

    /// What an append asks of the shell.
    enum Outcome {
        case nothing
        /// Write this batch on the writer's queue.
        case write(JournalBatch)
        /// Write this batch, then wait for the writer (outside the lock): too many batches are in flight.
        case writeAndWait(JournalBatch)
        /// A write failed earlier: report this error to the caller.
        case fail(any Error)
    }

    private var isFull: Bool { pending.count + pendingBeats.count >= Self.maximumPending }

    private func isDue(now: Duration) -> Bool {
        isFull || oldestPending.map { now - $0 >= flushInterval } ?? false
    }

    /// Buffers samples and heartbeats; hands them over when `maximumPending` wait (the age rule is the tick's).
    mutating func append(_ samples: [CollectedSample], beats: [HeartbeatCollector.Beat] = [], now: Duration) -> Outcome
    {
        guard !closed, !samples.isEmpty || !beats.isEmpty else { return .nothing }
        pending.append(contentsOf: samples)
        pendingBeats.append(contentsOf: beats)
        if oldestPending == nil { oldestPending = now }
        if let failure {
            self.failure = nil
            return .fail(failure)
        }
        guard isFull, let batch = handOver(entry: nil) else { return .nothing }
        return inFlight > Self.maximumInFlight ? .writeAndWait(batch) : .write(batch)
    }

    /// The batch to write if the oldest buffered item is due (the flush timer's tick).
    mutating func batchIfDue(now: Duration) -> JournalBatch? {
        guard !closed, isDue(now: now) else { return nil }
        return handOver(entry: nil)
    }

    /// Everything buffered, with an entry after it, as one batch; nil when there is nothing (or the journal closed).
    mutating func handOver(entry: (kind: JournalKind, payload: [UInt8])?) -> JournalBatch? {
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
        guard !batch.isEmpty else { return nil }
        inFlight += 1
        return batch
    }

    /// The writer wrote a batch; its emptied sample buffer is kept for reuse.
    mutating func written(buffer: [CollectedSample]) {
        inFlight -= 1
        if spareBuffers.count < 2 { spareBuffers.append(buffer) }
    }

    /// The writer could not write a batch: nothing of it is in the store, so its samples wait again and the error
    /// is reported by the next call that can throw.
    mutating func failed(_ batch: JournalBatch, error: any Error, now: Duration) {
        inFlight -= 1
        guard !closed else { return }
        failure = error
        pending.insert(contentsOf: batch.samples, at: 0)
        pendingBeats.insert(contentsOf: batch.beats, at: 0)
        if oldestPending == nil, !pending.isEmpty || !pendingBeats.isEmpty { oldestPending = now }
    }

    /// The error of a failed write, once.
    mutating func takeFailure() -> (any Error)? {
        defer { failure = nil }
        return failure
    }

    /// The buffered samples and heartbeats, taken out (to be saved with the workout in its transaction).
    mutating func takePending() -> (samples: [CollectedSample], beats: [HeartbeatCollector.Beat]) {
        defer {
            pending.removeAll()
            pendingBeats.removeAll()
            oldestPending = nil
        }
        return (pending, pendingBeats)
    }

    /// Puts samples back in front (a save that failed).
    mutating func restore(_ samples: [CollectedSample], beats: [HeartbeatCollector.Beat], now: Duration) {
        pending.insert(contentsOf: samples, at: 0)
        pendingBeats.insert(contentsOf: beats, at: 0)
        if oldestPending == nil, !pending.isEmpty || !pendingBeats.isEmpty { oldestPending = now }
    }

    /// The journal was deleted: nothing more is buffered or handed over.
    mutating func close() {
        closed = true
        pending.removeAll()
        pendingBeats.removeAll()
        oldestPending = nil
    }
}
