import Foundation
import Glibc
import TestSupport
import Testing

/// The test's side of the tool's stepped time: a socket the `workout record`, `workout peripheral` and `workout
/// replay` processes it starts connect to, and the steps that move their clocks. The processes are
/// `SteppedWorkoutHelper`, the tool's commands built with stepped time (`WORKOUT_TEST_CLOCK`, see `SteppedTime.swift`
/// there); the shipping `workout` has none of it. Nothing here sleeps: every wait is a read with a time limit (10 s of
/// real time, far more than a step needs on a loaded machine), and a limit reached is a failure, not a retry.
final class SteppedClock {
    /// A process on the stepped clock, and its end of the socket.
    final class Member {
        let process: Process
        let channel: Int32
        private var pending = [UInt8]()

        init(process: Process, channel: Int32) {
            self.process = process
            self.channel = channel
        }

        deinit {
            close(channel)
            process.killGroup()
        }

        /// Sends one command and returns the answer line (nil: the process closed the socket, or 10 s passed).
        func send(_ command: String) -> String? {
            let bytes = Array((command + "\n").utf8)
            guard bytes.withUnsafeBytes({ write(channel, $0.baseAddress, $0.count) }) == bytes.count else { return nil }
            return readLine()
        }

        /// The next line the process sends (nil: it closed the socket, or 10 s passed).
        func readLine() -> String? {
            expectMayBlock("Reading a stepped process's answer")
            var buffer = [UInt8](repeating: 0, count: 256)
            while true {
                if let newline = pending.firstIndex(of: 0x0A) {
                    defer { pending.removeSubrange(...newline) }
                    return String(decoding: pending[..<newline], as: UTF8.self)
                }
                var descriptor = pollfd(fd: channel, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 10_000) > 0 else { return nil }
                let count = read(channel, &buffer, buffer.count)
                if count <= 0 { return nil }
                pending += buffer[0 ..< count]
            }
        }
    }

    let path: String
    private let listener: Int32
    /// The peripherals' last answers (notifications sent, links dropped, since each started), and what they had
    /// said when the current recording started: the recording counts from its own start.
    private var sent: [ObjectIdentifier: (notifications: Int, drops: Int)] = [:]
    private var baseline: [ObjectIdentifier: (notifications: Int, drops: Int)] = [:]

    /// Listens at `clock.sock` in `directory`.
    init(directory: borrowing TemporaryDirectory) throws {
        path = directory.file("clock.sock")
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(listener, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
    }

    deinit { close(listener) }

    /// The tool's commands on stepped time, built beside the test bundle.
    static var tool: URL { Tool.url.deletingLastPathComponent().appendingPathComponent("SteppedWorkoutHelper") }

    /// The environment that puts a `workout` process on this clock.
    var environment: [String: String] {
        ProcessInfo.processInfo.environment.merging(["WORKOUT_TEST_CLOCK": path]) { $1 }
    }

    /// Starts `process` (its arguments and pipes set: a command of the tool's, run by ``tool``) on this clock and
    /// returns once it has connected.
    /// A recording names the `peripherals` it will read, so that it is owed only what they send from now on.
    func start(_ process: Process, peripherals: [Member] = []) throws -> Member {
        for peripheral in peripherals {
            let counts = try #require(answer(peripheral.send("advance 0 0 0")))
            sent[ObjectIdentifier(peripheral)] = counts
            baseline[ObjectIdentifier(peripheral)] = counts
        }
        process.executableURL = Self.tool
        process.environment = environment
        try process.run()
        var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 10_000) > 0 else {
            process.killGroup()
            throw POSIXError(.ETIMEDOUT)
        }
        let channel = accept(listener, nil, nil)
        guard channel >= 0 else { throw POSIXError(.ECONNABORTED) }
        return Member(process: process, channel: channel)
    }

    /// Starts `workout peripheral ARGUMENTS` on this clock; returns once it listens, with the line it printed.
    func startPeripheral(_ arguments: [String]) throws -> (member: Member, banner: String) {
        let (process, output) = Tool.peripheral(arguments)
        let member = try start(process)
        // The first line is printed once the socket listens.
        return (member, read(output, until: "\n"))
    }

    /// Starts `workout record ARGUMENTS` on this clock, output piped; `result` reads the transcript once it ended.
    func startRecording(
        _ arguments: [String], peripherals: [Member]
    ) throws -> (member: Member, result: () -> Tool.Result) {
        let process = Process()
        process.standardInput = FileHandle.nullDevice
        process.arguments = ["record"] + arguments
        let pipes = Tool.piped(process)
        return (try start(process, peripherals: peripherals), pipes.result)
    }

    /// Moves the recording's time forward by `milliseconds` (it first takes in what the peripherals last said they
    /// sent), then the peripherals'. Returns the recording's answer: `ok`, or `ended` once it stopped recording.
    @discardableResult
    func step(_ recording: Member, _ peripherals: [Member], milliseconds: Int = 250) -> String? {
        var notifications = 0, drops = 0
        for (peripheral, counts) in sent {
            notifications += counts.notifications - (baseline[peripheral]?.notifications ?? 0)
            drops += counts.drops - (baseline[peripheral]?.drops ?? 0)
        }
        let answer = recording.send("advance \(milliseconds) \(notifications) \(drops)")
        guard answer == "ok" else { return answer }
        for (index, peripheral) in peripherals.enumerated() {
            guard let counts = self.answer(peripheral.send("advance \(milliseconds) 0 0")) else { return nil }
            notifications += counts.notifications - (sent[ObjectIdentifier(peripheral)]?.notifications ?? 0)
            drops += counts.drops - (sent[ObjectIdentifier(peripheral)]?.drops ?? 0)
            sent[ObjectIdentifier(peripheral)] = counts
            // Peripherals that notify at the same instant are taken in in the order listed, one after the other, as
            // the recording's sockets would otherwise race.
            if index < peripherals.count - 1 {
                guard recording.send("advance 0 \(notifications) \(drops)") == "ok" else { return nil }
            }
        }
        return answer
    }

    /// A peripheral's answer, `sent N closed C`.
    private func answer(_ line: String?) -> (notifications: Int, drops: Int)? {
        let words = line?.split(separator: " ") ?? []
        guard words.count == 4, words[0] == "sent", let notifications = Int(words[1]), let drops = Int(words[3]) else {
            return nil
        }
        return (notifications, drops)
    }

    /// Steps until the recording has taken in everything the peripherals sent (without moving time).
    func sync(_ recording: Member, _ peripherals: [Member]) -> String? {
        step(recording, [], milliseconds: 0)
    }

    /// Steps 250 ms at a time until the recording ends (`--duration`), at most `limit` steps; returns the steps taken.
    /// A recording that does not answer, or has not ended after `limit` steps, is killed (SIGKILL, with its process
    /// group) and the test fails, so that reading its result does not wait for it.
    func runUntilEnded(
        _ recording: Member, _ peripherals: [Member], limit: Int = 400,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Int {
        for count in 1 ... limit {
            let answer = step(recording, peripherals)
            switch answer {
            case "ok": continue
            case "ended": return count
            default:
                recording.process.killGroup()
                Issue.record(
                    "The recording answered \(answer.map { "'\($0)'" } ?? "nothing") at step \(count); killed.",
                    sourceLocation: sourceLocation)
                return count
            }
        }
        recording.process.killGroup()
        Issue.record("The recording had not ended after \(limit) steps; killed.", sourceLocation: sourceLocation)
        return limit
    }

    /// Moves a process that reads no peripheral (a paced `workout replay`) forward `milliseconds` at a time until
    /// it answers `ended` or `limit` steps were taken; returns the steps taken.
    func run(_ member: Member, milliseconds: Int, limit: Int) -> Int {
        for count in 1 ... limit where member.send("advance \(milliseconds) 0 0") != "ok" { return count }
        return limit
    }

    /// Ends the peripherals with Ctrl-C, as a person would, and waits for them (within ``childProcessTimeLimit``).
    static func stop(_ peripherals: [Member], sourceLocation: SourceLocation = #_sourceLocation) {
        for peripheral in peripherals where peripheral.process.isRunning {
            kill(peripheral.process.processIdentifier, SIGINT)
            peripheral.process.waitUntilExit(within: childProcessTimeLimit, sourceLocation: sourceLocation)
        }
    }
}
