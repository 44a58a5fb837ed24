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
        #expect(first.stdout == "Condensed 1 workout: 420 samples into 3 series holding 176 quantities.\n", "\(first.stdout)")
        let again = try workout(["condense", "--all", "--store", path])
        #expect(again.stdout == "Nothing to condense in 1 workout.\n")
        let list = try workout(["list", "--store", path])
        #expect(list.stdout.contains("5.36 km"))
        let id = String(list.stdout.split(separator: "\n")[1].prefix(8))
        let show = try workout(["show", id, "--store", path])
        #expect(show.stdout.contains("heart rate    1 samples    average 152, max 164 count/min"), "\(show.stdout)")
        #expect(show.stdout.contains("distance      1 samples    total 5364 m"))
        let neither = try workout(["condense", "--store", path])
        #expect(neither.status != 0)
        #expect(neither.stderr.contains("Give a workout ID, or --all"))
        let unknown = try workout(["condense", "nope", "--store", path])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "workout: No workout's ID starts with 'nope'; `workout list` shows them.\n")
    }
}
