import Foundation
import Testing

extension CommandLineTests {
    @Test
    func condenseFoldsTheDemoOnceAndExplainsBadInput() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("condense.sqlite")
        #expect(try workout(["demo", "--store", path]).status == 0)
        let first = try workout(["condense", "--all", "--store", path])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(
            first.stdout == "Condensed 1 workout: 420 samples into 3 series holding 176 quantities.\n",
            "\(first.stdout)")
        let again = try workout(["condense", "--all", "--store", path])
        #expect(again.stdout == "Nothing to condense in 1 workout.\n")
        let list = try workout(["list", "--store", path])
        let id = try #require(list.stdout.split(separator: "\n").dropFirst().first.map { String($0.prefix(8)) })
        // Condensed, the statistics are the demo's: its 360 heart rates, 30 energy and 30 distance samples are now one
        // series sample each.
        let show = try workout(["show", id, "--store", path])
        #expect(
            normalized(show.transcript, directory: directory.path, datesOfNow: true) == """
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
                    heart rate    1 sample     average 152, max 164 bpm
                    active energy 1 sample     total 345 kcal
                    distance      1 sample     total 5364 m

                """)
        let neither = try workout(["condense", "--store", path])
        #expect(
            neither.transcript == """
                --- stderr
                Error: Give a workout ID, or --all to condense every workout.
                Usage: workout condense [--store <PATH>] [<id>] [--all]
                  See 'workout condense --help' for more information.
                --- exit 64

                """)
        let unknown = try workout(["condense", "nope", "--store", path])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "workout: No workout's ID starts with 'nope'; `workout list` shows them.\n")
    }
}
