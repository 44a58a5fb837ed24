import Foundation
import TestSupport
import Testing

/// The `workout` tool on a store that other processes write at the same time, or that is damaged.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct StoreFaultCommandTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures")

    /// Runs `workout` processes at once and returns their results, each within 50 s (a limit for a hung tool).
    static func together(_ runs: [[String]], executable: URL = Tool.url) throws -> [Tool.Result?] {
        let started = try runs.map { arguments -> (Process, () -> Tool.Result) in
            let process = Process()
            process.standardInput = FileHandle.nullDevice
            process.executableURL = executable
            process.arguments = arguments
            let pipes = Tool.piped(process)
            try process.run()
            return (process, pipes.result)
        }
        return started.map { process, result in
            nonisolated(unsafe) var outcome: Tool.Result?
            nonisolated(unsafe) let read = result
            let done = DispatchSemaphore(value: 0)
            Thread {
                outcome = read()
                done.signal()
            }.start()
            guard done.wait(timeout: .now() + 50) == .success else {
                kill(process.processIdentifier, SIGKILL)
                return nil
            }
            return outcome
        }
    }

    /// Six processes that open one fresh store at the same moment: one migrates it, the others wait for that and
    /// find it migrated (two used to both apply v1, and one failed with "table … already exists").
    @Test func processesOpeningAFreshStoreTogetherAllSucceed() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("store.sqlite")
        let results = try Self.together(Array(repeating: ["list", "--store", store], count: 6))
        for result in results {
            #expect(result?.status == 0, "\(result?.transcript ?? "did not end within 50 s")")
        }
    }

    /// An import while a recording (a replay through a live builder) writes the same store: both succeed, through
    /// SQLite's WAL mode and the store's busy timeout, and both workouts are there.
    @Test func anImportWhileARecordingRunsBothSucceed() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("store.sqlite")
        let ride = directory.file("ride.fit")
        try Data(ImportTestFiles.ride(power: { UInt64(150 + ($0 * 13) % 200) })).write(to: URL(fileURLWithPath: ride))
        let fixture = Self.fixtures.appendingPathComponent("run-45min.jsonl").path
        let results = try Self.together([
            ["replay", fixture, "--instant", "--store", store], ["import", ride, "--store", store],
        ])
        for result in results {
            #expect(result?.status == 0, "\(result?.transcript ?? "did not end within 50 s")")
        }
        let list = try Tool.run(["list", "--store", store])
        #expect(list.status == 0)
        #expect(list.stdout.contains("Running") || list.stdout.contains("running"), "\(list.stdout)")
        #expect(list.stdout.contains("Cycling") || list.stdout.contains("cycling"), "\(list.stdout)")
    }

    /// A store with a damaged page: one sentence on standard error, exit status 1.
    @Test func aDamagedStoreIsOneSentenceAndANonZeroExit() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("store.sqlite")
        let replay = try Tool.run([
            "replay", Self.fixtures.appendingPathComponent("run-45min.jsonl").path, "--instant",
            "--store", store,
        ])
        #expect(replay.status == 0)
        // Everything in the main file (the write-ahead log checkpointed and emptied), so the damage is not undone
        // by a newer copy of the page in the log.
        let checkpoint = try Self.together(
            [[store, "PRAGMA wal_checkpoint(TRUNCATE);"]],
            executable: URL(fileURLWithPath: "/usr/bin/sqlite3"))
        #expect(checkpoint.first??.status == 0)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: store))
        try handle.seek(toOffset: 4096)  // page 2: the first table made, the migrations' list, read on every open
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 4096))
        try handle.close()
        let list = try Tool.run(["list", "--store", store])
        #expect(list.status == 1)
        #expect(list.stderr.hasPrefix("workout: The health store \(store) is damaged"), "\(list.transcript)")
        #expect(list.stderr.components(separatedBy: "\n").count == 2, "one line: \(list.stderr)")
        // The tool repairs nothing behind the person's back, nor makes it worse: the same sentence again.
        let again = try Tool.run(["list", "--store", store])
        #expect(again.status == 1 && again.stderr == list.stderr)
    }

    /// A GPX track of `count` points, one a second from `start` (FIT-free: the positions become the route).
    static func gpx(_ count: Int, start: Int, longitude: Double) -> String {
        let formatter = ISO8601DateFormatter()
        let points = (0 ..< count).map { second in
            let time = formatter.string(from: Date(timeIntervalSince1970: Double(start + second)))
            return #"<trkpt lat="\#(47 + Double(second) * 1e-4)" lon="\#(longitude)"><time>\#(time)</time></trkpt>"#
        }
        return #"<?xml version="1.0"?><gpx version="1.1" creator="tests"><trk><type>running</type><trkseg>"#
            + points.joined() + "</trkseg></trk></gpx>"
    }

    /// A route whose stored bytes are damaged (cut short by another program): exporting its workout, in any format
    /// that carries positions, is one sentence naming the route and the store and exit status 1, with no file left
    /// behind; the other workout exports, and the list shows both.
    @Test func aDamagedRouteIsOneSentenceAndTheRestOfTheStoreStays() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("store.sqlite")
        var ids: [String] = []
        for (index, start) in [1_731_065_600, 1_731_072_800].enumerated() {
            let file = directory.file("run\(index).gpx")
            try Data(Self.gpx(60, start: start, longitude: 8 + Double(index)).utf8).write(
                to: URL(fileURLWithPath: file))
            let imported = try Tool.run(["import", file, "--store", store])
            #expect(imported.status == 0, "\(imported.transcript)")
            ids.append(try #require(firstWorkoutID(in: imported.stdout)))
        }
        // The first route's bytes cut to 400 (60 locations need 4,804), by sqlite3 as another program would.
        let damage = try Self.together(
            [
                [
                    store,
                    """
                    UPDATE workout_routes SET locations = substr(locations, 1, 400)
                    WHERE sample_id = (SELECT MIN(sample_id) FROM workout_routes);
                    """,
                ]
            ],
            executable: URL(fileURLWithPath: "/usr/bin/sqlite3"))
        #expect(damage.first??.status == 0)
        for format in ["gpx", "tcx", "fit"] {
            let export = try Tool.run(
                ["export", ids[0], "--store", store, "--format", format, "-o", "run.\(format)"],
                directory: directory.path)
            #expect(export.status == 1, "\(format): \(export.transcript)")
            #expect(export.stdout == "")
            #expect(export.stderr.hasPrefix("workout: The workout route "), "\(export.transcript)")
            #expect(
                export.stderr.hasSuffix(" in the health store \(store) is damaged: 400 bytes for 60 locations.\n"),
                "\(export.transcript)")
            #expect(export.stderr.components(separatedBy: "\n").count == 2, "one line: \(export.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory.file("run.\(format)")), "no partial file")
        }
        let other = try Tool.run(
            ["export", ids[1], "--store", store, "--format", "gpx", "-o", "other.gpx"], directory: directory.path)
        #expect(other.status == 0, "\(other.transcript)")
        let exported = try String(contentsOfFile: directory.file("other.gpx"), encoding: .utf8)
        #expect(exported.components(separatedBy: "<trkpt").count == 61, "the other route, whole")
        let list = try Tool.run(["list", "--store", store])
        #expect(list.status == 0, "\(list.transcript)")
        for id in ids { #expect(list.stdout.contains(id), "\(list.stdout)") }
    }
}
