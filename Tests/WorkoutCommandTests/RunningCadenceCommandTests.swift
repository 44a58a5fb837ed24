import FITFile
import Foundation
import TestSupport
import Testing

/// A foot pod's cadence end to end through the real tool: `workout replay` of the foot-pod fixture, `workout show`,
/// `workout export` to FIT (read by Garmin's FIT SDK and fitparse) and TCX, and `workout import` of the FIT file.
/// The expected figures are worked out here from the fixture's own bytes (RSC Measurement: cadence is byte 3, steps a
/// minute), by the rule written down in the test: each reading's cadence counts over the time since the previous one.
@Suite(.blockingWaits, .timeLimit(.minutes(3))) struct RunningCadenceCommandTests {
    /// The fixture's readings: arrival time in seconds and cadence in steps a minute.
    static func readings() throws -> [(time: Double, cadence: Double)] {
        let text = try String(contentsOfFile: fixture("foot-pod-run-20min.jsonl"), encoding: .utf8)
        return try text.split(separator: "\n").dropFirst().map { line in
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let hex = try #require(object["v"] as? String)
            let byte = try #require(UInt8(hex.dropFirst(6).prefix(2), radix: 16))
            return (try #require(object["t"] as? Double), Double(byte))
        }
    }

    /// Average: steps ÷ minutes, each reading after the first counting its cadence since the previous one;
    /// maximum: the highest cadence so counted.
    static func expected() throws -> (average: Double, maximum: Double, steps: Double, counted: [Double]) {
        let all = try readings()
        let pairs = zip(all, all.dropFirst())
        let steps = pairs.reduce(0.0) { $0 + $1.1.cadence * ($1.1.time - $1.0.time) / 60 }
        let minutes = (all.last!.time - all.first!.time) / 60
        let counted = all.dropFirst().map(\.cadence)
        return (steps / minutes, counted.max()!, steps, counted)
    }

    /// `workout record` from a simulated foot pod (its cadence 173 + 3·sin(2πt / 180 s) steps/min, whole: 173 and
    /// 174 in the first 10 s): the summary's cadence is between them, the highest reading 174.
    @Test func aRunRecordedFromAFootPodSaysItsCadence() throws {
        let directory = try TemporaryDirectory()
        let clock = try SteppedClock(directory: directory)
        let socket = directory.file("pod.sock")
        let peripheral = try clock.startPeripheral(["--profile", "foot-pod", "--listen", socket]).member
        defer { SteppedClock.stop([peripheral]) }
        let (recording, result) = try clock.startRecording(
            [
                "--activity", "running", "--sensor", "unix:\(socket)", "--duration", "10", "--store",
                directory.file("pod.sqlite"),
            ], peripherals: [peripheral])
        #expect(clock.runUntilEnded(recording, [peripheral]) == 40)
        let transcript = result().transcript
        let line = transcript.split(separator: "\n").first { $0.hasPrefix("  cadence ") }.map(String.init)
        #expect(
            line == "  cadence         average 173, max 174 steps/min"
                || line == "  cadence         average 174, max 174 steps/min", "\(transcript)")
    }

    /// An imported run with running dynamics (``ImportTestFiles/runWithDynamics(stryd:)``: 60 records of power
    /// 240 + t mod 30 W, stride 1.10–1.19 m, vertical oscillation 8.0–8.4 cm, ground contact 240–259 ms, 3 m/s) and
    /// one with cadence (``ImportTestFiles/run()``: 84.25, 85.25, 86.25 strides a minute by turns, so steps a minute
    /// 168.5, 170.5, 172.5; records 1…119 count: 40 of 170.5, 40 of 172.5, 39 of 168.5, average 170.52): show
    /// lists each type stored, with the figures of the summary.
    @Test func showListsEveryTypeARunStored() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("runs.sqlite")
        let dynamics = directory.file("dynamics.fit")
        try Data(ImportTestFiles.runWithDynamics(stryd: false)).write(to: URL(fileURLWithPath: dynamics))
        let imported = try Tool.run(["import", dynamics, "--store", store])
        #expect(imported.status == 0, "\(imported.stderr)")
        let id = try #require(firstWorkoutID(in: imported.stdout))
        let show = try Tool.run(["show", id, "--store", store])
        // By hand: energy 15,001 J (each power held until the next record: 59 × 240 + 435 + 406 W·s) as 15.0 kcal;
        // distance 59 × 3 m; power average 254.5 W and ground contact 249.5 ms, shown whole from 100 up.
        #expect(
            show.stdout.components(separatedBy: "  Associated samples:\n").last == """
                    active energy        59 samples   total 15.0 kcal
                    distance             59 samples   total 177 m
                    power                60 samples   average 255, max 269 W
                    speed                60 samples   average 3, max 3 m/s
                    stride length        60 samples   average 1.1, max 1.2 m
                    vertical oscillation 60 samples   average 8.2, max 8.4 cm
                    ground contact time  60 samples   average 250, max 259 ms

                """, "\(show.stdout)")

        let run = directory.file("run.fit")
        try Data(ImportTestFiles.run()).write(to: URL(fileURLWithPath: run))
        let second = try Tool.run(["import", run, "--store", directory.file("cadence.sqlite")])
        #expect(second.stdout.contains("\n  cadence         average 171, max 173 steps/min\n"), "\(second.stdout)")
        let runID = try #require(firstWorkoutID(in: second.stdout))
        let listed = try Tool.run(["show", runID, "--store", directory.file("cadence.sqlite")]).stdout
        #expect(
            listed.contains("    steps         119 samples  total 338 count, cadence average 171, max 173 steps/min\n"),
            "\(listed)")
    }

    /// A TCX run of two 5 s laps, `RunCadence` 85 then 88 strides a minute (170 and 176 steps) at each second from
    /// 0 to 10: each second's steps belong to the lap they were taken in, so lap 1 holds 4 s at 170 and the second
    /// from 4 to 5 at 176 (171.2), lap 2 five seconds at 176; the whole run (4 × 170 + 6 × 176) / 10 = 173.6.
    @Test func eachLapHasItsCadence() throws {
        let directory = try TemporaryDirectory()
        func points(_ seconds: Range<Int>, _ cadence: Int) -> String {
            seconds.map { t in
                "<Trackpoint><Time>2026-11-20T07:00:\(t < 10 ? "0" : "")\(t)Z</Time><DistanceMeters>\(3 * t)"
                    + "</DistanceMeters><Extensions><ns3:TPX><ns3:RunCadence>\(cadence)</ns3:RunCadence></ns3:TPX>"
                    + "</Extensions></Trackpoint>"
            }.joined()
        }
        func lap(_ start: Int, _ track: String) -> String {
            "<Lap StartTime=\"2026-11-20T07:00:0\(start)Z\"><TotalTimeSeconds>5</TotalTimeSeconds>"
                + "<DistanceMeters>15</DistanceMeters><Calories>0</Calories><Intensity>Active</Intensity>"
                + "<TriggerMethod>Manual</TriggerMethod><Track>\(track)</Track></Lap>"
        }
        let tcx = directory.file("laps.tcx")
        try
            (#"<?xml version="1.0" encoding="UTF-8"?><TrainingCenterDatabase "#
            + #"xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2" "#
            + #"xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2"><Activities>"#
            + #"<Activity Sport="Running"><Id>2026-11-20T07:00:00Z</Id>"# + lap(0, points(0 ..< 5, 85))
            + lap(5, points(5 ..< 11, 88)) + "</Activity></Activities></TrainingCenterDatabase>")
            .write(toFile: tcx, atomically: true, encoding: .utf8)
        let imported = try Tool.run(["import", tcx, "--store", directory.file("laps.sqlite")])
        #expect(imported.status == 0, "\(imported.stderr)")
        let lines = imported.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("  cadence         average 174, max 176 steps/min"), "\(imported.stdout)")
        let laps = lines.drop { !$0.hasPrefix("  laps") }.prefix(3)
        #expect(
            Array(laps) == [
                "  laps            lap  duration  heart rate  power   cadence",
                "                  1    0:05      –           –       171 steps/min",
                "                  2    0:05      –           –       176 steps/min",
            ], "\(imported.stdout)")
    }

    @Test func footPodRunShowsItsCadenceEverywhere() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("run.sqlite")
        let expected = try Self.expected()
        // Worked out from the fixture: 3459.5 steps in 19:59, 173.1 steps a minute; the highest reading 176.
        #expect(Int(expected.average.rounded()) == 173 && expected.maximum == 176)
        let cadenceLine = "  cadence         average 173, max 176 steps/min"

        let replay = try Tool.run(["replay", fixture("foot-pod-run-20min.jsonl"), "--instant", "--store", store])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.split(separator: "\n").contains { $0 == cadenceLine }, "\(replay.stdout)")
        let id = try #require(firstWorkoutID(in: replay.stdout))

        // show lists every type stored with the workout, with the summary's figures.
        let show = try Tool.run(["show", id, "--store", store])
        #expect(show.status == 0, "\(show.stderr)")
        let listed = show.stdout.components(separatedBy: "  Associated samples:\n").last ?? ""
        #expect(
            listed == """
                    distance      1199 samples total 3969 m
                    steps         1199 samples total 3460 count, cadence average 173, max 176 steps/min
                    speed         1200 samples average 3.3, max 3.6 m/s
                    stride length 1200 samples average 1.1, max 1.2 m

                """)

        // show --json gives the same figures unrounded.
        let json = try Tool.run(["show", id, "--json", "--store", store])
        let object = try #require(try JSONSerialization.jsonObject(with: json.output) as? [String: Any])
        let running = try #require(object["runningCadence"] as? [String: Any])
        #expect(abs((running["average"] as? Double ?? 0) - expected.average) < 0.05, "\(running)")
        #expect(abs((running["maximum"] as? Double ?? 0) - expected.maximum) < 0.1, "\(running)")
        #expect(running["unit"] as? String == "count/min")

        // FIT: each record's cadence (field 4) and fractional_cadence (53, 1/128) is the reading's, in strides
        // (two steps) a minute; the session's average (18 + 92) and maximum (19 + 93), and its strides (10 + 94).
        // Within 0.05 strides a minute: a sample's steps are kept to a thousandth of a step (with the running total's
        // rounding, at most 0.001 step off over about a second: 0.03 strides a minute), and FIT keeps 1/128.
        let fit = directory.file("run.fit")
        let exported = try Tool.run(["export", id, "--store", store, "--output", fit])
        #expect(exported.status == 0, "\(exported.stderr)")
        for reader in ["decode-garmin", "decode-fitparse"] {
            let messages = try ExportOracle.decode(reader, path: fit)
            let cadences = messages.filter { $0.number == Int(FITMessageNumber.record) }.compactMap { record in
                record.number(4).map { $0 + (record.number(53) ?? 0) / 128 }
            }
            #expect(cadences.count == expected.counted.count, "\(reader)")
            let worst = zip(cadences, expected.counted).map { abs($0 - $1 / 2) }.max() ?? .infinity
            #expect(worst < 0.05, "\(reader): a record's cadence is off by \(worst) strides a minute")
            let session = try #require(messages.first { $0.number == Int(FITMessageNumber.session) })
            let average = try #require(session.number(18)) + (session.number(92) ?? 0) / 128
            let maximum = try #require(session.number(19)) + (session.number(93) ?? 0) / 128
            let strides = try #require(session.number(10)) + (session.number(94) ?? 0) / 128
            #expect(abs(average - expected.average / 2) < 0.05, "\(reader): average \(average)")
            #expect(abs(maximum - expected.maximum / 2) < 0.05, "\(reader): maximum \(maximum)")
            #expect(abs(strides - expected.steps / 2) < 0.5, "\(reader): strides \(strides)")
        }

        // Imported back, the file's cadence is the workout's again.
        let imported = try Tool.run(["import", fit, "--store", directory.file("back.sqlite")])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.split(separator: "\n").contains { $0 == cadenceLine }, "\(imported.stdout)")

        // TCX: a run's cadence in TPX/RunCadence (strides a minute, whole), never in the bike's Cadence.
        let tcx = directory.file("run.tcx")
        #expect(try Tool.run(["export", id, "--store", store, "--format", "tcx", "--output", tcx]).status == 0)
        let xml = try String(contentsOfFile: tcx, encoding: .utf8)
        let values = xml.matches(of: try Regex("<ns3:RunCadence>([0-9]+)</ns3:RunCadence>")).compactMap {
            $0.output[1].substring.flatMap { Double($0) }
        }
        #expect(values.count == expected.counted.count)
        #expect(zip(values, expected.counted).allSatisfy { abs($0 - $1 / 2) <= 0.55 })
        #expect(!xml.contains("<Cadence>"))
        #expect(xml.contains("<ns3:AvgRunCadence>87</ns3:AvgRunCadence><ns3:MaxRunCadence>88</ns3:MaxRunCadence>"))
        let fromTCX = try Tool.run(["import", tcx, "--store", directory.file("tcx.sqlite")])
        #expect(fromTCX.status == 0, "\(fromTCX.stderr)")
        // Whole strides a minute: the readings' 86.5 come back as 86 or 87, the average still 173.
        #expect(
            fromTCX.stdout.split(separator: "\n").contains { $0.hasPrefix("  cadence         average 173, max ") },
            "\(fromTCX.stdout)")

        // Condensed into series, the step samples give the same figures.
        #expect(try Tool.run(["condense", "--all", "--store", store]).status == 0)
        let condensed = try Tool.run(["show", id, "--store", store])
        #expect(
            condensed.stdout.contains(
                "    steps         1 sample     total 3460 count, cadence average 173, max 176 steps/min\n"),
            "\(condensed.stdout)")
    }
}
