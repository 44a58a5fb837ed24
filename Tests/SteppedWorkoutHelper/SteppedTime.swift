import FitnessSensors
import Foundation
import Glibc
import OpenHealthKit
import OpenHealthKitTesting
import WorkoutCommands

/// Runs `workout record`, `workout peripheral` and a paced `workout replay` (the shipping tool's commands, from
/// WorkoutCommands) on clocks that only a test moves, so the tool's tests run a recording end to end (real processes,
/// real sockets) without waiting on real time and without depending on how fast a loaded machine schedules them.
/// This is the ``CommandTime`` of `SteppedWorkoutHelper`, a test-only build of the tool; the shipping `workout` has
/// none of it.
///
/// The environment names a Unix stream socket the test listens on: `WORKOUT_TEST_CLOCK=PATH`. The process connects
/// there at its start, and its time stands still at ``start`` (2025-09-19 18:40:00 UTC) until the test moves it, one
/// command per line, each answered with one line:
///
/// - `advance MS AFTER_N AFTER_C`: first wait until this process has received `AFTER_N` sensor notifications and
///   seen `AFTER_C` links dropped (counted from the start; a peripheral ignores them), then move time forward by
///   `MS` milliseconds and wait until the process is idle again. `advance 0 N C` only waits.
/// - A recording answers `ok`, or `ended` once it has stopped recording (and then nothing more). A peripheral
///   answers `sent N closed C`: the notifications it has sent and the links it has dropped or refused, so far.
///
/// "Idle" is what the process can know about itself: a peripheral's notification loop is asleep again (what it
/// notified is in the socket); a recording's sensors are each connected or waiting to reconnect (none is in the
/// middle of connecting), and its sensor and display loops are asleep again on the clock. The counts make the
/// hand-over between processes exact: the test moves the recording, then the peripherals, and the recording's next
/// step first waits for what the peripherals said they sent, so every notification is stamped with the instant the
/// peripheral sent it, and every dropped link is noticed at the instant it dropped.
///
/// `workout replay --speed` takes the same commands (the counts are 0): idle is its replay asleep on the pacing
/// clock until the next notification is due; its display draws a frame then (once per step, as its loop would
/// every 250 ms); it answers `ended` when the replay is done.
///
/// The clocks are OpenHealthKitTesting's ``TestClock``: ``steppedClock`` for the sensors, their backoff and
/// staleness, the live display and a peripheral's notifications; ``storeClock`` for the store's live recordings
/// (journal, delivery spacing, `--duration`); ``pacingClock`` for a paced replay. They move together, so their wall
/// times agree.
final class SteppedTime: CommandTime, @unchecked Sendable {
    /// The environment variable naming the test's socket.
    static let environmentVariable = "WORKOUT_TEST_CLOCK"
    /// The wall-clock time the clocks start at.
    static let start = Date(timeIntervalSinceReferenceDate: 780_000_000)

    let steppedClock = TestClock(start: SteppedTime.start)
    let storeClock = TestClock(start: SteppedTime.start)
    /// What a paced replay sleeps on (`workout replay --speed`), alone, so that its sleep says it is idle.
    let pacingClock = TestClock(start: SteppedTime.start)
    private let socket: Int32
    let lock = NSLock()
    private var closed = false
    /// The tap a recording's sensors were given (``recordingTap(next:)``), which its steps wait on.
    var sensorTap: SteppedTap?
    /// The recording's trainers' answers, which its steps wait on too.
    var trainerAnswers: TrainerAnswers?

    /// One command from the test.
    struct Command {
        var milliseconds: Int64
        var notifications: Int
        var drops: Int

        init?(_ line: Substring) {
            let words = line.split(separator: " ")
            guard words.count == 4, words[0] == "advance", let milliseconds = Int64(words[1]), milliseconds >= 0,
                let notifications = Int(words[2]), let drops = Int(words[3])
            else { return nil }
            self.milliseconds = milliseconds
            self.notifications = notifications
            self.drops = drops
        }
    }

    /// The stepped time the environment names, connected to the test.
    static func fromEnvironment() throws -> SteppedTime {
        guard let path = ProcessInfo.processInfo.environment[environmentVariable] else {
            throw HelperFailure("\(environmentVariable) must name the Unix socket the test listens on.")
        }
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard socket >= 0, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw HelperFailure("\(environmentVariable) must name a Unix socket path a test listens on, not '\(path)'.")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            close(socket)
            throw HelperFailure("Nothing listens at \(path), which \(environmentVariable) names.")
        }
        return SteppedTime(socket: socket)
    }

    private init(socket: Int32) {
        self.socket = socket
    }

    var clock: any Clock<Duration> { steppedClock }
    var now: @Sendable () -> Date { { [steppedClock] in steppedClock.date } }

    /// The store's clocks: wall time from ``steppedClock`` (the same as ``storeClock``'s), replays paced on
    /// ``pacingClock``, the rest on ``storeClock``.
    var storeClocks: LiveClocks? {
        LiveClocks(wall: now, monotonic: storeClock, pacing: pacingClock, deliverySpacing: .zero)
    }

    /// Answers the test's commands with `handle` (nil: no answer; an error: `error: ` and what it says) until the
    /// test closes the socket or ``ended()``. Commands that came before this call wait for it.
    func serve(_ handle: @escaping @Sendable (Command) async throws -> String?) {
        let (lines, received) = AsyncStream.makeStream(of: Substring.self)
        let socket = self.socket
        Thread {
            var pending = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 256)
            while true {
                let count = read(socket, &buffer, buffer.count)
                if count <= 0 { break }
                pending += buffer[0 ..< count]
                while let newline = pending.firstIndex(of: 0x0A) {
                    received.yield(Substring(String(decoding: pending[..<newline], as: UTF8.self)))
                    pending.removeSubrange(...newline)
                }
            }
            received.finish()
        }.start()
        Task {
            for await line in lines {
                guard let command = Command(line) else {
                    answer("error: '\(line)' is not 'advance MS NOTIFICATIONS DROPS'")
                    continue
                }
                do {
                    if let line = try await handle(command) { answer(line) }
                } catch {
                    answer("error: \(error)")
                }
            }
        }
    }

    /// Moves both clocks forward by `milliseconds`.
    func advance(by milliseconds: Int64) {
        storeClock.advance(by: .milliseconds(milliseconds))
        pacingClock.advance(by: .milliseconds(milliseconds))
        steppedClock.advance(by: .milliseconds(milliseconds))
    }

    /// Tells the test the recording has ended, and stops answering.
    func ended() {
        answer("ended")
        lock.withLock {
            closed = true
            shutdown(socket, Int32(SHUT_RDWR))
        }
    }

    private func answer(_ line: String) {
        lock.withLock {
            guard !closed else { return }
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
        }
    }
}
