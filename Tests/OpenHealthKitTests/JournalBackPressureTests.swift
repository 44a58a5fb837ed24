import FitnessSensors
import Foundation
import Synchronization
import Testing

@testable import OpenHealthKit

/// The journal's back-pressure, with a slow disk injected (the writer held before each transaction): a producer that
/// can wait is suspended at the bound, one that cannot is never blocked, nothing is ever waited for under the sensor
/// outlet's lock, and every reading is in the finished workout. Each wait has a deadline that fails the test.
///
/// Serialized: a blocking back-pressure would take one of the cooperative pool's threads per test (two on this
/// machine), and the deadlines need one left to report.
@Suite(.serialized, .timeLimit(.minutes(3))) struct JournalBackPressureTests {
    /// A disk that does not take writes until it is opened: the journal's writer waits in front of each transaction
    /// (on its own queue, as it would in a slow `write(2)`), at most 90 s, longer than the tests' deadlines.
    final class SlowDisk: Sendable {
        private let closed = DispatchGroup()
        init() { closed.enter() }
        func hold() { _ = closed.wait(timeout: .now() + 90) }
        func open() { closed.leave() }
    }

    /// A recording from one scripted strap into a session's builder, collecting.
    func recording() async throws -> (HKWorkoutSession, HKLiveWorkoutBuilder, ScriptedSensor, HKHealthStore) {
        let (store, _) = try await liveStore()
        let (session, builder, strap) = try await strapRecording(store)
        return (session, builder, strap, store)
    }

    func send(_ index: Int, from strap: ScriptedSensor) {
        strap.send(
            .heartRate(HeartRateReading(bpm: 100 + index % 50, contact: .detected)), at: t0 + Double(index) / 100)
    }

    /// Ends and saves the workout; returns how many heart-rate samples the store holds.
    func finish(
        _ session: HKWorkoutSession, _ builder: HKLiveWorkoutBuilder, _ store: HKHealthStore, at end: Double
    )
        async throws -> Int
    {
        session.end()
        try await builder.endCollection(at: t0 + end)
        _ = try await builder.finishWorkout()
        return try await fetch(store, HKQuantityType(.heartRate), nil).count
    }

    @Test func aSlowWriterSuspendsAProducerThatCanWaitAtTheBound() async throws {
        let (session, builder, strap, store) = try await recording()
        let disk = SlowDisk()
        try #require(builder.currentJournal).beforeEachWrite.withLock { $0 = { disk.hold() } }
        let bound = JournalBuffer.maximumBacklog
        let total = bound + 1_000
        // The producer says where it stopped: after a send that found the back-pressure raised, before awaiting it.
        let (stops, stop) = AsyncStream<Int>.makeStream()
        let producer = Task {
            for index in 0 ..< total {
                send(index, from: strap)
                if builder.backPressure.isRaised { stop.yield(index + 1) }
                await strap.waitForDemand()
            }
            stop.yield(-1)
            stop.finish()
        }
        defer { producer.cancel() }
        // With a blocking back-pressure this never comes: the send itself would block once 4 batches were in flight.
        let stoppedAt = await withDeadline(seconds: 30) { () async -> Int? in
            for await index in stops { return index }
            return nil
        }
        try #require(stoppedAt == bound, "one sample a reading: the producer stops once the backlog reaches the bound")
        #expect(builder.withCore { $0.journal.backlog } == bound)
        // The producer is suspended, not blocked under the outlet's lock: a plain thread takes that lock at once.
        let lockTaken = await withDeadline(seconds: 10) { () async -> Bool in
            await withCheckedContinuation { continuation in
                Thread {
                    _ = strap.isStarted
                    continuation.resume(returning: true)
                }
                .start()
            }
        }
        try #require(lockTaken == true, "the outlet's lock is free while the producer waits")
        // The disk catches up: the producer goes on to the end, having held nothing past the bound.
        disk.open()
        let finished = await withDeadline(seconds: 30) { () async -> Bool in
            for await index in stops where index == -1 { return true }
            return false
        }
        try #require(finished == true, "the producer went on once the writer caught up")
        #expect(builder.withCore { $0.journal.heldPastBound } == 0)
        #expect(try await finish(session, builder, store, at: Double(total)) == total, "every reading saved")
    }

    /// The reading path never waits for the writer: here the held writer needs the sensor outlet's lock before it
    /// writes, so a reading that waited for it under that lock would deadlock (and miss the deadline).
    @Test func aProducerThatCannotWaitIsNeverBlockedAndLosesNothing() async throws {
        let (session, builder, strap, store) = try await recording()
        let disk = SlowDisk()
        try #require(builder.currentJournal).beforeEachWrite.withLock {
            $0 = {
                disk.hold()
                _ = strap.isStarted  // the outlet's lock
            }
        }
        let bound = JournalBuffer.maximumBacklog
        let total = bound + 5_000
        // A thread that sends and never awaits, as a callback on a sensor's own thread would.
        let sent = await withDeadline(seconds: 30) { () async -> Bool in
            await withCheckedContinuation { continuation in
                Thread {
                    for index in 0 ..< total { send(index, from: strap) }
                    continuation.resume(returning: true)
                }
                .start()
            }
        }
        try #require(sent == true, "every send returned while the writer was held")
        #expect(builder.backPressure.isRaised, "the producers that can wait are asked to")
        #expect(builder.withCore { $0.journal.heldPastBound } == total - bound, "past the bound: kept and counted")
        disk.open()
        #expect(try await finish(session, builder, store, at: Double(total)) == total, "every reading saved")
        #expect(!builder.backPressure.isRaised, "released once the workout is saved")
    }

    /// An app's `addSamples` is a producer too: past the bound it is suspended until the writer catches up.
    @Test func addSamplesAwaitsASlowWriter() async throws {
        let (session, builder, _, store) = try await recording()
        let disk = SlowDisk()
        try #require(builder.currentJournal).beforeEachWrite.withLock { $0 = { disk.hold() } }
        let chunk = JournalBuffer.maximumPending
        let chunks = JournalBuffer.maximumBacklog / chunk + 2
        let added = Atomic<Int>(0)
        let adding = Task {
            for index in 0 ..< chunks {
                let samples = (0 ..< chunk).map {
                    heartRate(100, at: Double(index * chunk + $0) / 1000)
                }
                try await builder.addSamples(samples)
                added.add(1, ordering: .relaxed)
            }
        }
        defer { adding.cancel() }
        // The call that reached the bound has not returned: the app's task waits for the disk.
        let raised = await withDeadline(seconds: 30) { () async -> Bool in
            while !builder.backPressure.isRaised { await Task.yield() }
            return true
        }
        try #require(raised == true)
        #expect(added.load(ordering: .relaxed) == JournalBuffer.maximumBacklog / chunk - 1)
        disk.open()
        let done: Void? = await withDeadline(seconds: 30) { try? await adding.value }
        try #require(done != nil)
        #expect(added.load(ordering: .relaxed) == chunks)
        #expect(try await finish(session, builder, store, at: Double(chunks * chunk) / 1000 + 1) == chunks * chunk)
    }
}

/// Awaits `body`, or gives nil once `seconds` have passed on the real clock: a wait with a deadline, for a body that
/// may never return when the code under test is wrong (it is left behind then, and the test fails on the nil). The
/// deadline runs on a dispatch queue, not on the cooperative pool that a blocked producer may have taken.
func withDeadline<T: Sendable>(seconds: Int, _ body: @escaping @Sendable () async -> T?) async -> T? {
    let slot = DeadlineSlot<T>()
    return await withCheckedContinuation { continuation in
        slot.fill(continuation)
        Task {
            let value = await body()
            slot.take()?.resume(returning: value)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds)) {
            slot.take()?.resume(returning: nil)
        }
    }
}

/// Whoever comes first, the body or the deadline, resumes the waiting test.
final class DeadlineSlot<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T?, Never>?>(nil)
    func fill(_ waiting: CheckedContinuation<T?, Never>) { continuation.withLock { $0 = waiting } }
    func take() -> CheckedContinuation<T?, Never>? { continuation.withLock { $0.take() } }
}
