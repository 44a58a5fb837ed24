import Foundation
import TestSupport
import Testing

/// `workout import`, `workout fixture` and `workout show --json` run as a person would, in a child process.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct ImportCommandTests {
    @Test func importTwiceWithABadFileThenShowAsJSON() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("store.sqlite")
        let ride = directory.file("ride.fit")
        let bad = directory.file("bad.fit")
        try Data(ImportTestFiles.ride(power: { UInt64(150 + ($0 * 13) % 200) })).write(to: URL(fileURLWithPath: ride))
        try Data("not a FIT file at all".utf8).write(to: URL(fileURLWithPath: bad))

        let first = try Tool.run(["import", bad, ride, "--store", store])
        let id = try #require(firstWorkoutID(in: first.stdout))
        #expect(normalized(first.transcript, directory: directory.path) == Self.importTranscript)

        let again = try Tool.run(["import", ride, "--store", store])
        #expect(
            normalized(again.transcript, directory: directory.path) == """
                DIR/ride.fit was already imported as workout UUID; nothing saved.

                """)

        let show = try Tool.run(["show", id, "--json", "--store", store])
        #expect(show.status == 0, "\(show.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])
        let np = try #require(object["normalizedPower"] as? Double)
        let statistics = try #require(object["statistics"] as? [String: Any])
        let power = try #require((statistics["CyclingPower"] as? [String: Any])?["average"] as? Double)
        #expect(np > power)  // a varying power: the 4th-power mean weighs the peaks
        let zones = try #require((object["timeInZones"] as? [String: Any])?["HeartRate"] as? [[String: Any]])
        let total = zones.compactMap { $0["duration"] as? Double }.reduce(0, +)
        #expect(abs(total - 120) < 1e-6, "time in zones adds up to the 120 s of moving time, not \(total)")

        let fixture = directory.file("ride.jsonl")
        let made = try Tool.run(["fixture", ride, "--output", fixture])
        // 120 records (150 s less the 30 s pause), each giving a heart-rate and a power notification.
        #expect(
            normalized(made.transcript, directory: directory.path) == """
                Wrote DIR/ride.jsonl: cycling, 2:30, 240 notifications from 120 records.

                """)
    }

    /// The ride of ``ImportTestFiles/ride(legs:serial:power:)`` with power p(t) = 150 + 13t mod 200 W: records at
    /// t = 0…59 and 90…149 (120, a pause from 60 to 90), heart rate 100 + t mod 20, cadence 90 rpm, 10 m per record,
    /// laps 0–75 and 75–150. By hand:
    /// - distance: differences of the cumulative 10…1200 m, 1190 m = 1.19 km;
    /// - energy: p held 1 s per record (gaps over 10 s not counted, the last record has no successor): Σp = 29 820 J
    ///   less p(59) = 317 and p(149) = 287: 29 216 J, counted as 29 kcal;
    /// - heart rate: t mod 20 runs through 0…19 six times: average 109.5 → 110, max 119; all in Z1 (< 137, the
    ///   system zones of resting 72 and maximum 180 bpm);
    /// - power: Σp / 120 = 248.5 → 249, max p(23) = 349, normalized (30 s rolling mean, 4th-power mean) 251.8 → 252;
    /// - laps: power is a plain mean of the lap's records (0…59: 246.8 → 247, 90…149: 250.2 → 250); heart rate is
    ///   Apple's time-weighted average (HKQuantityAggregationStyle.discreteTemporallyWeighted): in lap 1 the 119 bpm
    ///   of t = 59 holds until the lap ends at 75, (Σ₀⁵⁸ + 119 × 16) / 75 = 8355 / 75 = 111.4 → 111; lap 2 109.5 → 110.
    static let importTranscript = """
        Imported DIR/ride.fit (FIT, 120 records).
        Saved workout UUID (cycling) to DIR/store.sqlite.
          moving time     2:00
          elapsed time    2:30
          distance        1.19 km
          energy          29 kcal
          heart rate      average 110, max 119 bpm
          power           average 249, max 349, normalized 252 W
          cadence         average 90 rpm
          time in zones   heart rate, system zones
            activity        Z1       Z2       Z3       Z4       Z5
            bpm             < 137    137–147  148–158  159–169  ≥ 170
            cycling         2:00     0:00     0:00     0:00     0:00
          laps            lap  duration  heart rate  power
                          1    1:15      111 bpm     247 W
                          2    1:15      110 bpm     250 W
          skipped         nothing
        --- stderr
        workout: DIR/bad.fit: no ".FIT" signature in the header: not a FIT file at byte offset 8.
        --- exit 1

        """
}
