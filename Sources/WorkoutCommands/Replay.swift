import ArgumentParser
import FitnessSensors
import Foundation
import OpenHealthKit
import Synchronization
import WorkoutWeb

extension Workout {
    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replay a recorded fixture as a live workout, and save it.",
            discussion: """
                The fixture's raw notifications go through the same decoders a live strap's do, into an \
                HKWorkoutSession with its HKLiveWorkoutBuilder and data source; its session actions (activities, \
                pause, resume, laps, markers) are carried out as they were recorded. The whole file is checked \
                before anything is written. On a terminal a live display is updated in place; piped, plain lines. \
                Instant replays are saved at the time the fixture was recorded; paced ones start now. \
                Zones are your heart-rate zones from the store (see `workout profile`), or heart-rate-reserve zones \
                from --max-heart-rate/--resting-heart-rate.

                Examples:
                  workout replay fixtures/run-45min.jsonl                real time
                  workout replay fixtures/ride-90min.jsonl --speed 60    an hour a minute
                  workout replay fixtures/triathlon-swim-bike-run.jsonl --instant
                                                                         at once, into the store
                """
        )

        @OptionGroup var options: StoreOptions
        @Argument(help: ArgumentHelp("The fixture (JSON Lines; see fixtures/FORMAT.md).", valueName: "FILE")) var file:
            String
        @Option(help: ArgumentHelp("Fixture seconds per real second (1 is real time).", valueName: "N")) var speed:
            Double = 1
        @Flag(help: "Replay as fast as possible on a virtual clock.") var instant = false
        @Flag(help: "Print the library's log messages to standard error.") var verbose = false
        @OptionGroup var heartRateZones: HeartRateZoneOptions
        @OptionGroup var serving: ServeOptions

        func validate() throws {
            guard speed > 0, speed <= 100_000 else {
                throw ValidationError("--speed must be between 0 and 100000, not \(speed).")
            }
            if try serving.address() != nil, instant {
                throw ValidationError("--serve shows a replay as it plays: it cannot be used with --instant.")
            }
        }

        func run() async throws {
            CommandLog.bootstrap(verbose: verbose)
            try await reportingErrors {
                // The fixture is checked to its end before the store is opened: a bad file writes nothing.
                let summary = try FixtureSummary.scan(path: file)
                // An instant replay runs on a virtual clock of its own, whatever time the command runs in.
                let time: any CommandTime = instant ? MachineTime() : Workout.time
                let store = try await options.open()
                if let clocks = time.storeClocks { store.clocks = clocks }
                let replay = try WorkoutReplay(fixtureAt: file, healthStore: store, instant: instant)
                if let zones = try heartRateZones.configuration() {
                    try await replay.builder.setCustomZoneConfiguration(zones, for: HKQuantityType(.heartRate))
                }
                let monitor = LiveMonitor(
                    session: replay.session, builder: replay.builder, dataSource: replay.dataSource,
                    start: replay.sessionStart)
                await monitor.loadZones()
                replay.builder.delegate = monitor
                let display = LiveDisplay(
                    monitor: monitor, terminal: isatty(STDOUT_FILENO) == 1, now: { [store] in store.wallClock() })
                display.quiet = instant
                let laps = ReplayLaps(start: replay.sessionStart)
                let server = try await serving.start(display) { [store] action in
                    let outcome = await laps.control(action, replay: replay, now: store.wallClock())
                    display.tick(at: store.wallClock())
                    return outcome
                }
                let how = instant ? "instantly" : "at \(Format.number(speed))× speed"
                // The activity as the replay's session has it (the fixture spells it as the case: swimBikeRun).
                let activity = replay.session.workoutConfiguration.activityType.name
                print(
                    "Replaying \(file) (\(activity), \(Format.duration(summary.duration)), "
                        + "\(summary.notifications) notifications from \(summary.header.sensors.map(\.name).joined(separator: ", "))) \(how)."
                )
                fflush(nil)
                let workout = try await play(replay, display: display, time: time)
                await replay.builder.waitForDelegateCalls()
                if !instant {
                    display.finish(at: workout.endDate)
                }
                await server?.stop()
                let lines = try await WorkoutSummary.lines(
                    workout, store: store, sensors: replay.dataSource.sensorStatuses)
                print(lines.joined(separator: "\n"))
            }
        }

        /// Runs the replay to its end while the display draws (on its own loop, or on the steps of `time` when it
        /// draws the frames), and returns the saved workout.
        private func play(
            _ replay: WorkoutReplay, display: LiveDisplay, time: any CommandTime
        ) async throws -> HKWorkout {
            let store = replay.healthStore
            return try await withThrowingTaskGroup(of: HKWorkout?.self) { group in
                group.addTask {
                    let workout = try await replay.run(
                        pace: instant ? .instant : .speed(speed), whileTheStoreDoesNotAnswer: reportStoreOutage)
                    time.ended()
                    return workout
                }
                let drawn = time.pacedReplayStarted { [store] in
                    await replay.builder.waitForDelegateCalls()
                    display.tick(at: store.wallClock())
                }
                if !drawn {
                    group.addTask {
                        await display.run()
                        return nil
                    }
                }
                var saved: HKWorkout?
                while let result = try await group.next() {
                    if let result {
                        saved = result
                        group.cancelAll()
                    }
                }
                guard let saved else { throw CommandFailure("The replayed workout could not be saved.") }
                return saved
            }
        }
    }
}

/// What a page may ask of a paced replay: pause and resume its session, mark a lap (from the previous lap's end, or
/// the start); a replay has no trainer to set a target on.
final class ReplayLaps: Sendable {
    private let lastLap: Mutex<Date>

    init(start: Date) { lastLap = Mutex(start) }

    func control(_ action: LiveControl, replay: WorkoutReplay, now: Date) async -> LiveControlOutcome {
        switch action {
        case .pause:
            if replay.session.state == .running { replay.session.pause() }
        case .resume:
            if replay.session.state == .paused { replay.session.resume() }
        case .lap:
            let from = lastLap.withLock { $0 }
            let lap = HKWorkoutEvent(type: .lap, dateInterval: DateInterval(start: from, end: now), metadata: nil)
            do { try await replay.builder.addWorkoutEvents([lap]) } catch {
                return .unavailable("The lap could not be marked: \((error as? HKError)?.message ?? "\(error)")")
            }
            lastLap.withLock { $0 = now }
        case .raiseTarget, .lowerTarget:
            return .unavailable("A replay has no trainer to set a target power on.")
        }
        return .done
    }
}
