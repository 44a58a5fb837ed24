import Foundation
import TestSupport
import Testing

/// `workout sync FROM TO` run as a person would: a demo workout copied into a new store with its ID, a second run
/// that copies nothing, and one sentence for a store that is not there or a store synced into itself.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct SyncCommandTests {
    @Test func syncCopiesTheWorkoutsTheOtherStoreLacksOnce() throws {
        let directory = try TemporaryDirectory()
        let from = directory.file("from.sqlite")
        let to = directory.file("to.sqlite")
        let demo = try Tool.run(["demo", "--store", from])
        let id = try #require(firstWorkoutID(in: demo.stdout))
        let listed = try Tool.run(["list", "--store", from])

        let first = try Tool.run(["sync", from, to])
        let lines = first.stdout.split(separator: "\n").map(String.init)
        #expect(first.status == 0 && first.stderr == "", "\(first.transcript)")
        #expect(lines.count == 2 && lines[0].hasPrefix("copied  \(id.prefix(8))  "), "\(first.transcript)")
        #expect(
            lines.last?.range(
                of: #"^Copied 1 workout \([0-9]+ samples\) from .*from\.sqlite to .*to\.sqlite\.$"#,
                options: .regularExpression) != nil, "\(first.transcript)")
        #expect(try Tool.run(["list", "--store", to]).stdout == listed.stdout)
        let shown = try Tool.run(["show", id, "--store", from, "--json"])
        #expect(try Tool.run(["show", id, "--store", to, "--json"]).stdout == shown.stdout)

        let again = try Tool.run(["sync", from, to])
        #expect(again.transcript == "Copied 0 workouts (0 samples) from \(from) to \(to); 1 already there.\n")
    }

    @Test func aMissingStoreOrTheSameStoreIsOneSentence() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.file("nothing.sqlite")
        let none = try Tool.run(["sync", missing, directory.file("to.sqlite")])
        #expect(
            none.transcript == """
                --- stderr
                workout: There is no store at \(missing) to sync from.
                --- exit 1

                """)
        #expect(!FileManager.default.fileExists(atPath: directory.file("to.sqlite")))

        let store = directory.file("store.sqlite")
        #expect(try Tool.run(["demo", "--store", store]).status == 0)
        let same = try Tool.run(["sync", store, store])
        #expect(
            same.transcript == """
                --- stderr
                workout: Workouts cannot be copied from \(store) to itself.
                --- exit 1

                """)
    }
}
