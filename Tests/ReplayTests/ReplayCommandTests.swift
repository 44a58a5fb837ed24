import Foundation
import Testing

/// `workout replay` run as a person runs it, output piped.
@Suite(.timeLimit(.minutes(1))) struct ReplayCommandTests {
    static var tool: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent().appendingPathComponent("workout")
    }

    func workout(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = Self.tool
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    let directory = NSTemporaryDirectory() + "ohk-replay-cmd-" + UUID().uuidString

    init() throws { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }

    @Test func pipedInstantReplayPrintsPlainLinesAndTheSummary() throws {
        let store = directory + "/s.sqlite"
        let result = try workout(["replay", ReplayWorkoutTests.fixture("malformed-notifications.jsonl"), "--instant", "--store", store])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Replaying ") == true)
        #expect(lines.first?.hasSuffix("(running, 10:00, 601 notifications from Polar H10 8A1C2D3E) instantly.") == true)
        #expect(!result.stdout.contains("\u{1B}["))   // no terminal control sequences when piped
        #expect(lines.contains("  duration        10:00"))
        #expect(lines.contains("  skipped         16 malformed notifications"))
        #expect(lines.contains { $0.hasPrefix("  heart rate      average ") })
        #expect(lines.contains { $0.hasPrefix("  time in zones   system heart-rate zones (heart-rate reserve at 60/70/80/90 %") })
        let list = try workout(["list", "--store", store])
        #expect(list.stdout.contains("running"))
    }

    @Test func pipedPacedReplayPrintsOneLinePerMinute() throws {
        let result = try workout(["replay", ReplayWorkoutTests.fixture("malformed-notifications.jsonl"), "--speed", "600",
                                  "--store", directory + "/p.sqlite"])
        #expect(result.status == 0, "\(result.stderr)")
        let minutes = result.stdout.split(separator: "\n").filter { $0.contains("  running  elapsed ") }
        #expect(minutes.count >= 5 && minutes.count <= 11)
    }

    @Test func aTruncatedFixtureIsOneSentenceAndWritesNothing() throws {
        let source = try String(contentsOfFile: ReplayWorkoutTests.fixture("run-45min.jsonl"), encoding: .utf8)
        let cut = directory + "/cut.jsonl"
        try String(source.prefix(5000)).write(toFile: cut, atomically: true, encoding: .utf8)
        let store = directory + "/never.sqlite"
        let result = try workout(["replay", cut, "--instant", "--store", store])
        #expect(result.status == 1)
        let lines = source.prefix(5000).split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(result.stderr.hasPrefix("workout: \(cut):\(lines): expected "))
        #expect(result.stderr.hasSuffix("(the last line has no newline: the file looks truncated).\n"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: store))
        let wrongVersion = directory + "/v9.jsonl"
        try source.replacingOccurrences(of: "\"version\":1", with: "\"version\":9").write(toFile: wrongVersion, atomically: true, encoding: .utf8)
        let version = try workout(["replay", wrongVersion, "--store", store])
        #expect(version.status == 1)
        #expect(version.stderr == "workout: \(wrongVersion):1: expected fixture format version 1, found version 9.\n")
        #expect(!FileManager.default.fileExists(atPath: store))
    }
}
