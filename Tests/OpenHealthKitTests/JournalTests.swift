import FitnessSensors
import Foundation
import GRDB
import Testing

@testable import OpenHealthKit

/// The live journal: a pure buffer (``JournalBuffer``) that hands batches to a writer queue (``LiveJournal``).
/// Batches reach the store in order, a batch that fails to write goes back to the buffer and its error is reported,
/// and nothing is lost once the store takes writes again.
@Suite(.timeLimit(.minutes(1))) struct JournalTests {
    /// A journal's writer, and a buffer beside it, carried out by hand as a builder's shell does.
    final class Harness: @unchecked Sendable {
        let database: StoreDatabase
        let journal: LiveJournal
        let lock = NSLock()
        var buffer = JournalBuffer(sequence: 0)

        init(database: StoreDatabase, journal: LiveJournal) {
            self.database = database
            self.journal = journal
        }

        func send(_ batch: JournalBatch?) {
            guard let batch else { return }
            journal.write(batch) { [self] result in
                lock.withLock {
                    switch result {
                    case .success(let emptied):
                        send(buffer.written(buffer: emptied, count: batch.samples.count + batch.beats.count))
                    case .failure(let error): buffer.failed(batch, error: error, now: .zero)
                    }
                }
            }
        }

        func append(_ samples: [CollectedSample]) throws {
            let outcome = lock.withLock { buffer.append(samples, now: .zero) }
            switch outcome {
            case .nothing: break
            case .write(let batch): send(batch)
            case .fail(let error): throw error
            }
        }

        func flush() async throws {
            send(lock.withLock { buffer.handOver(entry: nil) })
            await journal.waitForWrites()
            if let failure = lock.withLock({ buffer.takeFailure() }) { throw failure }
        }

        var pendingCount: Int { lock.withLock { buffer.pending.count } }
    }

    func harness() async throws -> Harness {
        let (store, _) = try await liveStore()
        let database = try store.database()
        let journal = try await LiveJournal.create(
            database: database, builderUUID: UUID(), client: "tests", hasSession: false,
            configuration: configuration(.cycling), device: nil, now: t0)
        return Harness(database: database, journal: journal)
    }

    func samples(_ range: Range<Int>) -> [CollectedSample] {
        range.map {
            CollectedSample(
                type: HKQuantityType(.heartRate), start: Double($0), end: Double($0), value: 100 + Double($0 % 50))
        }
    }

    static func journaledStarts(_ database: StoreDatabase, builderID: Int64) throws -> [Double] {
        try database.read { db in
            try Data.fetchAll(
                db, sql: "SELECT payload FROM live_journal WHERE builder_id = ? AND kind = 1 ORDER BY seq",
                arguments: [builderID]
            )
            .flatMap { try SampleBatchCodec.decode([UInt8]($0)).map(\.start) }
        }
    }

    @Test func batchesAreWrittenInOrderBesideTheCaller() async throws {
        let h = try await harness()
        for start in stride(from: 0, to: 10_000, by: 100) { try h.append(samples(start ..< start + 100)) }
        try await h.flush()
        #expect(h.pendingCount == 0)
        #expect(try Self.journaledStarts(h.database, builderID: h.journal.builderID) == (0 ..< 10_000).map(Double.init))
    }

    @Test func aFailedWriteKeepsItsSamplesAndReportsTheError() async throws {
        let h = try await harness()
        let (database, journal) = (h.database, h.journal)
        // The journal's row disappears: every write of its entries now breaks the foreign key.
        let row = try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM live_builders WHERE id = ?", arguments: [journal.builderID])!
                .copy()
        }
        let values = ["id", "uuid", "client", "has_session", "configuration", "device", "created"].map {
            row[$0] as DatabaseValue
        }
        try await database.write { db in
            try db.execute(sql: "DELETE FROM live_builders WHERE id = ?", arguments: [journal.builderID])
        }
        try h.append(samples(0 ..< 5_000))  // a full batch is handed to the writer, which fails
        await #expect(throws: (any Error).self) { try await h.flush() }
        #expect(h.pendingCount == 5_000)
        // The store takes writes again: the same samples are written, once, in order.
        try await database.write { db in
            try db.execute(
                sql:
                    "INSERT INTO live_builders (id, uuid, client, has_session, configuration, device, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: StatementArguments(values))
        }
        try h.append(samples(5_000 ..< 5_010))
        try await h.flush()
        #expect(h.pendingCount == 0)
        #expect(try Self.journaledStarts(database, builderID: journal.builderID) == (0 ..< 5_010).map(Double.init))
    }
}

/// The buffer's rules as a state machine, in the manner of swift-async-algorithms: a state, an input, the expected
/// action. Times are the shell's monotonic clock.
@Suite(.timeLimit(.minutes(1))) struct JournalBufferTests {
    func samples(_ count: Int) -> [CollectedSample] {
        (0 ..< count).map {
            CollectedSample(type: HKQuantityType(.heartRate), start: Double($0), end: Double($0), value: 100)
        }
    }

    func batch(_ outcome: JournalBuffer.Outcome) -> JournalBatch? {
        switch outcome {
        case .write(let batch): batch
        default: nil
        }
    }

    @Test func theAgeRuleIsTheTicksAndNeverAnAppends() {
        var buffer = JournalBuffer(sequence: 0, flushInterval: .milliseconds(500))
        #expect(batch(buffer.append(samples(1), now: .milliseconds(0))) == nil)
        #expect(buffer.batchIfDue(now: .milliseconds(499)) == nil, "499 ms: not yet due")
        // An append past the interval hands nothing over: waking the writer there would delay that reading.
        #expect(batch(buffer.append(samples(1), now: .milliseconds(500))) == nil)
        let due = buffer.batchIfDue(now: .milliseconds(500))
        #expect(due?.samples.count == 2, "500 ms after the oldest: both go, at the tick")
        #expect(due?.samplesSequence == 1)
        #expect(buffer.oldestPending == nil)
    }

    @Test func theTimerTickHandsOverWhatIsDueWithoutAnAppend() {
        var buffer = JournalBuffer(sequence: 7, flushInterval: .milliseconds(500))
        _ = buffer.append(samples(2), now: .milliseconds(100))
        #expect(buffer.batchIfDue(now: .milliseconds(350)) == nil)
        let batch = buffer.batchIfDue(now: .milliseconds(600))
        #expect(batch?.samples.count == 2)
        #expect(batch?.samplesSequence == 8)
    }

    @Test func theBatchThresholdHandsOverAtOnce() {
        var buffer = JournalBuffer(sequence: 0)
        #expect(batch(buffer.append(samples(JournalBuffer.maximumPending - 1), now: .zero)) == nil)
        #expect(batch(buffer.append(samples(1), now: .zero))?.samples.count == JournalBuffer.maximumPending)
    }

    @Test func pastTheBatchesInFlightAFullBufferIsHeldAndGoesAsOneLargerBatch() {
        var buffer = JournalBuffer(sequence: 0)
        let full = JournalBuffer.maximumPending
        let most = JournalBuffer.maximumInFlight
        var outcomes: [String] = []
        for _ in 0 ..< most + 2 {
            switch buffer.append(samples(full), now: .zero) {
            case .write: outcomes.append("write")
            case .nothing: outcomes.append("held")
            case .fail: outcomes.append("fail")
            }
        }
        // Never a wait: the two full buffers past the batches in flight stay, as one.
        #expect(outcomes == Array(repeating: "write", count: most) + ["held", "held"])
        #expect(buffer.pending.count == 2 * full)
        #expect(buffer.batchIfDue(now: .seconds(10)) == nil, "the tick does not add a batch either")
        // A write completes: what was held goes at once, as one batch.
        let next = buffer.written(buffer: [], count: full)
        #expect(next?.samples.count == 2 * full)
        #expect(buffer.inFlight == most)
        #expect(buffer.pending.isEmpty)
        #expect(buffer.written(buffer: [], count: full) == nil, "nothing held: nothing more to hand over")
    }

    @Test func theBacklogAtItsBoundAsksProducersToWaitUntilHalfIsWritten() {
        var buffer = JournalBuffer(sequence: 0)
        let full = JournalBuffer.maximumPending
        let batches = JournalBuffer.maximumBacklog / full
        #expect(batches == JournalBuffer.maximumInFlight, "the bound is the batches in flight, each full")
        // Full batches go to a writer that takes none of them.
        for index in 0 ..< batches - 1 {
            _ = buffer.append(samples(full), now: .zero)
            #expect(buffer.takePressureChange() == nil, "batch \(index): under the bound")
        }
        _ = buffer.append(samples(full), now: .zero)
        #expect(buffer.backlog == JournalBuffer.maximumBacklog)
        #expect(buffer.takePressureChange() == true, "at the bound, with the writer busy: producers wait")
        #expect(buffer.takePressureChange() == nil, "reported once")
        // A producer that cannot wait goes on: what it sends is kept and counted.
        _ = buffer.append(samples(10), now: .zero)
        #expect(buffer.heldPastBound == 10)
        #expect(buffer.backlog == JournalBuffer.maximumBacklog + 10)
        // The backlog comes down as batches are written: producers go on once it is at half.
        for index in 0 ..< batches / 2 {
            _ = buffer.written(buffer: [], count: full)
            #expect(buffer.takePressureChange() == nil, "\(index + 1) written: over half (10 more than half after 8)")
        }
        _ = buffer.written(buffer: [], count: full)
        #expect(buffer.backlog == JournalBuffer.maximumBacklog / 2 - full + 10)
        #expect(buffer.takePressureChange() == false, "caught up to under half: producers go on")
    }

    @Test func aFailingWriterIsNeverWaitedFor() {
        struct DiskFull: Error {}
        var buffer = JournalBuffer(sequence: 0)
        let full = JournalBuffer.maximumPending
        var inFlight: [JournalBatch] = []
        for _ in 0 ..< JournalBuffer.maximumBacklog / full {
            if case .write(let batch) = buffer.append(samples(full), now: .zero) { inFlight.append(batch) }
        }
        #expect(buffer.takePressureChange() == true)
        // The disk is full: the first write fails. The recording goes on in memory, nobody waits for the disk.
        buffer.failed(inFlight[0], error: DiskFull(), now: .zero)
        #expect(buffer.takePressureChange() == false)
        #expect(buffer.backlog == JournalBuffer.maximumBacklog, "nothing lost")
    }

    @Test func batchesFailingInARowComeBackInTheirOrder() {
        struct DiskFull: Error {}
        var buffer = JournalBuffer(sequence: 0)
        _ = buffer.append(samples(2), now: .zero)
        let first = buffer.handOver(entry: nil)!
        _ = buffer.append(
            [CollectedSample(type: HKQuantityType(.heartRate), start: 5, end: 5, value: 1)], now: .zero)
        let second = buffer.handOver(entry: nil)!
        _ = buffer.append(
            [CollectedSample(type: HKQuantityType(.heartRate), start: 9, end: 9, value: 1)], now: .zero)
        buffer.failed(first, error: DiskFull(), now: .zero)
        buffer.failed(second, error: DiskFull(), now: .zero)
        #expect(buffer.pending.map(\.start) == [0, 1, 5, 9])
    }

    @Test func anEntryGoesAfterWhatWasBufferedBeforeIt() {
        var buffer = JournalBuffer(sequence: 0)
        _ = buffer.append(samples(3), now: .zero)
        let batch = buffer.handOver(entry: (.entry, [1, 2, 3]))
        #expect(batch?.samplesSequence == 1)
        #expect(batch?.entry?.sequence == 2)
        #expect(batch?.entry?.kind == .entry)
    }

    @Test func aFailedBatchWaitsAgainInFrontAndIsReportedOnce() {
        struct WriteFailed: Error {}
        var buffer = JournalBuffer(sequence: 0)
        let failed =
            buffer.handOver(entry: nil)
            ?? {
                _ = buffer.append(samples(2), now: .zero)
                return buffer.handOver(entry: nil)!
            }()
        _ = buffer.append(
            [CollectedSample(type: HKQuantityType(.heartRate), start: 99, end: 99, value: 1)], now: .seconds(1))
        buffer.failed(failed, error: WriteFailed(), now: .seconds(1))
        #expect(buffer.pending.map(\.start) == [0, 1, 99])
        if case .fail = buffer.append(samples(1), now: .seconds(1)) {} else { Issue.record("the failure is reported") }
        #expect(buffer.takeFailure() == nil, "reported once")
    }
}

/// The journal flushes on the store's monotonic clock, with no real timer: rows appear when the test moves the clock,
/// with no `flush()` call.
@Suite(.timeLimit(.minutes(1))) struct JournalClockTests {
    @Test func rowsAppearWhenTheFlushTimerTicksOnTheManualClock() async throws {
        let (store, clock) = try await liveStore()
        let (session, builder, strap) = try await strapRecording(store)
        try await clock.monotonic.waitForSleepers(1)  // the flush timer sleeps until 250 ms
        let database = try store.database()
        let builderID = try #require(builder.currentJournal?.builderID)
        for second in 0 ..< 5 {
            strap.send(.heartRate(HeartRateReading(bpm: 120 + second, contact: .detected)), at: t0 + Double(second))
        }
        await builder.currentJournal?.waitForWrites()
        #expect(
            try JournalTests.journaledStarts(database, builderID: builderID).isEmpty, "younger than 500 ms: buffered")
        // 250 ms: the timer ticks, nothing is due yet.
        clock.monotonic.advance(by: .milliseconds(250))
        try await clock.monotonic.waitForSleepers(1)
        await builder.currentJournal?.waitForWrites()
        #expect(try JournalTests.journaledStarts(database, builderID: builderID).isEmpty)
        // 500 ms: the oldest sample is due, and the tick hands everything over.
        clock.monotonic.advance(by: .milliseconds(250))
        try await clock.monotonic.waitForSleepers(1)
        await builder.currentJournal?.waitForWrites()
        #expect(
            try JournalTests.journaledStarts(database, builderID: builderID)
                == (0 ..< 5).map { t0.storeValue + Double($0) })
        session.end()
        try await builder.endCollection(at: t0 + 5)
        _ = try await builder.finishWorkout()
    }
}

/// Collected samples carry codes, not references: the codes must give back the same types and devices.
@Suite(.timeLimit(.minutes(1))) struct SampleCodeTests {
    @Test func everyCatalogTypeRoundTripsThroughItsCode() {
        for type in QuantityTypeCatalog.byCode {
            #expect(HKQuantityType.forCode(type.code) === type)
            #expect(HKQuantityType(HKQuantityTypeIdentifier(rawValue: type.identifier)).code == type.code)
        }
    }

    @Test func equalDevicesShareACodeAndNoDeviceIsZero() {
        let strap = HKDevice(
            name: "Strap \(UUID())", manufacturer: "ACME", model: "HR-1", hardwareVersion: nil, firmwareVersion: nil,
            softwareVersion: nil, localIdentifier: "codes:1", udiDeviceIdentifier: nil)
        let same = HKDevice(
            name: strap.name, manufacturer: "ACME", model: "HR-1", hardwareVersion: nil, firmwareVersion: nil,
            softwareVersion: nil, localIdentifier: "codes:1", udiDeviceIdentifier: nil)
        let other = HKDevice(
            name: strap.name, manufacturer: "ACME", model: "HR-2", hardwareVersion: nil, firmwareVersion: nil,
            softwareVersion: nil, localIdentifier: "codes:1", udiDeviceIdentifier: nil)
        #expect(DeviceCodes.code(for: nil) == 0)
        #expect(DeviceCodes.device(0) == nil)
        let code = DeviceCodes.code(for: strap)
        #expect(code != 0)
        #expect(DeviceCodes.code(for: same) == code)
        #expect(DeviceCodes.code(for: other) != code)
        #expect(DeviceCodes.device(code) == strap)
        let sample = CollectedSample(
            type: HKQuantityType(.cyclingPower), start: 1, end: 1, value: 200, unitString: "kW", device: same)
        #expect(sample.device == strap && sample.type == HKQuantityType(.cyclingPower) && sample.unitString == "kW")
    }
}

/// `beginCollection` makes the journal's row outside the builder's lock: two racing calls must leave one row.
@Suite(.timeLimit(.minutes(1))) struct BeginCollectionRaceTests {
    @Test func aSecondBeginFailsAtOnceWhileTheFirstMakesItsRow() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("begin-race-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        let (store, _) = try await liveStore(databasePath: path)
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration(.cycling), device: nil)
        // Another connection holds the store's write lock, so a begin that gets as far as making its row waits
        // there (the store's busy timeout is 10 s). Without the reservation, both begins would wait there, and
        // both would make a row when the lock is released.
        var holding = Configuration()
        holding.allowsUnsafeTransactions = true  // the transaction spans two accesses on purpose
        let other = try DatabaseQueue(path: path, configuration: holding)
        try other.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        // Each outcome: nil for success, else the error. No wait here is unbounded: a begin that waits for the store
        // waits at most its busy timeout, then fails (and so does the test).
        try await withThrowingTaskGroup(of: (any Error)?.self) { group in
            for _ in 0 ..< 2 {
                group.addTask {
                    do {
                        try await builder.beginCollection(at: t0)
                        return nil
                    } catch { return error }
                }
            }
            let first = try #require(try await group.next())
            let refusal = first as? HKError
            #expect(
                refusal?.code == .errorInvalidArgument
                    && refusal?.localizedDescription.contains("already begun") == true,
                "while the first begin waits for the store, the second one is refused at once (got \(String(describing: first)))"
            )
            try other.inDatabase { db in try db.execute(sql: "COMMIT") }
            var successes = 0
            while let outcome = try await group.next() { if outcome == nil { successes += 1 } }
            #expect(successes == 1, "the first begin completes once the store is free")
        }
        let rows = try await store.database().read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM live_builders")!
        }
        #expect(rows == 1, "one journal row")
        #expect(builder.startDate == t0)
    }
}
