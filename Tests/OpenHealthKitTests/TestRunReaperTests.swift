import Foundation
import Glibc
import TestSupport
import Testing

/// The reaper every test process forks before main (Tests/TestRunReaper): a process that crashes leaves nothing
/// running behind it, so nothing it started can hold `swift test`'s output open and keep the run from ending.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct TestRunReaperTests {
    @Test func theReaperWaitsInASessionOfItsOwnHoldingOnlyItsLifelineAndChildrenCarryTheMark() throws {
        let reaper = try #require(TestRun.reaper)
        let mark = try #require(TestRun.mark)
        #expect(kill(reaper, 0) == 0, "the reaper is alive")
        #expect(getsid(reaper) == reaper, "a session of its own: Ctrl-C on the terminal does not reach it")
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(reaper)/fd")
        let targets = descriptors.map { (Int($0) ?? -1, (try? readlink("/proc/\(reaper)/fd/\($0)")) ?? "?") }
        #expect(targets.filter { $0.0 <= 2 }.map(\.1) == ["/dev/null", "/dev/null", "/dev/null"], "\(targets)")
        #expect(targets.filter { $0.0 > 2 }.map { $0.1.hasPrefix("pipe:") } == [true], "only its lifeline: \(targets)")

        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        let (data, ended) = readToEnd([output], within: 10)
        #expect(ended && child.exits(within: 10))
        #expect(String(decoding: data[0], as: UTF8.self).split(separator: "\n").contains("OHK_TEST_RUN=\(mark)"))
    }

    /// An exit test runs in a copy of this process, with a reaper of its own: it starts a long `sleep` and traps; the
    /// `sleep` must be gone soon after.
    @Test func whatACrashedProcessStartedIsKilled() async throws {
        let record = NSTemporaryDirectory() + "ohk-reaper-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: record) }
        await #expect(processExitsWith: .failure) { [record = record as String] in
            let sleeper = Process()
            sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
            sleeper.arguments = ["600"]
            sleeper.standardOutput = FileHandle.nullDevice
            sleeper.standardError = FileHandle.nullDevice
            try? sleeper.run()
            let pid: String = "\(sleeper.processIdentifier)"
            try? pid.write(toFile: record, atomically: true, encoding: .utf8)
            fatalError("crashing on purpose, with a child running")
        }
        let pid = try #require(Int32(try String(contentsOfFile: record, encoding: .utf8)))
        #expect(pid > 0)
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while Self.isRunning(pid), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!Self.isRunning(pid), "sleep \(pid) outlived the process that started it")
        if Self.isRunning(pid) { kill(pid, SIGKILL) }
    }

    /// Running: neither gone nor a zombie waiting for a parent that may never reap it (pid 1 in a container).
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return !stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    func readlink(_ path: String) throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: path)
    }
}
