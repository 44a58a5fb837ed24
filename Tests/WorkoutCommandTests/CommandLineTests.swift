import Foundation
import Testing

/// Runs the built `workout` tool as a person would, in a child process.
@Suite(.timeLimit(.minutes(1))) struct CommandLineTests {
    /// Runs the tool (through the target's shared runner).
    func workout(_ arguments: [String], environment: [String: String] = [:]) throws -> Tool.Result {
        try Tool.run(arguments, environment: environment)
    }

    @Test
    func demoSavesIntoTheDefaultStoreAndPrintsItBack() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("default.sqlite")
        let demo = try workout(["demo"], environment: ["OPENHEALTHKIT_STORE": path])
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(demo.stdout.contains("Saved a run to \(path)"))
        #expect(demo.stdout.contains("heart rate    360 samples"))
        #expect(demo.stdout.contains("distance      30 samples   total 5364 m"))
        let list = try workout(["list", "--store", path])
        #expect(list.status == 0)
        #expect(list.stdout.contains("running"))
        #expect(list.stdout.contains("5.36 km"))
    }

    @Test
    func badInputIsOneSentenceAndNonZeroExit() throws {
        let directory = try TemporaryDirectory()
        let asDirectory = try workout(["list", "--store", directory.path])
        #expect(asDirectory.status == 1)
        #expect(asDirectory.stderr == "workout: The health store path \(directory.path) is a directory, not a file.\n")
        let garbage = directory.file("garbage.sqlite")
        try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: garbage))
        let notAStore = try workout(["list", "--store", garbage])
        #expect(notAStore.status == 1)
        #expect(notAStore.stderr.contains("is not an OpenHealthKit store"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: garbage)) == Data(repeating: 7, count: 4096))
        let unknown = try workout(["show", "nope", "--store", directory.file("empty.sqlite")])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("No workout's ID starts with 'nope'"))
        let badLimit = try workout(["list", "--limit", "0", "--store", directory.file("empty.sqlite")])
        #expect(badLimit.status != 0)
        #expect(badLimit.stderr.contains("--limit must be a positive number"))
    }
}

@Suite(.timeLimit(.minutes(1))) struct ManageCommandTests {
    let cli = CommandLineTests()
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures")

    @Test func showAsJSONThenDelete() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("manage.sqlite")
        let replay = try cli.workout(["replay", Self.fixtures.appendingPathComponent("run-45min.jsonl").path, "--instant", "--store", store])
        #expect(replay.status == 0, "\(replay.stderr)")
        let id = try #require(cli.workout(["list", "--store", store]).stdout.split(separator: "\n").dropFirst().first?.prefix(8))
        let shown = try cli.workout(["show", String(id), "--json", "--store", store])
        #expect(shown.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        #expect(object["activityType"] as? String == "running")
        #expect(object["duration"] as? Double == 2700)
        let heart = try #require((object["statistics"] as? [String: Any])?["HeartRate"] as? [String: Any])
        #expect(heart["unit"] as? String == "count/min")
        #expect((heart["maximum"] as? Double ?? 0) > 100)
        let chartPath = directory.file("run.svg")
        let charted = try cli.workout(["show", String(id), "--chart", chartPath, "--store", store])
        #expect(charted.status == 0 && charted.stderr.contains("Wrote the chart"))
        let svg = try String(contentsOfFile: chartPath, encoding: .utf8)
        #expect(svg.hasPrefix("<svg") && svg.hasSuffix("</svg>\n"))
        #expect(svg.contains("<polyline") && svg.contains("Time in heart-rate zones"))
        #expect(svg.components(separatedBy: "Z5").count >= 3)  // band label and bar label
        let badChart = try cli.workout(["show", String(id), "--chart", directory.path + "/missing/dir/x.svg", "--store", store])
        #expect(badChart.status == 1 && badChart.stderr.contains("The chart cannot be written"))
        let deleted = try cli.workout(["delete", String(id), "--store", store])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stdout.contains("and 2701 samples"))
        #expect(try cli.workout(["list", "--store", store]).stdout.contains("No workouts"))
        let again = try cli.workout(["delete", String(id), "--store", store])
        #expect(again.status == 1 && again.stderr.contains("No workout's ID starts with"))
    }

    @Test func killedReplayIsRecoveredAndSaved() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("recover.sqlite")
        let process = Process()
        process.executableURL = Tool.url
        process.arguments = ["replay", Self.fixtures.appendingPathComponent("run-45min.jsonl").path, "--speed", "120", "--store", store]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // Piped, the replay prints a line per minute of workout time: wait for two, then kill it.
        var lines = 0
        var buffer = Data()
        while lines < 4 {  // the two header lines, then 0:00 and 1:00
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            lines = buffer.filter { $0 == 0x0A }.count
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(lines >= 4)
        let offered = try cli.workout(["recover", "--store", store])
        #expect(offered.status == 0, "\(offered.stderr)")
        #expect(offered.stdout.contains("Interrupted running workout"))
        let saved = try cli.workout(["recover", "--finish", "--store", store])
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stdout.contains("Saved as workout"))
        #expect(try cli.workout(["list", "--store", store]).stdout.contains("running"))
        #expect(try cli.workout(["recover", "--store", store]).stdout.contains("No interrupted workout"))
        let both = try cli.workout(["recover", "--finish", "--discard", "--store", store])
        #expect(both.status != 0 && both.stderr.contains("Choose --finish or --discard"))
    }
}
