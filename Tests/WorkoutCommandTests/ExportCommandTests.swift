import FITFile
import Foundation
import TestSupport
import Testing

/// `workout export` run as a person would, in a child process, on a store the `workout import` command filled.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct ExportCommandTests {
    /// The default file name is in local time: the tests fix it to UTC.
    static let utc = ["TZ": "UTC"]

    @Test func exportWritesWholeFilesAndSaysWhyNot() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("store.sqlite")
        try ExportOracle.run(["encode-activity", directory.file("garmin.fit"), "120"])
        let imported = try Tool.run(["import", "garmin.fit", "--store", store], directory: directory.path)
        #expect(imported.status == 0, "\(imported.stderr)")
        let id = try #require(firstWorkoutID(in: imported.stdout))

        // The default name: the start (FIT time 1 100 000 000 = 2024-11-08 11:33:20 UTC) and the activity; 120 s less
        // the 30 s pause from 60 s: 90 records.
        let fit = try Tool.run(["export", id, "--store", store], environment: Self.utc, directory: directory.path)
        #expect(fit.transcript == "Wrote 2024-11-08-1133-cycling.fit: cycling, 90 records, 1 session.\n")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file("2024-11-08-1133-cycling.fit"))))
        #expect(try FITDecoder.messages(bytes).filter { $0.globalMessageNumber == FITMessageNumber.record }.count == 90)

        // The default name never writes over a file: exported again, the workout goes to -2 and the first file stays.
        let again = try Tool.run(["export", id, "--store", store], environment: Self.utc, directory: directory.path)
        #expect(again.transcript == "Wrote 2024-11-08-1133-cycling-2.fit: cycling, 90 records, 1 session.\n")
        #expect(
            try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file("2024-11-08-1133-cycling.fit")))) == bytes)

        // `-` writes the same bytes to standard output, and nothing else.
        let piped = try Tool.run(
            ["export", id, "--store", store, "--output", "-"], environment: Self.utc, directory: directory.path)
        #expect(piped.status == 0 && piped.stderr == "" && [UInt8](piped.output) == bytes)

        // An unknown ID, an unwritable path, a GPX without a route: one sentence, exit 1, no file left behind.
        let unknown = try Tool.run(["export", "FFFFFFFF", "--store", store], directory: directory.path)
        #expect(
            unknown.transcript == """
                --- stderr
                workout: No workout's ID starts with 'FFFFFFFF'; `workout list` shows them.
                --- exit 1

                """)
        let blocked = directory.file("garmin.fit/ride.tcx")  // a file where a directory should be
        let unwritable = try Tool.run(
            ["export", id, "--store", store, "--format", "tcx", "-o", blocked], directory: directory.path)
        #expect(
            normalized(unwritable.transcript, directory: directory.path) == """
                --- stderr
                workout: DIR/garmin.fit/ride.tcx cannot be written (no such directory, or no permission).
                --- exit 1

                """)
        let gpx = try Tool.run(
            ["export", id, "--store", store, "--format", "gpx", "-o", "ride.gpx"], directory: directory.path)
        #expect(
            normalized(gpx.transcript, directory: directory.path) == """
                --- stderr
                workout: The workout UUID has no route, so it has no GPX (a GPX track point needs a position); export it as FIT or TCX.
                --- exit 1

                """)
        // SQLite's own WAL companions (store.sqlite-wal, -shm) may outlive a command whose store closed at exit.
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            .filter { !$0.hasPrefix("store.sqlite-") }
        #expect(
            left == ["2024-11-08-1133-cycling-2.fit", "2024-11-08-1133-cycling.fit", "garmin.fit", "store.sqlite"],
            "no partial file, no ride.gpx")
    }
}

extension ExportCommandTests {
    /// The time zone moves only what is local (issue 37): the default file name and FIT's `activity.local_timestamp`
    /// (the offset in force at the workout's end, summer time included: Sydney is at +11 in November), never a
    /// timestamp (FIT's are UTC, TCX's end in Z), so the TCX is the same bytes in every zone.
    @Test func aTimeZoneMovesTheLocalTimesOnly() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("store.sqlite")
        try ExportOracle.run(["encode-activity", directory.file("garmin.fit"), "120"])
        let imported = try Tool.run(["import", "garmin.fit", "--store", store], directory: directory.path)
        let id = try #require(firstWorkoutID(in: imported.stdout), "\(imported.transcript)")
        var tcxs: Set<String> = []
        for (zone, offset, name) in [
            ("UTC", 0, "2024-11-08-1133-cycling.fit"),
            ("America/New_York", -5 * 3600, "2024-11-08-0633-cycling.fit"),
            ("Europe/Berlin", 3600, "2024-11-08-1233-cycling.fit"),
            ("Australia/Sydney", 11 * 3600, "2024-11-08-2233-cycling.fit"),
        ] {
            let fit = try Tool.run(
                ["export", id, "--store", store], environment: ["TZ": zone], directory: directory.path)
            #expect(fit.transcript == "Wrote \(name): cycling, 90 records, 1 session.\n", "\(zone)")
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file(name))))
            let activity = try #require(
                try FITDecoder.messages(bytes).first { $0.globalMessageNumber == FITMessageNumber.activity })
            let timestamp = try #require(activity[253]?.number), local = try #require(activity[5]?.number)
            #expect(Int(local - timestamp) == offset, "\(zone)")
            let tcx = try Tool.run(
                ["export", id, "--store", store, "--format", "tcx", "--output", "-"], environment: ["TZ": zone],
                directory: directory.path)
            #expect(tcx.status == 0, "\(tcx.stderr)")
            tcxs.insert(tcx.stdout)
        }
        #expect(tcxs.count == 1)
        #expect(tcxs.first?.contains("<Id>2024-11-08T11:33:20Z</Id>") == true, "\(tcxs.first?.prefix(600) ?? "")")
    }
}
