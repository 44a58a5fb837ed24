import Foundation
import Glibc
import OpenHealthKit
import TestSupport
import Testing

@testable import SteppedWorkoutHelper
@testable import WorkoutCommands

/// `workout record` on a terminal: a pseudo-terminal (openpty) is its standard input and output, and its time is
/// the stepped clock's; the test types space (pause), space (resume), `l` (lap) and `q` (end and save) a second of
/// workout time apart, each once the view shows the previous one took.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct KeysTests {
    /// The master side of a pseudo-terminal, read with a deadline.
    final class Terminal {
        let master: Int32
        let slave: Int32
        private(set) var output = ""

        init() throws {
            var master: Int32 = -1, slave: Int32 = -1
            var size = winsize(ws_row: 40, ws_col: 120, ws_xpixel: 0, ws_ypixel: 0)
            guard openpty(&master, &slave, nil, nil, &size) == 0 else { throw POSIXError(.EIO) }
            self.master = master
            self.slave = slave
        }

        deinit {
            close(master)
            close(slave)
        }

        func type(_ text: String) {
            _ = text.utf8CString.withUnsafeBufferPointer { write(master, $0.baseAddress, text.utf8.count) }
        }

        /// Reads until `condition` holds for what was read after `offset`, or `seconds` of real time pass (a limit
        /// for a broken tool, not a wait: the output is due as soon as the tool has read the key). Returns whether it
        /// held.
        func wait(seconds: Double = 15, after offset: String.Index? = nil, until condition: (Substring) -> Bool) -> Bool
        {
            let deadline = Date().addingTimeInterval(seconds)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while Date() < deadline {
                if condition(output[(offset ?? output.startIndex)...]) { return true }
                var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 100) > 0 else { continue }
                let count = read(master, &buffer, buffer.count)
                if count <= 0 { return condition(output[(offset ?? output.startIndex)...]) }
                output += String(decoding: buffer[0 ..< count], as: UTF8.self)
            }
            return false
        }
    }

    @Test func spacePausesAndResumesLMarksALapQEndsAndSaves() async throws {
        let directory = try TemporaryDirectory()
        let clock = try SteppedClock(directory: directory)
        let socket = directory.file("strap.sock")
        let peripheral = try clock.startPeripheral(["--profile", "heart-rate", "--listen", socket]).member
        defer { SteppedClock.stop([peripheral]) }
        let store = directory.file("keys.sqlite")

        let terminal = try Terminal()
        let process = Process()
        process.arguments = ["record", "--sensor", "unix:\(socket)", "--store", store]
        let handle = FileHandle(fileDescriptor: terminal.slave, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        let recording = try clock.start(process, peripherals: [peripheral])
        /// Moves the recording on by one second (four steps), then lets it take in what the strap sent.
        func second() {
            for _ in 0 ..< 4 { #expect(clock.step(recording, [peripheral]) == "ok") }
            #expect(clock.sync(recording, [peripheral]) == "ok")
        }

        #expect(
            terminal.wait { $0.contains("space pauses, l marks a lap, q or Ctrl-C ends and saves.") },
            "\(terminal.output)")
        second()
        second()
        #expect(terminal.wait { $0.contains("heart rate 1") }, "a heart rate on the view: \(terminal.output)")
        terminal.type(" ")  // at 0:02
        #expect(terminal.wait { $0.contains("cycling (paused)") }, "\(terminal.output)")
        second()
        var mark = terminal.output.endIndex
        terminal.type(" ")  // at 0:03
        #expect(terminal.wait(after: mark) { $0.contains("cycling   moving") }, "resumed: \(terminal.output)")
        second()
        mark = terminal.output.endIndex
        terminal.type("l")  // at 0:04
        #expect(terminal.wait(after: mark) { $0.contains("lap 2") }, "\(terminal.output)")
        second()
        terminal.type("q")  // at 0:05
        let ended = recording.readLine()
        #expect(ended == "ended")
        if ended != "ended" { kill(process.processIdentifier, SIGKILL) }  // fail, do not wait
        #expect(terminal.wait { $0.contains("  skipped ") }, "\(terminal.output)")
        process.waitUntilExit(within: childProcessTimeLimit) { terminal.output }
        #expect(process.terminationStatus == 0)
        // The summary, whole, as the terminal shows it (a terminal ends lines with CR LF). Moving time 0:04 of 0:05
        // (paused from 0:02 to 0:03); lap 1 from the start to 0:04, lap 2 the last second. Heart rate: the strap's
        // 1 Hz readings from 0:01. Time in zones: 0:01–0:02, then 0:04–0:05 — the reading of 0:03 came at the
        // instant of the resume but before it (the test types the key after the recording took the reading in), so
        // the zone engine, which counts from a reading taken while running, starts again at 0:04.
        let summary = try #require(
            terminal.output.range(of: "Saving…").map { String(terminal.output[$0.lowerBound...]) })
        #expect(
            normalized(summary.replacing("\r\n", with: "\n"), directory: directory.path) == """
                Saving… (Ctrl-C again quits at once; the journal keeps the workout for `workout recover`.)
                Saved workout UUID (cycling) to DIR/keys.sqlite.
                  moving time     0:04
                  elapsed time    0:05
                  distance        –
                  energy          –
                  heart rate      average 132, max 134 bpm
                  power           –
                  cadence         –
                  time in zones   heart rate, system zones
                    activity        Z1       Z2       Z3       Z4       Z5
                    bpm             < 137    137–147  148–158  159–169  ≥ 170
                    cycling         0:02     0:00     0:00     0:00     0:00
                  laps            lap  duration  heart rate  power
                                  1    0:04      132 bpm     –
                                  2    0:01      133 bpm     –
                  sensors         unix:DIR/strap.sock: 0 dropouts, 0:00 without data
                  skipped         nothing

                """)

        let health = try HKHealthStore(databasePath: store, clientIdentifier: "workout")
        let types = HKLiveWorkoutDataSource.collectableTypes
        try await health.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
        let workout = try #require(
            try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: health).first)
        // Events are in date order, and the lap spans from the start: lap, pause, resume — at the seconds typed.
        let start = SteppedTime.start
        #expect((workout.workoutEvents ?? []).map(\.type) == [.lap, .pause, .resume])
        #expect((workout.workoutEvents ?? []).map { $0.dateInterval.start.timeIntervalSince(start) } == [0, 2, 3])
        #expect((workout.workoutEvents ?? []).first?.dateInterval.end.timeIntervalSince(start) == 4)
    }
}
