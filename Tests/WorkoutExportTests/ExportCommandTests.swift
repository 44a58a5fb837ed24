import FITFile
import Foundation
import Testing

/// `workout export` run as a person would, in a child process, on a store the `workout import` command filled.
@Suite struct ExportCommandTests {
    static var tool: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent().appendingPathComponent("workout")
    }

    func workout(_ arguments: [String], in directory: String) throws -> (status: Int32, stdout: Data, stderr: String) {
        let process = Process()
        process.executableURL = Self.tool
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = "UTC"  // the default file name is in local time
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, stdout, String(decoding: stderr, as: UTF8.self))
    }

    @Test(.timeLimit(.minutes(1)))
    func exportWritesWholeFilesAndSaysWhyNot() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("export-cli-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/store.sqlite"
        try ExportOracle.run(["encode-activity", directory + "/garmin.fit", "120"])
        let imported = try workout(["import", "garmin.fit", "--store", store], in: directory)
        #expect(imported.status == 0, "\(imported.stderr)")
        let id = try #require(String(decoding: imported.stdout, as: UTF8.self).split(separator: " ")
            .drop { $0 != "workout" }.dropFirst().first.map { String($0.prefix(8)) })

        // The default name: the start (FIT time 1 100 000 000 = 2024-11-08 11:33:20 UTC) and the activity.
        let fit = try workout(["export", id, "--store", store], in: directory)
        #expect(fit.status == 0, "\(fit.stderr)")
        #expect(String(decoding: fit.stdout, as: UTF8.self) == "Wrote 2024-11-08-1133-cycling.fit: cycling, 90 records, 1 session.\n")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/2024-11-08-1133-cycling.fit")))
        #expect(try FITDecoder.messages(bytes).filter { $0.globalMessageNumber == FITMessageNumber.record }.count == 90,
                "120 s less the 30 s pause from 60 s")

        // `-` writes the same bytes to standard output.
        let piped = try workout(["export", id, "--store", store, "--output", "-"], in: directory)
        #expect(piped.status == 0 && [UInt8](piped.stdout) == bytes)

        // An unknown ID, an unwritable path, a GPX without a route: one sentence, exit 1, no file left behind.
        let unknown = try workout(["export", "FFFFFFFF", "--store", store], in: directory)
        #expect(unknown.status == 1 && unknown.stderr == "workout: No workout's ID starts with 'FFFFFFFF'; `workout list` shows them.\n")
        let blocked = directory + "/garmin.fit/ride.tcx"  // a file where a directory should be
        let unwritable = try workout(["export", id, "--store", store, "--format", "tcx", "-o", blocked], in: directory)
        #expect(unwritable.status == 1)
        #expect(unwritable.stderr == "workout: \(blocked) cannot be written (no such directory, or no permission).\n")
        let gpx = try workout(["export", id, "--store", store, "--format", "gpx", "-o", "ride.gpx"], in: directory)
        #expect(gpx.status == 1 && gpx.stderr.hasPrefix("workout: The workout ") && gpx.stderr.contains("has no route, so it has no GPX"))
        let left = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(!left.contains { $0.contains("partial") || $0 == "ride.gpx" }, "\(left)")
    }
}
