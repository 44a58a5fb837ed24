import Foundation
import TestSupport
import Testing

/// `workout watch` and `workout record --mirror`, run as a person would in two terminals (here, two child processes
/// on one store file, with a simulated strap). Every read from the children and every wait for their exit has a
/// deadline that kills them and fails the test.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct WatchCommandTests {
    /// A child's standard output, read as it comes.
    final class Output: @unchecked Sendable {
        private let lock = NSLock()
        private var text = ""
        private let arrived = DispatchSemaphore(value: 0)

        init(_ pipe: Pipe) {
            pipe.fileHandleForReading.readabilityHandler = { [self] handle in
                let data = handle.availableData
                if data.isEmpty { handle.readabilityHandler = nil }
                lock.withLock { text += String(decoding: data, as: UTF8.self) }
                arrived.signal()
            }
        }

        var all: String { lock.withLock { text } }

        /// Waits until `needle` has been printed (or 20 s pass: the test then fails on what is missing).
        @discardableResult
        func wait(for needle: String) -> Bool {
            let deadline = Date().addingTimeInterval(20)
            while !all.contains(needle) {
                if arrived.wait(timeout: .now() + max(0, deadline.timeIntervalSinceNow)) == .timedOut { return false }
            }
            return true
        }
    }

    static func start(_ arguments: [String]) throws -> (Process, Output, Pipe) {
        let process = Process()
        process.standardInput = FileHandle.nullDevice
        process.executableURL = Tool.url
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let reader = Output(output)
        try process.run()
        return (process, reader, errors)
    }

    @Test func aWatchShowsARecordingFromAnotherProcessUntilItEnds() throws {
        // The recording and its strap run on the tool's stepped time (``SteppedClock``): the test moves them through
        // the 3 s of `--duration`, with no real time spent; the watch follows what the recording sends.
        let bench = try SteppedStrap()
        let (clock, peripheral, store) = (bench.clock, bench.peripheral, bench.store)
        let (watch, watched, _) = try Self.start(["watch", "--store", store])
        defer { watch.killGroup() }
        #expect(watched.wait(for: "Ctrl-C leaves.\n"))
        #expect(watched.all == "Waiting for `workout record --mirror` on \(store); Ctrl-C leaves.\n")

        // A second watch on the same store is refused in one sentence.
        let second = try Tool.run(["watch", "--store", store])
        #expect(second.status == 1)
        #expect(
            second.stderr
                == "workout: Another companion is already waiting for mirrored workouts on the store \(store).\n")

        let recording = try bench.recordMirrored(seconds: 3)
        // 3 s at 250 ms a step: the 12th step ends the recording.
        #expect(clock.runUntilEnded(recording.member, [peripheral]) == 12)
        let record = recording.result()
        #expect(record.status == 0, "\(record.stderr)")
        #expect(record.stdout.split(separator: "\n").dropFirst().first == "Mirroring to `workout watch` on this store.")
        #expect(watched.wait(for: "The recording ended.\n"), "\(watched.all)")
        watch.waitUntilExit(within: childProcessTimeLimit) { watched.all }
        #expect(watch.terminationStatus == 0)
        let lines = watched.all.split(separator: "\n").map(String.init)
        #expect(lines[1] == "Watching a cycling workout recorded in another terminal; Ctrl-C leaves.")
        // Piped, the watch prints the recording's events as the recording does: the first heart rate puts it in a zone.
        #expect(lines.contains { $0.hasPrefix("0:0") && $0.contains("  zone Z") }, "\(lines)")
        #expect(lines.last == "The recording ended.")
    }

    @Test func recordingWithMirrorButNoWatchSaysSoAndGoesOn() throws {
        let bench = try SteppedStrap()
        let (clock, peripheral) = (bench.clock, bench.peripheral)
        // 2 s (the strap notifies once a second) at 250 ms a step: the 8th step ends the recording.
        let recording = try bench.recordMirrored(seconds: 2)
        #expect(clock.runUntilEnded(recording.member, [peripheral]) == 8)
        let record = recording.result()
        #expect(record.status == 0, "\(record.stderr)")
        #expect(
            record.stdout.split(separator: "\n").dropFirst().first
                == "No `workout watch` is waiting on this store yet; one started later is mirrored to.")
        #expect(record.stdout.contains("Saved workout "))
    }

    /// A watch started after the recording joins it: the recording looks for a companion every second.
    @Test func aWatchStartedLaterJoinsTheRecording() throws {
        let bench = try SteppedStrap()
        let (clock, peripheral, store) = (bench.clock, bench.peripheral, bench.store)
        let recording = try bench.recordMirrored(seconds: 4)
        // The first second without a watch.
        for _ in 0 ..< 4 { #expect(clock.step(recording.member, [peripheral]) == "ok") }
        let (watch, watched, errors) = try Self.start(["watch", "--store", store])
        defer { watch.killGroup() }
        #expect(watched.wait(for: "Ctrl-C leaves.\n"))
        // At 2 s of the recording's time it looks again and finds the watch. The watch's answer comes in real time:
        // time stands still until it is in (a watch joining as the recording ends is another case), then runs on to
        // the end, 4 s at step 16.
        for _ in 0 ..< 4 { #expect(clock.step(recording.member, [peripheral]) == "ok") }
        #expect(watched.wait(for: "Watching a cycling workout"), "\(watched.all)")
        #expect(clock.runUntilEnded(recording.member, [peripheral]) == 8)
        #expect(recording.result().status == 0)
        #expect(watched.wait(for: "The recording ended.\n"), "\(watched.all)")
        watch.waitUntilExit(within: childProcessTimeLimit) { watched.all }
        // A watch that heard another ending (the recording lost, its connection closed) says which on standard error.
        let stderr = String(decoding: readToEnd([errors], within: 10).data[0], as: UTF8.self)
        #expect(stderr.isEmpty, "the watch's standard error: \(stderr)")
        #expect(watch.terminationStatus == 0)
        let lines = watched.all.split(separator: "\n").map(String.init)
        #expect(
            lines.first { $0.hasPrefix("Watching") }
                == "Watching a cycling workout recorded in another terminal; Ctrl-C leaves.")
        #expect(lines.last == "The recording ended.")
    }

    /// The recording's process killed: the watch says so in one sentence and exits 1.
    @Test func aRecordingThatVanishesEndsTheWatchWithOneSentence() throws {
        let directory = try TemporaryDirectory()
        let socket = directory.file("strap.sock")
        let (peripheral, _) = try Tool.startPeripheral(["--profile", "heart-rate", "--listen", socket])
        defer { peripheral.killGroup() }
        let store = directory.file("health.sqlite")
        let (watch, watched, errors) = try Self.start(["watch", "--store", store])
        defer { watch.killGroup() }
        #expect(watched.wait(for: "Ctrl-C leaves.\n"))
        let (record, recorded, _) = try Self.start([
            "record", "--sensor", "unix:\(socket)", "--mirror", "--store", store,
        ])
        defer { record.killGroup() }
        #expect(recorded.wait(for: "Mirroring to `workout watch` on this store.\n"), "\(recorded.all)")
        #expect(watched.wait(for: "Watching a cycling workout"))
        record.killGroup()
        record.waitUntilExit(within: 10)
        watch.waitUntilExit(within: childProcessTimeLimit) { watched.all }
        #expect(watch.terminationStatus == 1)
        let stderr = String(decoding: readToEnd([errors], within: 10).data[0], as: UTF8.self)
        #expect(
            stderr
                == "workout: The recording went away without ending (its process stopped or its connection closed).\n")
        kill(peripheral.processIdentifier, SIGINT)
        peripheral.waitUntilExit(within: childProcessTimeLimit)
    }
}

/// A simulated strap on the tool's stepped time and a store beside it, in a temporary directory; the strap is
/// stopped with Ctrl-C when the bench goes.
final class SteppedStrap {
    let directory: TemporaryDirectory
    let clock: SteppedClock
    let store: String
    let socket: String
    let peripheral: SteppedClock.Member

    init() throws {
        directory = try TemporaryDirectory()
        clock = try SteppedClock(directory: directory)
        store = directory.file("health.sqlite")
        socket = directory.file("strap.sock")
        peripheral = try clock.startPeripheral(["--profile", "heart-rate", "--listen", socket]).member
    }

    deinit { SteppedClock.stop([peripheral]) }

    /// Starts `workout record --mirror` of a cycling workout from the strap, for `seconds` of stepped time.
    func recordMirrored(seconds: Int) throws -> (member: SteppedClock.Member, result: () -> Tool.Result) {
        try clock.startRecording(
            [
                "--sensor", "unix:\(socket)", "--activity", "cycling", "--duration", "\(seconds)", "--mirror",
                "--store", store,
            ], peripherals: [peripheral])
    }
}
