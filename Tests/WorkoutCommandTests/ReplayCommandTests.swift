import Foundation
import Testing

/// `workout replay` run as a person runs it, output piped: whole transcripts.
@Suite(.timeLimit(.minutes(1))) struct ReplayCommandTests {
    /// The fixture is 10 minutes of a strap at 1 Hz with 16 notifications garbled on purpose (its scenario,
    /// `malformed-notifications`). The store is new, so the zones are the system ones from resting 72 and maximum
    /// 180 bpm: 72 + 0.6/0.7/0.8/0.9 × 108 = 136.8/147.6/158.4/169.2 (Apple's example boundaries), shown in whole bpm.
    @Test func pipedInstantReplayPrintsTheSummary() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("s.sqlite")
        let file = fixture("malformed-notifications.jsonl")
        let result = try Tool.run(["replay", file, "--instant", "--store", store])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        #expect(normalized(result.stdout, directory: directory.path) == """
            Replaying \(file) (running, 10:00, 601 notifications from Polar H10 8A1C2D3E) instantly.
            Saved workout UUID (running) to DIR/s.sqlite.
            \(Self.malformedSummary)
            """)
    }

    /// The summary of `malformed-notifications.jsonl` replayed, instantly or paced.
    static let malformedSummary = """
          moving time     10:00
          elapsed time    10:00
          distance        –
          energy          –
          heart rate      average 133, max 140 bpm
          power           –
          cadence         –
          time in zones   heart rate, system zones: Z1 < 137, Z2 137–147, Z3 148–157, Z4 158–168, Z5 ≥ 169 bpm
            activity        Z1      Z2      Z3      Z4      Z5
            running         8:00    2:00    0:00    0:00    0:00
          laps            none
          sensors         Polar H10 8A1C2D3E: 0 dropouts, 0:00 without data
          skipped         16 malformed notifications

        """

    /// A ride with intervals, two pauses of a minute and 11 laps (the `intervals-pauses-laps` scenario: 42:00 of
    /// which 2:00 paused, so 40:00 moving). The zone times are the saved workout's, and add up to the moving time.
    @Test func rideWithPausesAndLapsHasMovingTimeLapsAndZones() throws {
        let directory = try TemporaryDirectory()
        let result = try Tool.run(["replay", fixture("intervals-pauses-laps.jsonl"), "--instant", "--store", directory.file("r.sqlite")])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("  moving time     40:00"))
        #expect(lines.contains("  elapsed time    42:00"))
        let zones = try #require(lines.first { $0.hasPrefix("    cycling ") })
        let seconds = zones.split(separator: " ").dropFirst().map { part -> Int in
            let minutesSeconds = part.split(separator: ":").compactMap { Int($0) }
            return minutesSeconds[0] * 60 + minutesSeconds[1]
        }
        // Each shown time is rounded to the second: five of them add up to 40:00 within 3 s.
        #expect(abs(seconds.reduce(0, +) - 2400) <= 3, "\(zones)")
        #expect(lines.filter { $0.hasPrefix("                  ") && $0.hasSuffix(" W") }.count == 12, "11 laps and the rest")
    }

    /// 10 minutes at 120× speed on the stepped clock: 5 s of its time, moved 8 ms (0.96 s of workout) at a time, so
    /// 625 steps. Piped, it prints one line per minute of workout and one per zone change (the zone changes and
    /// times are the instant replay's: the same readings at the same fixture times), and no terminal control
    /// sequences.
    @Test func pipedPacedReplayPrintsOneLinePerMinute() throws {
        let directory = try TemporaryDirectory()
        let clock = try SteppedClock(directory: directory)
        let process = Process()
        process.executableURL = Tool.url
        process.arguments = ["replay", fixture("malformed-notifications.jsonl"), "--speed", "120", "--store", directory.file("p.sqlite")]
        let pipes = Tool.piped(process)
        let replay = try clock.start(process)
        #expect(clock.run(replay, milliseconds: 8, limit: 700) == 625)
        #expect(normalized(pipes.result().transcript, directory: directory.path) == """
            Replaying \(fixture("malformed-notifications.jsonl")) (running, 10:00, 601 notifications from Polar H10 8A1C2D3E) at 120× speed.
            0:00  zone Z1
            1:00  running  moving 1:00  heart rate 129 bpm  zone Z1
            2:00  running  moving 2:00  heart rate 135 bpm  zone Z1
            2:45  zone Z2
            2:46  zone Z1
            2:55  zone Z2
            2:56  zone Z1
            3:00  running  moving 3:00  heart rate 134 bpm  zone Z1
            4:00  running  moving 4:00  heart rate 135 bpm  zone Z1
            5:00  zone Z2
            5:00  running  moving 5:00  heart rate 137 bpm  zone Z2
            5:11  zone Z1
            5:12  zone Z2
            5:33  zone Z1
            6:00  running  moving 6:00  heart rate 135 bpm  zone Z1
            7:00  running  moving 7:00  heart rate 136 bpm  zone Z1
            7:04  zone Z2
            7:07  zone Z1
            7:18  zone Z2
            8:00  zone Z1
            8:00  running  moving 8:00  heart rate 137 bpm  zone Z1
            8:05  zone Z2
            8:19  zone Z1
            8:38  zone Z2
            8:42  zone Z1
            8:43  zone Z2
            8:46  zone Z1
            8:47  zone Z2
            8:50  zone Z1
            9:00  running  moving 9:00  heart rate 136 bpm  zone Z1
            9:43  zone Z2
            Saved workout UUID (running) to DIR/p.sqlite.
            \(Self.malformedSummary)
            """)
    }

    @Test func aTruncatedFixtureIsOneSentenceAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let source = try String(contentsOfFile: fixture("run-45min.jsonl"), encoding: .utf8)
        let cut = directory.file("cut.jsonl")
        try String(source.prefix(5000)).write(toFile: cut, atomically: true, encoding: .utf8)
        let store = directory.file("never.sqlite")
        let result = try Tool.run(["replay", cut, "--instant", "--store", store])
        #expect(result.status == 1)
        let lines = source.prefix(5000).split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(result.stderr.hasPrefix("workout: \(cut):\(lines): expected "))
        #expect(result.stderr.hasSuffix("(the last line has no newline: the file looks truncated).\n"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: store))
        let wrongVersion = directory.file("v9.jsonl")
        try source.replacingOccurrences(of: "\"version\":1", with: "\"version\":9").write(toFile: wrongVersion, atomically: true, encoding: .utf8)
        let version = try Tool.run(["replay", wrongVersion, "--store", store])
        #expect(version.status == 1)
        #expect(version.stderr == "workout: \(wrongVersion):1: expected fixture format version 1, found version 9.\n")
        #expect(!FileManager.default.fileExists(atPath: store))
    }
}
