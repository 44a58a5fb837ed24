import Foundation
import Glibc
import OpenHealthKit
import TestSupport
import Testing

@testable import SteppedWorkoutHelper
@testable import WorkoutCommands

/// `workout record --target-power` against `workout peripheral --profile smart-trainer`, over its Unix socket, on the
/// tool's stepped time: the target is set at connection, `+` and `-` move it by 10 W, and a trainer that refuses
/// control is recorded from all the same.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct TrainerControlCommandTests {
    @Test func targetPowerAndTheKeysThatChangeIt() async throws {
        let directory = try TemporaryDirectory()
        let clock = try SteppedClock(directory: directory)
        let socket = directory.file("trainer.sock")
        let trainer = try clock.startPeripheral(["--profile", "smart-trainer", "--listen", socket]).member
        defer { SteppedClock.stop([trainer]) }
        let store = directory.file("erg.sqlite")

        let terminal = try KeysTests.Terminal()
        let process = Process()
        process.arguments = ["record", "--sensor", "unix:\(socket)", "--store", store, "--target-power", "200"]
        let handle = FileHandle(fileDescriptor: terminal.slave, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        let recording = try clock.start(process, peripherals: [trainer])
        /// Moves the recording on by one second (four steps), then lets it take in what the trainer sent.
        func second() {
            for _ in 0 ..< 4 { #expect(clock.step(recording, [trainer]) == "ok") }
            #expect(clock.sync(recording, [trainer]) == "ok")
        }

        #expect(
            terminal.wait {
                $0.contains("space pauses, l marks a lap, + and - change the target power, q or Ctrl-C ends and saves.")
            }, "\(terminal.output)")
        second()
        #expect(terminal.wait { $0.contains("ERG 200 W  (+/- 10 W)") }, "\(terminal.output)")
        for _ in 0 ..< 7 { second() }
        var mark = terminal.output.endIndex
        terminal.type("+")  // at 0:08
        #expect(terminal.wait(after: mark) { $0.contains("ERG 210 W  (+/- 10 W)") }, "\(terminal.output)")
        second()
        mark = terminal.output.endIndex
        terminal.type("-")  // at 0:09
        #expect(terminal.wait(after: mark) { $0.contains("ERG 200 W  (+/- 10 W)") }, "\(terminal.output)")
        mark = terminal.output.endIndex
        terminal.type("-")
        #expect(terminal.wait(after: mark) { $0.contains("ERG 190 W  (+/- 10 W)") }, "\(terminal.output)")
        second()
        terminal.type("q")  // at 0:10
        let ended = recording.readLine()
        #expect(ended == "ended")
        if ended != "ended" { kill(process.processIdentifier, SIGKILL) }  // fail, do not wait
        #expect(terminal.wait { $0.contains("  skipped ") }, "\(terminal.output)")
        process.waitUntilExit(within: childProcessTimeLimit) { terminal.output }
        #expect(process.terminationStatus == 0)

        // The trainer followed: it starts at 150 W and closes 63 % of the gap to a target every 2 s (±4 W ripple).
        // With 200 W taken at about 0:00, by 0:08 it holds 150 + 50 (1 − e^−4) ≈ 199 W; without control it would
        // have stayed within 146–154 W.
        let health = try HKHealthStore(databasePath: store, clientIdentifier: "workout")
        let types = HKLiveWorkoutDataSource.collectableTypes
        try await health.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
        let power = try await HKSampleQueryDescriptor(
            predicates: [.quantitySample(type: HKQuantityType(.cyclingPower))],
            sortDescriptors: [SortDescriptor(\.startDate)]
        ).result(for: health)
        let start = SteppedTime.start
        let watts = power.map { ($0.startDate.timeIntervalSince(start), $0.quantity.doubleValue(for: .watt())) }
        let settled = watts.filter { (6 ... 8).contains($0.0) }.map(\.1)
        #expect(!settled.isEmpty && settled.allSatisfy { abs($0 - 200) <= 8 }, "\(watts)")
        // The first reading, half a second in: 150 + 50 (1 − e^−0.25) ≈ 161 W, ripple ±4 W.
        #expect(watts.first.map { $0.1 < 166 } == true, "\(watts)")
    }

    /// A trainer another app holds: one line says it refused, and its power is recorded all the same.
    @Test func aTrainerThatRefusesControlIsRecordedFrom() throws {
        let directory = try TemporaryDirectory()
        let clock = try SteppedClock(directory: directory)
        let socket = directory.file("trainer.sock")
        let trainer = try clock.startPeripheral([
            "--profile", "smart-trainer", "--listen", socket, "--refuse-control",
        ]).member
        defer { SteppedClock.stop([trainer]) }
        let (recording, result) = try clock.startRecording(
            [
                "--sensor", "unix:\(socket)", "--target-power", "250", "--duration", "3", "--store",
                directory.file("held.sqlite"),
            ], peripherals: [trainer])
        #expect(clock.runUntilEnded(recording, [trainer]) == 12, "3 s in steps of 250 ms")
        let transcript = normalized(result().transcript, directory: directory.path)
        let lines = transcript.split(separator: "\n", omittingEmptySubsequences: false)
        // The refusal comes a moment after the connection: the control exchange is not part of a step's idle, so
        // it is shown at 0:00 or, once time has moved (on a loaded machine, a step or two), up to 0:02; always
        // before the recording ends.
        let shown = lines.map { line in
            ["0:00  ", "0:01  ", "0:02  "].contains(where: line.hasPrefix) ? "TIME" + line.dropFirst(4) : line
        }
        #expect(
            Array(shown.prefix(3)) == [
                "Recording a cycling workout from unix:DIR/trainer.sock; Ctrl-C ends and saves.",
                "TIME  unix:DIR/trainer.sock refused control (control not permitted); recording from it without a target",
                "Saving… (Ctrl-C again quits at once; the journal keeps the workout for `workout recover`.)",
            ], "\(transcript)")
        // Its own power, about 150 W (5 notifications at 2 Hz, the ripple within ±4 W).
        #expect(
            lines.contains {
                $0.hasPrefix("  power           average 15") || $0.hasPrefix("  power           average 14")
            }, "\(transcript)")
    }

    /// A target power asked of sensors none of which offers control: one sentence says it is not set.
    @Test func noSensorOffersControl() throws {
        let directory = try TemporaryDirectory()
        let clock = try SteppedClock(directory: directory)
        let socket = directory.file("strap.sock")
        let strap = try clock.startPeripheral(["--profile", "heart-rate", "--listen", socket]).member
        defer { SteppedClock.stop([strap]) }
        let (recording, result) = try clock.startRecording(
            [
                "--sensor", "unix:\(socket)", "--target-power", "200", "--duration", "2", "--store",
                directory.file("strap.sqlite"),
            ], peripherals: [strap])
        #expect(clock.runUntilEnded(recording, [strap]) == 8, "2 s in steps of 250 ms")
        // Said once the strap has connected: at 0:00, or 0:01 once time has moved.
        let transcript = result().transcript
        let notice = "  No sensor offers a fitness machine control point: the target power is not set.\n"
        #expect(transcript.contains("0:00" + notice) != transcript.contains("0:01" + notice), "\(transcript)")
    }
}
