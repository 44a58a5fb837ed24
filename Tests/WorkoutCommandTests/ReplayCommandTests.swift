import Foundation
import Testing

/// `workout replay` run as a person runs it, output piped: whole transcripts.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct ReplayCommandTests {
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
        #expect(
            normalized(result.stdout, directory: directory.path) == """
                Replaying \(file) (running, 10:00, 601 notifications from Polar H10 8A1C2D3E) instantly.
                Saved workout UUID (running) to DIR/s.sqlite.
                \(Self.malformedSummary)
                """)
    }

    /// A multisport fixture: the activity is named as the summary names it (not as the fixture spells it,
    /// `swimBikeRun`), and the time in zones has a row for the whole workout and one per activity, in 80 columns.
    /// By hand: the legs last 15:00, 3:00, 40:00, 2:00 and 20:00, and each row adds up to its leg (swimming
    /// 0:53 + 5:29 + 8:38); the whole workout's row adds up to the 1:20:00 (2:39 + 8:56 + 49:39 + 18:46). The pedals
    /// are off the bike for the second transition and the run: 1 dropout, 22:00 without data. The distance is every
    /// leg's, here the ride's alone (the pedals' wheel data; nothing measured the swim or the run).
    @Test func multisportReplaySummaryHasARowPerLeg() throws {
        let directory = try TemporaryDirectory()
        let file = fixture("triathlon-swim-bike-run.jsonl")
        let result = try Tool.run(["replay", file, "--instant", "--store", directory.file("t.sqlite")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            normalized(result.stdout, directory: directory.path) == """
                Replaying \(file) (swim-bike-run, 1:20:00, 9608 notifications from Polar H10 8A1C2D3E, ASSIOMA42) instantly.
                Saved workout UUID (swim-bike-run) to DIR/t.sqlite.
                  moving time     1:20:00
                  elapsed time    1:20:00
                  distance        22.99 km
                  energy          516 kcal
                  heart rate      average 154, max 166 bpm
                  power           average 215, max 279, normalized 216 W
                  cadence         average 86 rpm
                  time in zones   heart rate, system zones
                    activity        Z1       Z2       Z3       Z4       Z5
                    bpm             < 137    137–147  148–158  159–169  ≥ 170
                    whole workout   2:39     8:56     49:39    18:46    0:00
                    swimming        0:53     5:29     8:38     0:00     0:00
                    transition      1:42     1:17     0:01     0:00     0:00
                    cycling         0:04     0:29     38:31    0:56     0:00
                    transition      0:00     1:28     0:32     0:00     0:00
                    running         0:00     0:13     1:57     17:50    0:00
                  laps            none
                  sensors         Polar H10 8A1C2D3E: 0 dropouts, 0:00 without data
                                  ASSIOMA42: 1 dropout, 22:00 without data
                  skipped         nothing

                """)
        // Its chart marks where each leg begins and names the legs (transitions as T1, T2).
        let id = try #require(result.stdout.split(separator: "\n")[1].split(separator: " ").dropFirst(2).first)
        let chart = directory.file("t.svg")
        let shown = try Tool.run(["show", String(id), "--chart", chart, "--store", directory.file("t.sqlite")])
        #expect(shown.status == 0, "\(shown.stderr)")
        let svg = try String(contentsOfFile: chart, encoding: .utf8)
        #expect(svg.components(separatedBy: "stroke-dasharray").count - 1 == 4)
        let names = ["swimming", "T1", "cycling", "T2", "running"].map { ">\($0)</text>" }
        #expect(names.allSatisfy(svg.contains), "\(svg)")
    }

    /// With an FTP in the profile, the workout has power zones too, and the summary a second table. By hand, FTP
    /// 250 W: boundaries 55/75/90/105/120 % = 137.5/187.5/225/262.5/300 W. The ride's 15:00 of efforts at 300 W
    /// straddle the Z5/Z6 boundary (0:36 + 6:41 + 7:43), its 25:00 at 110–140 W the Z1/Z2 one (18:54 + 6:06):
    /// 40:00 moving in all.
    @Test func anFTPAddsATableOfPowerZones() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("ftp.sqlite")
        #expect(try Tool.run(["profile", "--ftp", "250", "--store", store]).status == 0)
        let result = try Tool.run(["replay", fixture("intervals-pauses-laps.jsonl"), "--instant", "--store", store])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.components(separatedBy: "\n")
        let power = lines.drop { !$0.contains("cycling power, system zones") }.prefix(4)
        #expect(
            power.joined(separator: "\n") == """
                                  cycling power, system zones
                    activity        Z1       Z2       Z3       Z4       Z5       Z6
                    W               < 138    138–187  188–224  225–262  263–299  ≥ 300
                    cycling         18:54    6:06     0:00     0:36     6:41     7:43
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
          time in zones   heart rate, system zones
            activity        Z1       Z2       Z3       Z4       Z5
            bpm             < 137    137–147  148–158  159–169  ≥ 170
            running         8:00     2:00     0:00     0:00     0:00
          laps            none
          sensors         Polar H10 8A1C2D3E: 0 dropouts, 0:00 without data
          skipped         16 malformed notifications

        """

    /// A ride with intervals, two pauses of a minute and 11 laps (the `intervals-pauses-laps` scenario,
    /// FixtureSynthesis: 10 min at 140 W, then 5 × (3 min at 300 W, lap, 1 min easy at 110 W, lap, [a minute off the
    /// bike, paused, in the 2nd and 4th], 1 min easy), then 5 min at 120 W). By hand: 42:00 of which 2:00 paused, so
    /// 40:00 moving; the lap durations add up to the 42:00 elapsed (the two with a pause last 3:00); lap powers are
    /// the scenario's levels (140, 300, 110, 120 W, within a watt); the zone times add up to the 40:00 moving
    /// (23:41 + 1:39 + 1:37 + 2:49 + 10:14); the power pedals stop sending off the bike: 2 dropouts, 2:00 without
    /// data; normalized power (235 W) is above the average (190 W), as intervals make it.
    @Test func rideWithPausesAndLapsHasMovingTimeLapsAndZones() throws {
        let directory = try TemporaryDirectory()
        let file = fixture("intervals-pauses-laps.jsonl")
        let result = try Tool.run(["replay", file, "--instant", "--store", directory.file("r.sqlite")])
        #expect(
            normalized(result.transcript, directory: directory.path) == """
                Replaying \(file) (cycling, 42:00, 7325 notifications from Polar H10 8A1C2D3E, ASSIOMA42) instantly.
                Saved workout UUID (cycling) to DIR/r.sqlite.
                  moving time     40:00
                  elapsed time    42:00
                  distance        21.57 km
                  energy          456 kcal
                  heart rate      average 136, max 178 bpm
                  power           average 190, max 379, normalized 235 W
                  cadence         average 84 rpm
                  time in zones   heart rate, system zones
                    activity        Z1       Z2       Z3       Z4       Z5
                    bpm             < 137    137–147  148–158  159–169  ≥ 170
                    cycling         23:41    1:39     1:37     2:49     10:14
                  laps            lap  duration  heart rate  power
                                  1    10:00     120 bpm     140 W
                                  2    3:00      169 bpm     300 W
                                  3    2:00      124 bpm     110 W
                                  4    3:00      166 bpm     299 W
                                  5    3:00      119 bpm     110 W
                                  6    3:00      165 bpm     302 W
                                  7    2:00      125 bpm     110 W
                                  8    3:00      167 bpm     300 W
                                  9    3:00      119 bpm     110 W
                                  10   3:00      164 bpm     301 W
                                  11   2:00      124 bpm     110 W
                                  12   5:00      109 bpm     119 W
                  sensors         Polar H10 8A1C2D3E: 0 dropouts, 0:00 without data
                                  ASSIOMA42: 2 dropouts, 2:00 without data
                  skipped         nothing

                """)
    }

    /// 10 minutes at 120× speed on the stepped clock: 5 s of its time, moved 8 ms (0.96 s of workout) at a time, so
    /// 625 steps. Piped, it prints one line per minute of workout and one per zone change (the zone changes and
    /// times are the instant replay's: the same readings at the same fixture times), and no terminal control
    /// sequences.
    @Test func pipedPacedReplayPrintsOneLinePerMinute() throws {
        let directory = try TemporaryDirectory()
        let clock = try SteppedClock(directory: directory)
        let process = Process()
        process.standardInput = FileHandle.nullDevice
        process.arguments = [
            "replay", fixture("malformed-notifications.jsonl"), "--speed", "120", "--store", directory.file("p.sqlite"),
        ]
        let pipes = Tool.piped(process)
        let replay = try clock.start(process)
        #expect(clock.run(replay, milliseconds: 8, limit: 700) == 625)
        #expect(
            normalized(pipes.result().transcript, directory: directory.path) == """
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
        // The cut falls inside a string on line 85 (the header and 83 notifications and reads before it).
        let lines = source.prefix(5000).split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lines == 85)
        #expect(
            normalized(result.transcript, directory: directory.path) == """
                --- stderr
                workout: DIR/cut.jsonl:85: expected a closing '"' but the line ends early (the last line has no newline: the file looks truncated).
                --- exit 1

                """)
        #expect(!FileManager.default.fileExists(atPath: store))
        let wrongVersion = directory.file("v9.jsonl")
        try source.replacingOccurrences(of: "\"version\":1", with: "\"version\":9").write(
            toFile: wrongVersion, atomically: true, encoding: .utf8)
        let version = try Tool.run(["replay", wrongVersion, "--store", store])
        #expect(
            normalized(version.transcript, directory: directory.path) == """
                --- stderr
                workout: DIR/v9.jsonl:1: expected fixture format version 1, found version 9.
                --- exit 1

                """)
        #expect(!FileManager.default.fileExists(atPath: store))
    }
}
