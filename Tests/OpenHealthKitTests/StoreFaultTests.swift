import Foundation
import GRDB
import Glibc
import TestSupport
import Testing

@testable import OpenHealthKit

/// The store when the disk does not cooperate: full (SQLite's `max_page_count`, and once for real on a small
/// tmpfs), read-only, damaged, locked by another process. Each fault gives one sentence, and what was stored before
/// it is all still there afterwards.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct StoreFaultTests {
    func heartRates(_ count: Int, from offset: Int = 0) -> [HKQuantitySample] {
        (offset ..< offset + count).map { heartRate(100 + Double($0 % 80), at: Double($0)) }
    }

    func heartRateCount(_ store: HKHealthStore) async throws -> Int {
        try await fetch(store, HKQuantityType(.heartRate), nil).count
    }

    @Test func aFullDiskFailsASaveWithOneSentenceAndKeepsWhatWasStored() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("health.sqlite")
        let store = try await authorizedStore(databasePath: path)
        try await store.save(heartRates(100))
        try store.database().limitGrowth(toExtraPages: 2)
        let error = await expectHKError(.errorDatabaseInaccessible) {
            try await store.save(heartRates(20_000, from: 100))
        }
        #expect(error?.message == "The disk holding the health store \(path) is full.")
        #expect(try await heartRateCount(store) == 100, "the failed save stored none of its samples and lost none")
        try store.database().limitGrowth(toExtraPages: nil)
        try await store.save(heartRates(20_000, from: 100))
        #expect(try await heartRateCount(store) == 20_100)
    }

    /// A live recording whose journal can no longer be written goes on in memory: the samples that could not be
    /// journaled wait in the buffer, the next flush reports the full disk, what was journaled before stays, and
    /// everything is journaled once there is room again.
    @Test func aFullDiskDuringARecordingKeepsTheSamplesInMemoryAndTheJournalRecoverable() async throws {
        let directory = try TemporaryDirectory()
        let (store, _) = try await liveStore(databasePath: directory.file("health.sqlite"))
        let database = try store.database()
        let journal = try await LiveJournal.create(
            database: database, builderUUID: UUID(), client: "tests", hasSession: true,
            configuration: configuration(.cycling), device: nil, now: t0)
        let h = JournalTests.Harness(database: database, journal: journal)
        let samples = JournalTests().samples
        try h.append(samples(0 ..< 1_000))
        try await h.flush()
        try database.limitGrowth(toExtraPages: 0)
        for start in stride(from: 1_000, to: 41_000, by: 1_000) { try? h.append(samples(start ..< start + 1_000)) }
        let error = await expectHKError(.errorDatabaseInaccessible) { try await h.flush() }
        #expect(error?.message.hasSuffix("is full.") == true, "\(error?.message ?? "")")
        #expect(
            try JournalTests.journaledStarts(database, builderID: journal.builderID) == (0 ..< 1_000).map(Double.init),
            "what was journaled before the disk filled is there, once")
        #expect(h.pendingCount == 40_000, "the rest waits in memory")
        try database.limitGrowth(toExtraPages: nil)
        try await h.flush()
        #expect(h.pendingCount == 0)
        // Every sample journaled once. (Their order in the journal follows the batches' sequence: samples that came
        // back from a failed write can follow a batch handed over while they were away.)
        #expect(
            try JournalTests.journaledStarts(database, builderID: journal.builderID).sorted()
                == (0 ..< 41_000).map(Double.init))
    }

    /// A damaged page (bytes of a real store file overwritten): `PRAGMA integrity_check` fails, and reading gives one
    /// sentence that says the store is damaged.
    @Test func aDamagedPageIsReportedAsADamagedStore() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("health.sqlite")
        do {
            let store = try await authorizedStore(databasePath: path)
            try await store.save(heartRates(5_000))
        }
        // The store is closed (its pool released) and checkpointed into the main file; overwrite its last page.
        try await waitUntilClosed(path)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size - 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 4096))
        try handle.close()
        // (SQLite may give up on the damaged page instead of listing what is wrong: not "ok" either way.)
        let check = try? await DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check")
        }
        #expect(check != ["ok"])
        var message: String?
        do {
            let store = try HKHealthStore(databasePath: path, clientIdentifier: "tests")
            _ = try await heartRateCount(store)
        } catch let error as HKError {
            message = error.message
        }
        #expect(message?.hasPrefix("The health store \(path) is damaged") == true, "\(message ?? "no error")")
    }
}

/// Faults that need the operating system's help: another process holding the store's lock, a real full disk and a
/// read-only folder (a small tmpfs, mounted when the tests run as root; skipped with the reason otherwise).
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct StoreProcessFaultTests {
    /// Another process (python's sqlite3) holds the store's write lock past the busy timeout (10 s): the save fails
    /// with one sentence and stores nothing; once the lock is released, saving works and nothing was lost.
    @Test func aStoreLockedByAnotherProcessFailsAfterTheBusyTimeout() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("health.sqlite")
        let store = try await authorizedStore(databasePath: path)
        try await store.save(heartRate(120, at: 0))
        let holder = try ChildProcess.start(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import sqlite3, sys
                connection = sqlite3.connect(sys.argv[1], isolation_level=None)
                connection.execute("BEGIN IMMEDIATE")
                print("locked", flush=True)
                sys.stdin.read()
                """, path,
            ])
        defer { holder.end() }
        #expect(holder.readLine(within: .seconds(10)) == "locked")
        let error = await expectHKError(.errorDatabaseInaccessible) { try await store.save(heartRate(130, at: 1)) }
        #expect(error?.message == "The health store \(path) is locked by another process.")
        holder.end()
        try await store.save(heartRate(130, at: 1))
        #expect(try await fetch(store, HKQuantityType(.heartRate), nil).count == 2)
    }

    /// Another program's SQLite database given as the store (a mistyped path, a browser's history; another GRDB
    /// application's file, which records migrations of its own): refused with one sentence naming its tables, and
    /// left byte for byte as it was: no table of the store's added, not switched to WAL mode. Python's sqlite3 writes
    /// the files.
    @Test func anotherProgramsDatabaseIsRefusedAndLeftUntouched() async throws {
        let directory = try TemporaryDirectory()
        let places = directory.file("places.sqlite")
        let app = directory.file("app.sqlite")
        let status = try ChildProcess.run(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import sqlite3, sys
                places = sqlite3.connect(sys.argv[1])
                places.execute("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)")
                places.execute("CREATE TABLE moz_bookmarks (id INTEGER PRIMARY KEY, place INTEGER)")
                places.execute("INSERT INTO moz_places (url) VALUES ('https://example.org')")
                places.commit()
                app = sqlite3.connect(sys.argv[2])
                app.execute("CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
                app.execute("INSERT INTO grdb_migrations VALUES ('v1: users')")
                for table in ["users", "posts", "comments", "likes"]:
                    app.execute("CREATE TABLE %s (id INTEGER PRIMARY KEY)" % table)
                app.commit()
                """, places, app,
            ])
        #expect(status == 0)
        for (path, tables) in [
            (places, "moz_bookmarks, moz_places"), (app, "comments, likes, posts and 1 more"),
        ] {
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let error = await expectHKError(.errorDatabaseInaccessible) {
                _ = try HKHealthStore(databasePath: path)
            }
            #expect(
                error?.message
                    == "The file \(path) is another program's SQLite database (tables \(tables)), not an OpenHealthKit "
                    + "store; it was left untouched.")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        }
    }

    /// A store stays locked as SQLite locks it while it is open: in WAL mode every connection holds a SHARED lock on
    /// the file, so another process can neither take it over (switch it out of WAL mode) nor, closing its own last
    /// connection, take this one for gone and remove the WAL. Opening the store a second time in the same process
    /// must not drop that lock (POSIX locks belong to the process: closing any descriptor of the file releases them).
    @Test func anOpenStoreKeepsItsLockAgainstAnotherProcess() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("health.sqlite")
        let store = try await authorizedStore(databasePath: path)
        try await store.save(heartRate(120, at: 0))
        let again = try await authorizedStore(databasePath: path)
        let other = try ChildProcess.start(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import sqlite3, sys
                connection = sqlite3.connect(sys.argv[1], timeout=0)
                try:
                    print(connection.execute("PRAGMA journal_mode=DELETE").fetchone()[0], flush=True)
                except sqlite3.OperationalError as error:
                    print(error, flush=True)
                """, path,
            ])
        defer { other.end() }
        #expect(other.readLine(within: .seconds(10)) == "database is locked")
        try await again.save(heartRate(130, at: 1))
        #expect(try await fetch(store, HKQuantityType(.heartRate), nil).count == 2)
    }

    @Test(.enabled(if: SmallDisk.canMount, "needs root to mount a small tmpfs"))
    func aRealFullDiskFailsASaveWithOneSentenceAndKeepsWhatWasStored() async throws {
        guard let disk = try SmallDisk(megabytes: 2) else {
            Issue.record("A 2 MB tmpfs could not be mounted, as root.")
            return
        }
        let path = disk.path + "/health.sqlite"
        let store = try await authorizedStore(databasePath: path)
        try await store.save((0 ..< 100).map { heartRate(120, at: Double($0)) })
        var message: String?
        do {
            for batch in 0 ..< 100 {
                try await store.save((0 ..< 2_000).map { heartRate(120, at: Double(100 + batch * 2_000 + $0)) })
            }
        } catch let error as HKError {
            message = error.message
        }
        #expect(message == "The disk holding the health store \(path) is full.")
        let stored = try await fetch(store, HKQuantityType(.heartRate), nil).count
        #expect(stored >= 100 && (stored - 100) % 2_000 == 0, "whole saves only: \(stored)")
    }

    /// Condensing on a disk with no room left: the write-ahead log cannot grow, the transaction rolls back.
    @Test(.enabled(if: SmallDisk.canMount, "needs root to mount a small tmpfs"))
    func aFullDiskDuringCondensingLeavesTheWorkoutAsItWas() async throws {
        guard let disk = try SmallDisk(megabytes: 8) else {
            Issue.record("A 8 MB tmpfs could not be mounted, as root.")
            return
        }
        let path = disk.path + "/health.sqlite"
        let store = try await authorizedStore(databasePath: path)
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration(.cycling), device: nil)
        try await builder.beginCollection(at: t0)
        let power = HKQuantityType(.cyclingPower)
        try await builder.addSamples(
            (0 ..< 3_600).map { (second: Int) -> HKQuantitySample in
                HKQuantitySample(
                    type: power, quantity: HKQuantity(unit: .watt(), doubleValue: 150 + Double(second % 90)),
                    start: t0 + Double(second), end: t0 + Double(second))
            })
        try await builder.endCollection(at: t0 + 3_600)
        let workout = try #require(try await builder.finishWorkout())
        let before = try await fetch(store, power, nil).count
        // The write-ahead log emptied, then the disk filled to its last byte.
        try await store.database().writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let filler = disk.path + "/filler"
        try disk.fill(filler)
        let error = await expectHKError(.errorDatabaseInaccessible) { _ = try await store.condenseWorkout(workout) }
        #expect(error?.message == "The disk holding the health store \(path) is full.")
        #expect(try await fetch(store, power, nil).count == before, "condensing happens entirely or not at all")
        try FileManager.default.removeItem(atPath: filler)
        #expect(try await store.condenseWorkout(workout).samplesRemoved == before)
    }

    @Test(.enabled(if: SmallDisk.canMount, "needs root to mount a small tmpfs"))
    func aStoreInAReadOnlyFolderIsReportedAndKeptAsItWas() async throws {
        guard let disk = try SmallDisk(megabytes: 4) else {
            Issue.record("A 4 MB tmpfs could not be mounted, as root.")
            return
        }
        let path = disk.path + "/health.sqlite"
        do {
            let store = try await authorizedStore(databasePath: path)
            try await store.save((0 ..< 100).map { heartRate(120, at: Double($0)) })
        }
        try await waitUntilClosed(path)
        try disk.remount(readOnly: true)
        var message: String?
        do {
            let store = try HKHealthStore(databasePath: path, clientIdentifier: "tests")
            try await store.save(heartRate(130, at: 200))
        } catch let error as HKError {
            message = error.message
        }
        #expect(message == "The health store \(path) cannot be read and written (Read-only file system).")
        try disk.remount(readOnly: false)
        let store = try HKHealthStore(databasePath: path, clientIdentifier: "tests")
        #expect(try await fetch(store, HKQuantityType(.heartRate), nil).count == 100)
    }
}

/// A child process with a deadline on every wait; ended (SIGKILL by its own pid) when the test is done with it.
final class ChildProcess: @unchecked Sendable {
    let process = Process()
    private let output = Pipe()
    private let input = Pipe()

    static func start(_ executable: String, _ arguments: [String]) throws -> ChildProcess {
        let child = ChildProcess()
        child.process.executableURL = URL(fileURLWithPath: executable)
        child.process.arguments = arguments
        child.process.standardOutput = child.output
        child.process.standardInput = child.input
        try child.process.run()
        return child
    }

    /// The next line the child prints, or nil when none comes within `limit` (a limit for a broken child).
    func readLine(within limit: Duration) -> String? {
        expectMayBlock("Reading a child's output")
        let descriptor = output.fileHandleForReading.fileDescriptor
        var line: [UInt8] = []
        var byte: UInt8 = 0
        let milliseconds = Int32(limit.components.seconds * 1000)
        while true {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, milliseconds) > 0, Glibc.read(descriptor, &byte, 1) == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }

    /// Kills the child and reaps it (at most 10 s).
    func end() {
        guard process.isRunning else { return }
        expectMayBlock("Reaping a killed child")
        kill(process.processIdentifier, SIGKILL)
        let done = DispatchSemaphore(value: 0)
        Thread {
            self.process.waitUntilExit()
            done.signal()
        }.start()
        _ = done.wait(timeout: .now() + 10)
    }

    /// Runs a command to its end within 10 s; its exit status, or nil when it did not end in time.
    static func run(_ executable: String, _ arguments: [String]) throws -> Int32? {
        let child = try start(executable, arguments)
        expectMayBlock("Running \(executable)")
        let done = DispatchSemaphore(value: 0)
        Thread {
            child.process.waitUntilExit()
            done.signal()
        }.start()
        guard done.wait(timeout: .now() + 10) == .success else {
            child.end()
            return nil
        }
        return child.process.terminationStatus
    }
}

/// A tmpfs of a few megabytes, mounted for one test and unmounted after it; nil where mounting it failed. The tests
/// that need one are enabled only where ``canMount`` (so a run without root says they were skipped, and why).
struct SmallDisk: ~Copyable {
    let path: String

    /// Whether these tests may mount a tmpfs: only root may.
    static var canMount: Bool { getuid() == 0 }

    init?(megabytes: Int) throws {
        path = NSTemporaryDirectory() + "ohk-disk-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard getuid() == 0,
            try ChildProcess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path]) == 0
        else {
            try? FileManager.default.removeItem(atPath: path)
            return nil
        }
    }

    /// Writes `path` until the disk has no room left.
    func fill(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT, 0o600)
        guard descriptor >= 0 else { throw HKError(.errorInvalidArgument, "Could not create \(path).") }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0, count: 4096)
        while chunk.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }

    func remount(readOnly: Bool) throws {
        let status = try ChildProcess.run("/bin/mount", ["-o", readOnly ? "remount,ro" : "remount,rw", path])
        guard status == 0 else { throw HKError(.errorInvalidArgument, "Could not remount \(path).") }
    }

    deinit {
        // Lazily: a store the test opened may still hold its files until its last reference goes.
        _ = try? ChildProcess.run("/bin/umount", ["-l", path])
        try? FileManager.default.removeItem(atPath: path)
    }
}
