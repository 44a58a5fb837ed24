import ArgumentParser
import Foundation
import OpenHealthKit
import OpenWorkoutKit
import Synchronization
import WorkoutWeb

extension Workout {
    struct Record: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Record a live workout from the paired sensors (and any --sensor); q or Ctrl-C ends and saves it.",
            discussion: """
                On a terminal a live view is redrawn in place (moving time, heart rate, power, cadence, speed, the heart-rate zone and the time in each, laps, a status line per sensor, and a smart trainer's target power); space pauses and resumes, l marks a lap, + and - raise and lower a smart trainer's target power by \(TrainerTargets.step) W (ERG; the first press starts from the current power), q or Ctrl-C ends and saves (a second Ctrl-C while saving quits at once: the store's journal keeps the workout and `workout recover` offers it). Piped, it prints one line a minute and one per event. A recording in which nothing was collected is not saved (exit 1) unless --keep-empty.

                Example:
                  workout record --activity cycling --sensor unix:/tmp/power.sock
                  workout record --activity running --save-fixture run.jsonl
                  workout record --sensor unix:/tmp/trainer.sock --target-power 200

                --target-power holds that power on a smart trainer (any sensor with a Fitness Machine Control Point): the tool asks for control, then sets the target; a trainer that refuses control (another app holds it) is recorded from all the same, and the view says so.

                --plan runs a plan (a .workout, .zwo, .erg, .mrc or FIT workout file, or a plan's id from `workout plan list`): each step's power becomes the trainer's target, ramped over --ramp seconds, each step is recorded as a segment, and the workout keeps the plan. + and - shift the plan's power by \(LiveRecording.planShiftStep) %, n skips to the next step, l ends an open step. Without a trainer under control the plan runs as guidance; with a power meter besides the trainer, --power-match corrects the target so that the meter reads it. A heart-rate, cadence or speed alert out of range rings the bell.
                  workout record --sensor unix:/tmp/trainer.sock --plan sweet-spot.zwo
                """
        )

        @OptionGroup var options: StoreOptions
        @Option(help: ArgumentHelp("The activity: running, cycling, walking, …", valueName: "NAME"))
        var activity: String = "cycling"
        @Option(
            name: .customLong("sensor"),
            help: ArgumentHelp("A sensor to read besides the paired ones (repeatable).", valueName: "ADDRESS"))
        var sensors: [String] = []
        @Option(help: ArgumentHelp("End after this many seconds instead of at q or Ctrl-C.", valueName: "S"))
        var duration: Double?
        @Option(
            help: ArgumentHelp(
                "Also write what the sensors send, raw, as a fixture (see fixtures/FORMAT.md).", valueName: "FILE"))
        var saveFixture: String?
        @Option(
            help: ArgumentHelp(
                "Hold this power on a smart trainer (ERG); + and - change it by \(TrainerTargets.step) W.",
                valueName: "WATTS"))
        var targetPower: Int?
        @Option(
            help: ArgumentHelp(
                "Run a plan: a plan file (.workout, .zwo, .erg, .mrc, .fit) or a plan's id (workout plan list).",
                valueName: "FILE_OR_ID"))
        var plan: String?
        @Option(
            help: ArgumentHelp("FTP in watts for a .zwo or .mrc --plan (default: the profile's).", valueName: "WATTS"))
        var ftp: Double?
        @Option(help: ArgumentHelp("Seconds a plan's target takes to move to the next step's.", valueName: "S"))
        var ramp: Double = PlanRunner.Settings().rampDuration
        @Flag(
            help:
                "With --plan and a power meter besides the trainer: correct the trainer's target so the meter reads it."
        )
        var powerMatch = false
        @OptionGroup var serving: ServeOptions
        @Flag(help: "Mirror the recording to `workout watch` in another terminal on the same store.")
        var mirror = false
        @Flag(help: "Save the workout even if nothing was collected.")
        var keepEmpty = false
        @Option(
            help: ArgumentHelp(
                "Once saved, also copy the workout to this store (as `workout sync` does).", valueName: "STORE"))
        var sync: String?
        @Flag(help: "Print the library's log messages (connections, retries, skipped notifications) to standard error.")
        var verbose = false

        func validate() throws {
            guard HKWorkoutActivityType(name: activity) != nil else {
                throw ValidationError("'\(activity)' is not an activity type.")
            }
            if let duration, !(duration > 0) {
                throw ValidationError("--duration must be a positive number of seconds.")
            }
            _ = try serving.address()
            if let targetPower, !(1 ... TrainerTargets.maximum).contains(targetPower) {
                throw ValidationError(
                    "--target-power must be between 1 and \(TrainerTargets.maximum) W, not \(targetPower).")
            }
            if let plan, Int64(plan) == nil, !FileManager.default.fileExists(atPath: plan) {
                throw ValidationError(
                    "--plan \(plan): there is no such file, and it is not a plan's id (`workout plan list`).")
            }
            if powerMatch, plan == nil {
                throw ValidationError("--power-match corrects a plan's target: it needs --plan.")
            }
            if plan != nil, targetPower != nil {
                throw ValidationError("--plan and --target-power cannot go together: the plan sets the target power.")
            }
            if !(0 ... 60).contains(ramp) {
                throw ValidationError("--ramp must be between 0 and 60 seconds, not \(ramp).")
            }
            if let ftp, !(ftp > 0 && ftp <= 2500) {
                throw ValidationError("--ftp must be above 0 and at most 2500 W, not \(ftp).")
            }
        }

        func run() async throws {
            CommandLog.bootstrap(verbose: verbose)
            try await reportingErrors {
                // Permanent failures first: one sentence and exit 1 before anything starts.
                try SensorPreflight.check(sensors)
                let time = Workout.time
                let store = try await options.open()
                if let clocks = time.storeClocks { store.clocks = clocks }
                let recording = try await prepare(store: store, time: time)
                let monitor = LiveMonitor(
                    session: recording.session, builder: recording.builder, dataSource: recording.dataSource,
                    start: recording.startDate)
                recording.builder.delegate = monitor
                let terminal = isatty(STDOUT_FILENO) == 1
                let display = LiveDisplay(monitor: monitor, terminal: terminal, now: { [store] in store.wallClock() })
                // The page's requests go where the keys go, once the recording takes commands.
                let sink = CommandSink()
                let server = try await serving.start(display) { action in
                    sink.control(action, state: recording.session.state)
                }
                try await start(recording, monitor: monitor, display: display, terminal: terminal)
                print(banner(recording))
                if mirror { print(Self.describe(await recording.startMirroring())) }
                fflush(nil)
                let inputs = RecordingInputs(duration: duration, clock: store.clocks.monotonic)
                defer { inputs.signals.cancel() }
                sink.connect(inputs.send)
                let drawing = Task { await display.run(clock: time.clock) }
                // The display's loop, and a plan's runner, sleep on the command's clock.
                time.recordingStarted(
                    sensors: recording.sensorNames.count, loops: plan == nil ? 1 : 2, trainers: recording.trainers,
                    duration: duration)
                try await inputs.steer(recording, display: display)
                time.ended()
                drawing.cancel()
                _ = await drawing.value
                display.finish(at: try await recording.end())
                await server?.stop()
                if terminal { print("") }
                try await save(recording, store: store)
            }
        }

        /// The recording the command's options describe, its plan read, once the paired sensors are checked.
        private func prepare(store: HKHealthStore, time: any CommandTime) async throws -> LiveRecording {
            try await checkPairedSensors(store)
            var recordingOptions = recordingOptions(time)
            if let plan {
                try recordingOptions.setWorkoutPlan(await PlanText.plan(named: plan, ftp: ftp, store: store))
                recordingOptions.plan?.settings.rampDuration = ramp
                recordingOptions.plan?.powerMatch = powerMatch
            }
            return try await LiveRecording(healthStore: store, options: recordingOptions)
        }

        /// Starts collecting, each trainer and plan event a line of the view.
        private func start(
            _ recording: LiveRecording, monitor: LiveMonitor, display: LiveDisplay, terminal: Bool
        ) async throws {
            let store = recording.healthStore
            let time = Workout.time
            // A trainer's answer comes a moment after the request: the view shows it at once.
            let planned = plan != nil
            try await recording.start { [store] event in
                let now = store.wallClock()
                // A plan's ramps (and power match) move the target every update: the line worth reading is the
                // one that says a step's own target (within the trainer's range) was taken.
                if planned, case .targetSet(_, let watts) = event, recording.planHeldTarget != watts {
                    return
                }
                monitor.note("\(event)", at: now)
            } trainerChanged: { [store] in
                display.tick(at: store.wallClock())
                time.trainersChanged()
            } planEvents: { [store] event in
                monitor.note("\(event)", at: event.date ?? store.wallClock())
                if terminal, case .runner(.alert(_, _, _, outOfRange: true, _), _) = event {
                    FileHandle.standardOutput.write(Data("\u{07}".utf8))
                }
            }
            monitor.trainers = recording.trainers
            monitor.planStatus = { recording.planStatus(at: $0) }
            await monitor.loadZones()
        }

        /// Saves the ended recording (unless nothing was collected and --keep-empty is not given) and prints its
        /// summary; --sync copies it on.
        private func save(_ recording: LiveRecording, store: HKHealthStore) async throws {
            print("Saving… (Ctrl-C again quits at once; the journal keeps the workout for `workout recover`.)")
            fflush(nil)
            guard recording.collectedAnything || keepEmpty else {
                recording.discard()
                throw CommandFailure(
                    "Nothing was collected, so nothing was saved (--keep-empty saves an empty workout).")
            }
            let workout = try await recording.save(whileTheStoreDoesNotAnswer: reportStoreOutage)
            if let path = recording.fixturePath { print("Saved the raw notifications to \(path).") }
            let lines = try await WorkoutSummary.lines(workout, store: store, sensors: recording.sensorStatuses)
            print(lines.joined(separator: "\n"))
            if let sync, let path = store.databasePath { try await copy(workout, from: path, to: sync) }
        }

        /// `--sync`: the saved workout copied to another store; a failure says the workout is safe where it is.
        private func copy(_ workout: HKWorkout, from path: String, to destination: String) async throws {
            do {
                print(try await StoreSync(from: path, to: destination, only: [workout.uuid]).run { _ in })
            } catch {
                let reason = (error as? HKError)?.message ?? (error as? CommandFailure)?.message ?? "\(error)"
                throw CommandFailure(
                    "The workout is saved in \(path), but copying it to \(destination) failed: \(reason) "
                        + "`workout sync \(path) \(destination)` copies it later.")
            }
        }

        /// The paired sensors' permanent failures, and a recording with no sensor at all.
        private func checkPairedSensors(_ store: HKHealthStore) async throws {
            let paired = try await store.pairedSensors()
            try SensorPreflight.check(paired.map(\.identifier))
            guard !sensors.isEmpty || !paired.isEmpty else {
                throw CommandFailure(
                    "There is no sensor to record from; pair one with `workout pair ADDRESS` or pass --sensor ADDRESS.")
            }
        }

        /// The recording's options from the command's: the sensors sleep on the command's clock, and its time hears
        /// their notifications.
        private func recordingOptions(_ time: any CommandTime) -> LiveRecording.Options {
            var options = LiveRecording.Options()
            options.activityType = HKWorkoutActivityType(name: activity)!
            options.sensors = sensors
            options.fixturePath = saveFixture
            options.targetPower = targetPower
            options.clock = time.clock
            options.tap = { time.recordingTap(next: $0) }
            return options
        }

        /// What is recorded, from which sensors, and the keys that steer it.
        private func banner(_ recording: LiveRecording) -> String {
            let keys =
                isatty(STDIN_FILENO) == 1
                ? "space pauses, l marks a lap, \(plan != nil ? "+ and - shift the plan's power, n skips a step, " : targetPower == nil ? "" : "+ and - change the target power, ")q or Ctrl-C ends and saves"
                : "Ctrl-C ends and saves"
            let activity = recording.session.workoutConfiguration.activityType.name
            return "Recording a \(activity) workout from \(recording.sensorNames.joined(separator: ", ")); \(keys)."
        }

        /// Whether a companion was there, in one sentence.
        private static func describe(_ start: LiveRecording.MirroringStart) -> String {
            switch start {
            case .mirroring: "Mirroring to `workout watch` on this store."
            case .noCompanion: "No `workout watch` is waiting on this store yet; one started later is mirrored to."
            case .failed(let message): "Mirroring failed (\(message)); the recording goes on."
            }
        }
    }
}

/// What steers a running recording, as one stream of commands: the keys on a terminal (``TerminalKeys``), SIGINT and
/// SIGTERM (``EndSignals``, which stay armed until cancelled: a second Ctrl-C while saving quits at once), and the end
/// of `--duration` on the store's monotonic clock.
final class RecordingInputs: Sendable {
    let signals: EndSignals
    private let commands: AsyncStream<RecordingCommand>
    private let input: AsyncStream<RecordingCommand>.Continuation
    private let keys = TerminalKeys()
    private let timer: Task<Void, Never>?

    init(duration: Double?, clock: any Clock<Duration>) {
        let (commands, send) = AsyncStream.makeStream(of: RecordingCommand.self)
        self.commands = commands
        input = send
        signals = EndSignals { send.yield($0) }
        keys.start { send.yield($0) }
        timer = duration.map { seconds in
            endTimer(after: .milliseconds(Int64(seconds * 1000)), on: clock) { send.yield(.end) }
        }
    }

    /// Takes a command from elsewhere (the page `--serve` serves), as if its key was pressed.
    @Sendable func send(_ command: RecordingCommand) { input.yield(command) }

    /// Carries out each command on `recording`, the display redrawn after each, until one ends it; then the terminal
    /// is put back as it was.
    func steer(_ recording: LiveRecording, display: LiveDisplay) async throws {
        defer {
            timer?.cancel()
            keys.restore()
        }
        for await command in commands {
            switch command {
            case .togglePause:
                recording.togglePause()
                display.tick(at: recording.healthStore.wallClock())
            case .lap: display.tick(at: try await recording.markLap())
            case .raiseTarget: display.tick(at: await recording.changeTargetPower(by: 1))
            case .lowerTarget: display.tick(at: await recording.changeTargetPower(by: -1))
            case .skipStep: display.tick(at: await recording.skipStep())
            case .end: return
            }
        }
    }
}

/// Calls `end` once `clock` has moved `duration` past the instant of this call (not of the task's first run: on a
/// loaded machine that can come after time moved, and `--duration` would then end late, or, on a test's clock, never).
private func endTimer<C: Clock>(
    after duration: Duration, on clock: C, _ end: @escaping @Sendable () -> Void
) -> Task<Void, Never> where C.Duration == Duration {
    let deadline = clock.now.advanced(by: duration)
    return Task {
        guard (try? await clock.sleep(until: deadline, tolerance: nil)) != nil else { return }
        end()
    }
}

/// Where a page's control requests go: the recording's commands, once it takes them (``RecordingInputs``).
final class CommandSink: Sendable {
    private let target = Mutex<(@Sendable (RecordingCommand) -> Void)?>(nil)

    func connect(_ send: @escaping @Sendable (RecordingCommand) -> Void) { target.withLock { $0 = send } }

    /// `action` as the key that does it: pause only a running session, resume only a paused one (a page's button
    /// may be pressed twice).
    func control(_ action: LiveControl, state: HKWorkoutSessionState) -> LiveControlOutcome {
        guard let send = target.withLock({ $0 }) else { return .unavailable("The recording has not started yet.") }
        switch action {
        case .pause: if state == .running { send(.togglePause) }
        case .resume: if state == .paused { send(.togglePause) }
        case .lap: send(.lap)
        case .raiseTarget: send(.raiseTarget)
        case .lowerTarget: send(.lowerTarget)
        }
        return .done
    }
}
