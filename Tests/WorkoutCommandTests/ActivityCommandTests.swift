import Foundation
import Testing

/// `workout activity` prints the activity summaries the library computes, one day a line.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct ActivityCommandTests {
    @Test func showsTheDemoRunsDay() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("health.sqlite")
        #expect(try Tool.run(["demo", "--store", store]).status == 0)
        // The demo saves a 30-minute run ending now: up to two days (a run across midnight) hold its 30 minutes.
        let result = try Tool.run(["activity", "--store", store, "--days", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first == "Day         Move             Exercise       Stand")
        let minutes = lines.dropFirst().compactMap { line -> Int? in
            guard let exercise = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first else {
                return nil
            }
            return Int(exercise.split(separator: "/").first ?? "")
        }
        // Whole minutes per day: 30 on one day, or 29–30 split across two.
        #expect((29 ... 30).contains(minutes.reduce(0, +)), "\(result.stdout)")
        #expect(lines.dropFirst().allSatisfy { $0.hasSuffix("/12 h (not measured)") })
        let bad = try Tool.run(["activity", "--store", store, "--days", "0"])
        #expect(bad.status == 64 && bad.stderr.contains("--days must be between 1 and 3660"))
    }
}
