import Foundation
import Testing

/// `workout import`, `workout fixture` and `workout show --json` run as a person would, in a child process.
@Suite struct ImportCommandTests {
    static var tool: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent().appendingPathComponent("workout")
    }

    func workout(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = Self.tool
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    @Test(.timeLimit(.minutes(1)))
    func importTwiceWithABadFileThenShowAsJSON() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("import-cli-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("store.sqlite").path
        let ride = directory.appendingPathComponent("ride.fit").path
        let bad = directory.appendingPathComponent("bad.fit").path
        try Data(ImportTestFiles.ride(power: { UInt64(150 + ($0 * 13) % 200) })).write(to: URL(fileURLWithPath: ride))
        try Data("not a FIT file at all".utf8).write(to: URL(fileURLWithPath: bad))

        let first = try workout(["import", bad, ride, "--store", store])
        #expect(first.status == 1)
        #expect(first.stderr == "workout: \(bad): no \".FIT\" signature in the header: not a FIT file at byte offset 8.\n")
        #expect(first.stdout.contains("Imported \(ride) (FIT, 120 records)."))
        #expect(first.stdout.contains("  heart rate      average "))
        let id = try #require(first.stdout.split(separator: " ").drop { $0 != "workout" }.dropFirst().first.map(String.init))

        let again = try workout(["import", ride, "--store", store])
        #expect(again.status == 0)
        #expect(again.stdout == "\(ride) was already imported as workout \(id); nothing saved.\n")

        let show = try workout(["show", id, "--json", "--store", store])
        #expect(show.status == 0, "\(show.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])
        let np = try #require(object["normalizedPower"] as? Double)
        let statistics = try #require(object["statistics"] as? [String: Any])
        let power = try #require((statistics["CyclingPower"] as? [String: Any])?["average"] as? Double)
        #expect(np > power)  // a varying power: the 4th-power mean weighs the peaks
        let zones = try #require((object["timeInZones"] as? [String: Any])?["HeartRate"] as? [[String: Any]])
        let total = zones.compactMap { $0["duration"] as? Double }.reduce(0, +)
        #expect(abs(total - 120) < 1e-6, "time in zones adds up to the 120 s of moving time, not \(total)")

        let fixture = directory.appendingPathComponent("ride.jsonl").path
        let made = try workout(["fixture", ride, "--output", fixture])
        #expect(made.status == 0)
        #expect(made.stdout == "Wrote \(fixture): cycling, 2:30, 240 notifications from 120 records.\n")
    }
}
