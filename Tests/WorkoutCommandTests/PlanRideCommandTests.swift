import Foundation
import Glibc
import OpenHealthKit
import OpenWorkoutKit
import TestSupport
import Testing

@testable import SteppedWorkoutHelper
@testable import WorkoutCommands

/// `workout record --plan` end to end: a Zwift plan ridden on `workout peripheral --profile smart-trainer` (it
/// follows its ERG target with a 2 s lag), over its Unix socket, on the tool's stepped time.
@Suite(.blockingWaits, .timeLimit(.minutes(2))) struct PlanRideCommandTests {
    /// Three 16 s steady states at 60 %, 100 % and 72 % of an FTP of 250 W: 150, 250 and 180 W, starting at 0, 16
    /// and 32 s; the ride ends at 50 s, 2 s into the open time after the plan.
    static let plan = """
        <workout_file>
          <name>Three steps</name>
          <sportType>bike</sportType>
          <workout>
            <SteadyState Duration="16" Power="0.6"/>
            <SteadyState Duration="16" Power="1.0"/>
            <SteadyState Duration="16" Power="0.72"/>
          </workout>
        </workout_file>
        """

    /// The three-step plan ridden for `seconds` (stepped time, 250 ms a step) against a simulated smart trainer
    /// started with `trainer` besides its profile and socket; the recording's transcript, its lines and its store.
    static func ride(
        trainer: [String] = [], seconds: Int, in directory: borrowing TemporaryDirectory,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (transcript: String, lines: [String], store: String) {
        let clock = try SteppedClock(directory: directory)
        let socket = directory.file("trainer.sock")
        let member = try clock.startPeripheral(["--profile", "smart-trainer", "--listen", socket] + trainer).member
        defer { SteppedClock.stop([member]) }
        let file = directory.file("three.zwo")
        try Data(plan.utf8).write(to: URL(fileURLWithPath: file))
        let store = directory.file("plan.sqlite")
        let (recording, result) = try clock.startRecording(
            [
                "--sensor", "unix:\(socket)", "--plan", file, "--ftp", "250", "--ramp", "0", "--duration",
                "\(seconds)", "--store", store,
            ], peripherals: [member])
        #expect(
            clock.runUntilEnded(recording, [member], limit: seconds * 4 + 100) == seconds * 4,
            "\(seconds) s in steps of 250 ms", sourceLocation: sourceLocation)
        let transcript = result().transcript
        return (transcript, transcript.split(separator: "\n").map(String.init), store)
    }

    @Test func aPlanDrivesTheTrainerStepByStep() async throws {
        let directory = try TemporaryDirectory()
        let (transcript, lines, store) = try Self.ride(seconds: 50, in: directory)

        // Each step starts on time (the step lines are dated when the runner began them) and its target is taken
        // by the trainer within a second of it (the trainer's answer dated when it came).
        for (number, start, watts) in [(1, 0, 150), (2, 16, 250), (3, 32, 180)] {
            let began = try #require(lines.first { $0.contains("  step \(number)/3 ") }, "\(transcript)")
            #expect(Self.seconds(began) == start, "\(transcript)")
            let taken = try #require(
                lines.first { $0.hasSuffix("target power \(watts) W") && Self.seconds($0) >= start }, "\(transcript)")
            #expect(Self.seconds(taken) - start <= 1, "\(transcript)")
        }
        let done = try #require(lines.first { $0.hasSuffix("  plan done") }, "\(transcript)")
        #expect(Self.seconds(done) == 48)

        // What was saved: a segment per step naming it with its target, the plan with the workout.
        let health = try HKHealthStore(databasePath: store, clientIdentifier: "workout")
        let types = HKLiveWorkoutDataSource.collectableTypes
        try await health.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
        let workouts = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(
            for: health)
        let workout = try #require(workouts.first)
        let start = workout.startDate
        let segments = (workout.workoutEvents ?? []).filter { $0.type == .segment }
        #expect(segments.count == 3)
        for (segment, (from, to, watts)) in zip(segments, [(0.0, 16.0, 150.0), (16, 32, 250), (32, 48, 180)]) {
            #expect(abs(segment.dateInterval.start.timeIntervalSince(start) - from) <= 0.5, "\(segment)")
            #expect(abs(segment.dateInterval.end.timeIntervalSince(start) - to) <= 0.5, "\(segment)")
            let target = segment.metadata?[PlanRunner.targetPowerMetadataKey] as? HKQuantity
            #expect(target?.doubleValue(for: .watt()) == watts)
            #expect(segment.metadata?[PlanRunner.stepNameMetadataKey] as? String != nil)
        }
        // The summary's step table, from the library's figures: each step in range for its second half at least
        // (the trainer takes 2 s to close 63 % of a change), its 3 s maximum at least its target and at most the
        // higher of its target and the one before (a step down starts where the last one was), ±4 W of ripple.
        let steps = try await health.planSteps(of: workout)
        #expect(steps.map(\.target) == [150, 250, 180])
        for (step, highest) in zip(steps, [150.0, 250, 250]) {
            #expect((step.timeInRange ?? 0) >= 8, "\(step)")
            let maximum = step.maximumThreeSecondPower ?? 0
            #expect(maximum >= (step.target ?? 0) && maximum <= highest + 5, "\(step)")
        }
        #expect(lines.contains { $0.hasPrefix("  steps           step ") }, "\(transcript)")
        // Without lap events, the plan's steps are the workout's laps: in the summary and in a FIT or TCX export.
        #expect(WorkoutLaps.intervals(of: workout) == segments.map(\.dateInterval))
        #expect(lines.contains { $0.hasPrefix("  laps            lap ") }, "\(transcript)")
        let tcx = try Tool.run([
            "export", workout.uuid.uuidString, "--format", "tcx", "--output", "-", "--store", store,
        ])
        #expect(tcx.status == 0, "\(tcx.stderr)")
        #expect(tcx.stdout.components(separatedBy: "<Lap StartTime=").count - 1 == 3, "\(tcx.stdout.prefix(2000))")
        let plan = try #require(try await health.workoutPlan(for: workout))
        #expect(plan.runnerSteps.map(\.power) == [.threshold(150), .threshold(250), .threshold(180)])

        // The simulated trainer held each step's target: its power in each step's second half within 5 %.
        let power = try await HKSampleQueryDescriptor(
            predicates: [
                .quantitySample(
                    type: HKQuantityType(.cyclingPower), predicate: HKQuery.predicateForObjects(from: workout))
            ],
            sortDescriptors: [SortDescriptor(\.startDate)]
        ).result(for: health)
        let watts = power.map { ($0.startDate.timeIntervalSince(start), $0.quantity.doubleValue(for: .watt())) }
        for (from, target) in [(0.0, 150.0), (16, 250), (32, 180)] {
            let half = watts.filter { $0.0 >= from + 8 && $0.0 < from + 16 }.map(\.1)
            let average = half.reduce(0, +) / Double(max(1, half.count))
            #expect(!half.isEmpty && abs(average - target) / target <= 0.05, "\(target): \(half)")
        }
    }

    /// A trainer whose Supported Power Range tops at 200 W (read at its connection): the 250 W step is held at 200 W
    /// with a line saying so, the trainer takes 200 W (it would refuse 250 W as an invalid parameter), and the steps
    /// within its range are set as planned.
    @Test func aStepAboveTheTrainersRangeIsHeldAtItsTop() throws {
        let (transcript, lines, _) = try Self.ride(
            trainer: ["--max-power", "200"], seconds: 36, in: try TemporaryDirectory())
        let clamped = try #require(
            lines.first { $0.hasSuffix(": 250 W is outside the trainer's range; holding 200 W") }, "\(transcript)")
        #expect(Self.seconds(clamped) == 16, "\(transcript)")
        for (start, watts) in [(0, 150), (16, 200), (32, 180)] {
            let taken = try #require(
                lines.first { $0.hasSuffix("target power \(watts) W") && Self.seconds($0) >= start }, "\(transcript)")
            #expect(Self.seconds(taken) - start <= 1, "\(transcript)")
        }
        #expect(!transcript.contains("target power 250 W"), "\(transcript)")
        #expect(!transcript.lowercased().contains("invalid parameter"), "\(transcript)")
    }

    /// Without any trainer (a heart-rate strap only), the plan runs as guidance, says so, and the recording goes on.
    @Test func withoutATrainerThePlanGuides() throws {
        let directory = try TemporaryDirectory()
        let clock = try SteppedClock(directory: directory)
        let socket = directory.file("strap.sock")
        let strap = try clock.startPeripheral(["--profile", "heart-rate", "--listen", socket]).member
        defer { SteppedClock.stop([strap]) }
        let file = directory.file("three.zwo")
        try Data(Self.plan.utf8).write(to: URL(fileURLWithPath: file))
        let (recording, result) = try clock.startRecording(
            [
                "--sensor", "unix:\(socket)", "--plan", file, "--ftp", "250", "--duration", "20", "--store",
                directory.file("guide.sqlite"),
            ], peripherals: [strap])
        #expect(clock.runUntilEnded(recording, [strap]) == 80)
        let transcript = result().transcript
        #expect(transcript.contains("No trainer is under control: the plan runs as guidance."), "\(transcript)")
        #expect(transcript.contains("0:16  step 2/3 "), "\(transcript)")
        #expect(!transcript.contains("target power 150 W"), "\(transcript)")
    }

    /// A trainer that drops from 12 s to 16 s: the plan goes on as guidance and says so (steps still begin on time),
    /// takes control back when the trainer returns (its target asked for again), and the recording never stops.
    @Test func aTrainerThatDropsIsTakenBackWhenItReturns() throws {
        let (transcript, lines, _) = try Self.ride(
            trainer: ["--dropout", "12:4"], seconds: 30, in: try TemporaryDirectory())
        let lost = try #require(lines.firstIndex { $0.hasSuffix("trainer.sock lost") }, "\(transcript)")
        #expect(Self.seconds(lines[lost]) == 12, "\(transcript)")
        let guiding = try #require(
            lines.firstIndex { $0.hasSuffix("No trainer is under control: the plan runs as guidance.") },
            "\(transcript)")
        #expect(guiding > lost && Self.seconds(lines[guiding]) <= 13, "\(transcript)")
        let back = try #require(lines.firstIndex { $0.hasSuffix("trainer.sock back") }, "\(transcript)")
        let controlled = try #require(
            lines.lastIndex { $0.hasSuffix("A trainer is under control: the plan sets its power.") }, "\(transcript)")
        #expect(
            controlled > guiding && Self.seconds(lines[controlled]) - Self.seconds(lines[back]) <= 1, "\(transcript)")
        // The step that began while it was gone (on time) took its target as soon as the trainer was back (the
        // recording's reconnection backoff finds it again a few seconds after its dropout ended).
        #expect(lines.contains { $0.hasPrefix("0:16  step 2/3 ") }, "\(transcript)")
        let taken = try #require(lines.first { $0.hasSuffix("target power 250 W") }, "\(transcript)")
        #expect(Self.seconds(taken) - Self.seconds(lines[back]) <= 1, "\(transcript)")
        #expect(transcript.contains("Saved workout"), "\(transcript)")
    }

    /// On a terminal: the view shows the step, `n` skips to the next one, `+` shifts the plan's power by 5 %
    /// (250 W × 1.05 = 262.5, shown 263 W) and the trainer takes the shifted target.
    @Test func nSkipsAStepAndPlusShiftsThePlan() throws {
        let directory = try TemporaryDirectory()
        let clock = try SteppedClock(directory: directory)
        let socket = directory.file("trainer.sock")
        let trainer = try clock.startPeripheral(["--profile", "smart-trainer", "--listen", socket]).member
        defer { SteppedClock.stop([trainer]) }
        let file = directory.file("three.zwo")
        try Data(Self.plan.utf8).write(to: URL(fileURLWithPath: file))
        let terminal = try KeysTests.Terminal()
        let process = Process()
        process.arguments = [
            "record", "--sensor", "unix:\(socket)", "--plan", file, "--ftp", "250", "--ramp", "0", "--store",
            directory.file("keys.sqlite"),
        ]
        let handle = FileHandle(fileDescriptor: terminal.slave, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        let recording = try clock.start(process, peripherals: [trainer])
        func second() {
            for _ in 0 ..< 4 { #expect(clock.step(recording, [trainer]) == "ok") }
            #expect(clock.sync(recording, [trainer]) == "ok")
        }
        #expect(
            terminal.wait {
                $0.contains("+ and - shift the plan's power, n skips a step, q or Ctrl-C ends and saves.")
            },
            "\(terminal.output)")
        second()
        #expect(terminal.wait { $0.contains("step 1/3 Work   target 150 W") }, "\(terminal.output)")
        second()
        var mark = terminal.output.endIndex
        terminal.type("n")  // at 0:02
        #expect(terminal.wait(after: mark) { $0.contains("step 2/3 Work   target 250 W") }, "\(terminal.output)")
        second()
        mark = terminal.output.endIndex
        terminal.type("+")  // at 0:03
        #expect(
            terminal.wait(after: mark) { $0.contains("step 2/3 Work   target 263 W") && $0.contains("power +5 %") },
            "\(terminal.output)")
        for _ in 0 ..< 2 { second() }
        #expect(terminal.wait { $0.contains("ERG 263 W  (+/- 5 %)") }, "\(terminal.output)")
        terminal.type("q")
        let ended = recording.readLine()
        #expect(ended == "ended")
        if ended != "ended" { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit(within: childProcessTimeLimit) { terminal.output }
        #expect(process.terminationStatus == 0)
    }

    /// A plan argument that is neither a file nor a plan's id: one sentence, nothing recorded.
    @Test func aPlanThatIsNotThereIsOneSentence() throws {
        let directory = try TemporaryDirectory()
        let run = try Tool.run([
            "record", "--sensor", "unix:/nowhere.sock", "--plan", "nothing.zwo", "--store", directory.file("x.sqlite"),
        ])
        #expect(run.status != 0)
        #expect(
            run.stderr.contains("--plan nothing.zwo: there is no such file, and it is not a plan's id"), "\(run.stderr)"
        )
    }

    /// `m:ss  …` → seconds.
    static func seconds(_ line: String) -> Int {
        let clock = line.prefix { $0 != " " }.split(separator: ":").compactMap { Int($0) }
        return clock.count == 2 ? clock[0] * 60 + clock[1] : -1
    }
}
