import Foundation
import Testing

/// `workout plan import|list|show|export`, the real tool in a child process.
@Suite(.blockingWaits, .timeLimit(.minutes(2))) struct PlanCommandTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("OpenWorkoutKitTests/Fixtures/samples")

    @Test func aWorkoutFileGoesInAndComesOutByteForByte() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("plans.sqlite")
        let sample = Self.samples.appendingPathComponent("custom-hiit-mixed.workout").path
        let imported = try Tool.run(["plan", "import", sample, "--store", store])
        #expect(imported.transcript == "1\n")
        let shown = try Tool.run(["plan", "show", "1", "--store", store])
        #expect(
            shown.transcript == """
                Plan 1: Pyramid HIIT — custom high-intensity interval training workout, 10 steps, total 12:00
                  warm-up   5:00      no target
                  block 1 × 2
                    work      0:30      no target  "Hard"
                    recovery  0:15      no target
                  block 2 × 2
                    work      0:45      no target  "Harder"
                    recovery  0:30      no target
                  cool-down 3:00      no target

                """)
        let listed = try Tool.run(["plan", "list", "--store", store])
        #expect(listed.transcript == "1\tPyramid HIIT\t10 steps\t12:00\tfrom custom-hiit-mixed.workout\n")
        let output = directory.file("back.workout")
        let exported = try Tool.run([
            "plan", "export", "1", "--format", "workout", "--output", output, "--store", store,
        ])
        #expect(exported.transcript == "")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data(contentsOf: URL(fileURLWithPath: sample)))
    }

    @Test func aZwiftWorkoutIsImportedAtTheProfilesFTPAndExported() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("plans.sqlite")
        let zwo = directory.file("threshold.zwo")
        try """
        <workout_file><name>Threshold</name><sportType>bike</sportType><workout>
        <SteadyState Duration="600" Power="0.6"/>
        <IntervalsT Repeat="3" OnDuration="480" OffDuration="120" OnPower="1" OffPower="0.5"/>
        </workout></workout_file>
        """.write(toFile: zwo, atomically: true, encoding: .utf8)
        let noFTP = try Tool.run(["plan", "import", zwo, "--store", store])
        #expect(noFTP.status != 0)
        #expect(noFTP.stderr.contains("threshold.zwo: .zwo gives power as a fraction of FTP"))
        #expect(try Tool.run(["profile", "--ftp", "240", "--store", store]).status == 0)
        #expect(try Tool.run(["plan", "import", zwo, "--store", store]).transcript == "1\n")
        let shown = try Tool.run(["plan", "show", "1", "--store", store])
        #expect(shown.stdout.hasPrefix("Plan 1: Threshold — custom cycling workout, 7 steps, total 40:00\n"))
        #expect(shown.stdout.contains("    work      8:00      240 W  \"On\"\n"))
        #expect(shown.stdout.contains("    recovery  2:00      120 W  \"Off\"\n"))
        let erg = try Tool.run(["plan", "export", "1", "--format", "erg", "--store", store])
        #expect(
            erg.stdout.contains(
                "MINUTES WATTS\n[END COURSE HEADER]\n[COURSE DATA]\n0\t144\n10\t144\n10\t240\n18\t240\n"))
        let again = try Tool.run(["plan", "export", "1", "--format", "zwo", "--store", store])
        #expect(
            again.stdout.contains(
                "<IntervalsT Repeat=\"3\" OnDuration=\"480\" OffDuration=\"120\" OnPower=\"1\" OffPower=\"0.5\"/>"))
    }

    @Test func badFilesSayWhatIsWrongAndSaveNothing() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("plans.sqlite")
        let sample = try Data(contentsOf: Self.samples.appendingPathComponent("custom-pool-swim.workout"))
        let cases: [(String, Data, String)] = [
            (
                "cut.workout", sample.prefix(120),
                "cut.workout is not a workout plan: field 11 of the workout plan claims"
            ),
            ("empty.zwo", Data("<workout_file><workout></workout></workout_file>".utf8), "empty.zwo: has no steps."),
            (
                "big.erg",
                Data("[COURSE HEADER]\nMINUTES WATTS\n[END COURSE HEADER]\n[COURSE DATA]\n0 100000\n5 100000\n".utf8),
                "big.erg: step 1 of block 1: a power target must be above 0 to 3000 W, not 100000 W."
            ),
            ("route.zwo", Data("<gpx><trk/></gpx>".utf8), "route.zwo: is XML but not a Zwift workout"),
            (
                "long.zwo",
                Data(
                    "<workout_file><workout><SteadyState Duration=\"90000\" Power=\"0.5\"/></workout></workout_file>"
                        .utf8),
                "long.zwo: step 1 of block 1: a time goal must be above 0 and at most a day"
            ),
            (
                "many.zwo",
                Data(
                    "<workout_file><workout><IntervalsT Repeat=\"1000000\" OnDuration=\"1\" OffDuration=\"1\" OnPower=\"1\" OffPower=\"1\"/></workout></workout_file>"
                        .utf8), "many.zwo: block 1 repeats 1000000 times"
            ),
        ]
        for (name, data, expected) in cases {
            let file = directory.file(name)
            try data.write(to: URL(fileURLWithPath: file))
            let result = try Tool.run(["plan", "import", file, "--store", store, "--ftp", "250"])
            #expect(result.status != 0, "\(name)")
            #expect(result.stdout.isEmpty)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(name): \(result.stderr)")
            #expect(result.stderr.hasPrefix("workout: \(expected)"), "\(name): \(result.stderr)")
        }
        #expect(
            try Tool.run(["plan", "list", "--store", store]).stdout
                == "No plans; `workout plan import FILE` adds one.\n")
        let missing = try Tool.run(["plan", "show", "7", "--store", store])
        #expect(
            missing.transcript
                == "--- stderr\nworkout: There is no plan 7; `workout plan list` lists them.\n--- exit 1\n")
    }

    @Test func aPlanAttachedToAWorkoutIsShownWithIt() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("plans.sqlite")
        let demo = try Tool.run(["demo", "--store", store])
        #expect(demo.status == 0, "\(demo.stderr)")
        let id = try #require(firstWorkoutID(in: demo.stdout))
        let before = try Tool.run(["show", id, "--store", store])
        #expect(!before.stdout.contains("  plan "))
        let sample = Self.samples.appendingPathComponent("custom-pool-swim.workout").path
        #expect(try Tool.run(["plan", "import", sample, "--store", store]).transcript == "1\n")
        #expect(try Tool.run(["plan", "attach", "1", "--workout", id, "--store", store]).transcript == "")
        let after = try Tool.run(["show", id, "--store", store])
        #expect(after.stdout.contains("  plan       Budapest Swim #2 - Endurance, 11 steps\n"))
        let unknown = try Tool.run(["plan", "attach", "1", "--workout", UUID().uuidString, "--store", store])
        #expect(unknown.status != 0 && unknown.stderr.contains("No workout's ID starts with"))
    }
}
