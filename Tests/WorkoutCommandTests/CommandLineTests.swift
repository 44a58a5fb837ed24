import Foundation
import TestSupport
import Testing

/// Runs the built `workout` tool as a person would, in a child process.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct CommandLineTests {
    /// Runs the tool (through the target's shared runner).
    func workout(_ arguments: [String], environment: [String: String] = [:]) throws -> Tool.Result {
        try Tool.run(arguments, environment: environment)
    }

    @Test
    func demoSavesIntoTheDefaultStoreAndPrintsItBack() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("default.sqlite")
        // The demo: a 30-minute run ending now, heart rate every 5 s (360), energy and distance every minute (30); its
        // time in zones adds up to the 30:00 (3:35 + 2:25 + 13:50 + 10:10).
        let demo = try workout(["demo"], environment: ["OPENHEALTHKIT_STORE": path])
        #expect(
            normalized(demo.transcript, directory: directory.path, datesOfNow: true) == """
                Saved a run to DIR/default.sqlite.

                Workout UUID
                  activity   running
                  start      DATE
                  duration   30:00
                  distance   5.36 km
                  energy     345 kcal

                  time in zones   heart rate, system zones
                    activity        Z1       Z2       Z3       Z4       Z5
                    bpm             < 137    137–147  148–158  159–169  ≥ 170
                    running         3:35     2:25     13:50    10:10    0:00
                  laps            none

                  Associated samples:
                    heart rate    360 samples  average 152, max 164 bpm
                    active energy 30 samples   total 345 kcal
                    distance      30 samples   total 5364 m

                """)
        let id = try #require(firstWorkoutID(in: demo.stdout))
        let list = try workout(["list", "--store", path])
        #expect(
            normalized(list.transcript, directory: directory.path, datesOfNow: true) == """
                ID        Start             Activity        Duration  Distance
                \(id)  DATE  running         30:00     5.36 km

                """)
    }

    @Test
    func badInputIsOneSentenceAndNonZeroExit() throws {
        let directory = try TemporaryDirectory()
        let asDirectory = try workout(["list", "--store", directory.path])
        #expect(
            normalized(asDirectory.transcript, directory: directory.path) == """
                --- stderr
                workout: The health store path DIR is a directory, not a file.
                --- exit 1

                """)
        let garbage = directory.file("garbage.sqlite")
        try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: garbage))
        let notAStore = try workout(["list", "--store", garbage])
        #expect(
            normalized(notAStore.transcript, directory: directory.path) == """
                --- stderr
                workout: The file DIR/garbage.sqlite is not an OpenHealthKit store (not an SQLite database).
                --- exit 1

                """)
        #expect(try Data(contentsOf: URL(fileURLWithPath: garbage)) == Data(repeating: 7, count: 4096))
        let unknown = try workout(["show", "nope", "--store", directory.file("empty.sqlite")])
        #expect(
            unknown.transcript == """
                --- stderr
                workout: No workout's ID starts with 'nope'; `workout list` shows them.
                --- exit 1

                """)
        let badLimit = try workout(["list", "--limit", "0", "--store", directory.file("empty.sqlite")])
        #expect(
            badLimit.transcript == """
                --- stderr
                Error: --limit must be a positive number, not 0.
                Usage: workout list [--store <PATH>] [--limit <limit>]
                  See 'workout list --help' for more information.
                --- exit 64

                """)
    }
}

extension CommandLineTests {
    /// `workout --help` as an 80-column terminal shows it (the width ArgumentParser wraps to when the output is not
    /// a terminal): every example is a command, or a description under a long command, and no description is wrapped
    /// back to the first column.
    @Test func helpExamplesFitEightyColumns() throws {
        let help = try workout(["--help"])
        #expect(help.status == 0)
        let lines = help.stdout.components(separatedBy: "\n")
        let examples = lines.drop { $0 != "Examples:" }.dropFirst().prefix { !$0.isEmpty }
        #expect(examples.count >= 20)
        for line in examples {
            #expect(
                line.hasPrefix("  workout ") || line.hasPrefix(String(repeating: " ", count: 36)), "wrapped: \(line)")
            #expect(line.count <= 80, "too wide: \(line)")
        }
    }

    /// Every subcommand's help reads as paragraphs in an 80-column terminal: no line of its description is cut short
    /// by a line break in the source (which ArgumentParser keeps, so the paragraph came out ragged), and none is
    /// wider than 80 columns except the usage line ArgumentParser writes itself.
    @Test func everySubcommandsHelpIsParagraphs() throws {
        let top = try workout(["--help"]).stdout.components(separatedBy: "\n")
        let names = top.drop { $0 != "SUBCOMMANDS:" }.dropFirst().prefix { !$0.isEmpty }
            .filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }.compactMap {
                $0.split(separator: " ").first.map(String.init)
            }
        #expect(names.count >= 20)
        for name in names {
            let lines = try workout([name, "--help"]).stdout.components(separatedBy: "\n")
            for example in lines.drop(while: { !$0.hasPrefix("Example") }).dropFirst().prefix(while: { !$0.isEmpty }) {
                #expect(example.hasPrefix("  "), "workout \(name) --help, an example wrapped: \(example)")
            }
            for (line, next) in zip(lines, lines.dropFirst()) where !line.hasPrefix("USAGE:") {
                #expect(line.count <= 80, "workout \(name) --help, too wide: \(line)")
                let prose = { (text: String) in !text.isEmpty && !text.hasPrefix(" ") && !text.hasPrefix("USAGE:") }
                if prose(line), prose(next), !line.hasSuffix(":") {
                    #expect(line.count >= 50, "workout \(name) --help, a line cut short: \(line)")
                }
            }
        }
    }
}

@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct ManageCommandTests {
    let cli = CommandLineTests()
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures")

    @Test func showAsJSONThenDelete() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("manage.sqlite")
        let replay = try cli.workout([
            "replay", Self.fixtures.appendingPathComponent("run-45min.jsonl").path, "--instant", "--store", store,
        ])
        #expect(replay.status == 0, "\(replay.stderr)")
        let id = try #require(
            cli.workout(["list", "--store", store]).stdout.split(separator: "\n").dropFirst().first?.prefix(8))
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
        let badChart = try cli.workout([
            "show", String(id), "--chart", directory.path + "/missing/dir/x.svg", "--store", store,
        ])
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
        // Two minutes of the run at 120× on the stepped clock (1 s of its time, 8 ms at a time), then killed.
        let clock = try SteppedClock(directory: directory)
        let process = Process()
        process.standardInput = FileHandle.nullDevice
        process.arguments = [
            "replay", Self.fixtures.appendingPathComponent("run-45min.jsonl").path, "--speed", "120", "--store", store,
        ]
        process.standardOutput = FileHandle.nullDevice
        let replay = try clock.start(process)
        #expect(clock.run(replay, milliseconds: 8, limit: 125) == 125)
        process.killGroup()
        process.waitUntilExit(within: 10)
        // The stepped clock starts at 2025-09-19 18:40:00 UTC. A crash loses what was buffered (readings younger than
        // a second of the store's clock: up to two minutes of workout at 120×). The kill lands on the step of a
        // flush tick, so whether that tick's write reached the file before the kill is the machine's timing: the
        // journal holds the first 0:59 (average 100 bpm, fixtures/run-45min.jsonl's warm-up) or 1:00 (101 bpm).
        // Both outcomes are spelled out; everything else is compared as printed.
        let utc = ["TZ": "UTC"]
        let offered = try Tool.run(["recover", "--store", store], environment: utc)
        let kept =
            offered.stdout.contains(", 1:00 in, ")
            ? (time: "1:00", until: "18:41", heartRate: 101) : (time: "0:59", until: "18:40", heartRate: 100)
        let interrupted = """
            Interrupted running workout, started 2025-09-19 18:40, session running.
              data until 2025-09-19 \(kept.until), \(kept.time) in, average heart rate \(kept.heartRate) bpm

            """
        #expect(
            offered.transcript == interrupted
                + "Run `workout recover --finish` to save it or `workout recover --discard` to drop it.\n")
        let saved = try Tool.run(["recover", "--finish", "--store", store], environment: utc)
        let id = try #require(saved.stdout.firstMatch(of: /Saved as workout ([0-9A-F]{8})/).map { String($0.output.1) })
        #expect(saved.transcript == interrupted + "Saved as workout \(id) (\(kept.time)).\n")
        #expect(
            try Tool.run(["list", "--store", store], environment: utc).transcript == """
                ID        Start             Activity        Duration  Distance
                \(id)  2025-09-19 18:40  running         \(kept.time)      –

                """)
        #expect(
            try cli.workout(["recover", "--store", store]).transcript
                == "No interrupted workout to recover in \(store).\n")
        let both = try cli.workout(["recover", "--finish", "--discard", "--store", store])
        #expect(both.status != 0 && both.stderr.contains("Choose --finish or --discard"))
    }
}
