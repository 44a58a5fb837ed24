import ArgumentParser
import BlueZDBus
import BlueZTransport
import FitnessSensors
import Foundation
import Logging
import OpenHealthKit

extension Workout {
    struct Record: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Record a live workout from the paired sensors (and any --sensor); q or Ctrl-C ends and saves it.",
            discussion: """
                On a terminal a live view is redrawn in place (moving time, heart rate, power, cadence, speed, the heart-rate zone and the time in each, laps, a status line per sensor, and a smart trainer's target power); space pauses and resumes, l marks a lap, + and - raise and lower a smart trainer's target power by \(TrainerControls.step) W (ERG; the first press starts from the current power), q or Ctrl-C ends and saves (a second Ctrl-C while saving quits at once: the store's journal keeps the workout and `workout recover` offers it). Piped, it prints one line a minute and one per event. A recording in which nothing was collected is not saved (exit 1) unless --keep-empty.

                Example:
                  workout record --activity cycling --sensor unix:/tmp/power.sock
                  workout record --activity running --save-fixture run.jsonl
                  workout record --sensor unix:/tmp/trainer.sock --target-power 200

                --target-power holds that power on a smart trainer (any sensor with a Fitness Machine Control Point): the tool asks for control, then sets the target; a trainer that refuses control (another app holds it) is recorded from all the same, and the view says so.
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
                "Hold this power on a smart trainer (ERG); + and - change it by \(TrainerControls.step) W.",
                valueName: "WATTS"))
        var targetPower: Int?
        @Flag(help: "Mirror the recording to `workout watch` in another terminal on the same store.")
        var mirror = false
        @Flag(help: "Save the workout even if nothing was collected.")
        var keepEmpty = false
        @Flag(help: "Print the library's log messages (connections, retries, skipped notifications) to standard error.")
        var verbose = false

        func validate() throws {
            guard HKWorkoutActivityType(name: activity) != nil else {
                throw ValidationError("'\(activity)' is not an activity type.")
            }
            if let duration, !(duration > 0) {
                throw ValidationError("--duration must be a positive number of seconds.")
            }
            if let targetPower, !(1 ... TrainerControls.maximum).contains(targetPower) {
                throw ValidationError(
                    "--target-power must be between 1 and \(TrainerControls.maximum) W, not \(targetPower).")
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
                let paired = try await store.pairedSensors()
                try SensorPreflight.check(paired.map(\.identifier))
                guard !sensors.isEmpty || !paired.isEmpty else {
                    throw CommandFailure(
                        "There is no sensor to record from; pair one with `workout pair ADDRESS` or pass --sensor ADDRESS."
                    )
                }
                let start = store.wallClock()
                let recorder = try saveFixture.map { try FixtureRecorder(path: $0, start: start) }
                var sensorOptions = BLESensor.Options()
                sensorOptions.tap = time.recordingTap(next: recorder)
                let sensorClock = time.clock
                if sensorOptions.tap != nil {
                    // BlueZ's connector with the tap, on the command's clocks (the machine's: `.bluez(tap:)`).
                    store.sensorConnector = SensorConnector(schemes: ["ble", "unix"]) { [sensorOptions] paired in
                        try makeBluetoothSensor(
                            identifier: paired.identifier, name: paired.name, capabilities: paired.capabilities,
                            options: sensorOptions, clock: time.clock, wallClock: time.now)
                    }
                }
                // A --sensor that is paired too keeps the name and measures it was paired with.
                let attached = try sensors.map { address in
                    let identifier = try SensorAddress(parsing: address).identifier
                    let record = paired.first { $0.identifier == identifier }
                    return try makeBluetoothSensor(
                        identifier: identifier, name: record?.name, capabilities: record?.capabilities,
                        options: sensorOptions, clock: sensorClock, wallClock: store.wallClock)
                }
                // The paired sensors the data source connects: not those a --sensor already reaches (it stands for
                // them, see HKLiveWorkoutDataSource).
                let alsoPaired = paired.filter { record in !attached.contains { $0.identifier == record.identifier } }
                // Fixture ids: the sensors' identifiers, as they are unique.
                for identifier in attached.map(\.identifier) + alsoPaired.map(\.identifier) {
                    recorder?.register(identifier: identifier, as: identifier)
                }
                let configuration = HKWorkoutConfiguration()
                configuration.activityType = HKWorkoutActivityType(name: activity)!
                let session = try HKWorkoutSession(healthStore: store, configuration: configuration)
                let builder = session.associatedWorkoutBuilder()
                let dataSource = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration)
                for sensor in attached { dataSource.attach(sensor) }
                builder.dataSource = dataSource
                let monitor = LiveMonitor(session: session, builder: builder, dataSource: dataSource, start: start)
                builder.delegate = monitor
                session.startActivity(with: start)
                try await builder.beginCollection(at: start)
                await monitor.loadZones()
                let terminal = isatty(STDOUT_FILENO) == 1
                let display = LiveDisplay(monitor: monitor, terminal: terminal, now: { [store] in store.wallClock() })
                let trainers = TrainerControls(sensors: dataSource.sensors, clock: sensorClock)
                monitor.trainers = trainers
                // A trainer's answer comes a moment after the request: the view shows it at once.
                trainers.start(target: targetPower) { [store] line in
                    monitor.note(line, at: store.wallClock())
                } changed: { [store] in
                    display.tick(at: store.wallClock())
                }
                let names = (attached.map(\.name) + alsoPaired.map(\.name)).joined(separator: ", ")
                let keys =
                    isatty(STDIN_FILENO) == 1
                    ? "space pauses, l marks a lap, \(targetPower == nil ? "" : "+ and - change the target power, ")q or Ctrl-C ends and saves"
                    : "Ctrl-C ends and saves"
                print("Recording a \(configuration.activityType.name) workout from \(names); \(keys).")
                let mirroring =
                    mirror ? await MirrorSender.start(session: session, builder: builder, store: store) : nil
                fflush(nil)

                let (commands, send) = AsyncStream.makeStream(of: RecordingCommand.self)
                let signals = EndSignals { send.yield($0) }
                let terminalKeys = TerminalKeys()
                terminalKeys.start { send.yield($0) }
                let timer = duration.map { seconds in
                    endTimer(after: .milliseconds(Int64(seconds * 1000)), on: store.clocks.monotonic) {
                        send.yield(.end)
                    }
                }
                let drawing = Task { await display.run(clock: sensorClock) }
                time.recordingStarted(sensors: attached.count + alsoPaired.count, duration: duration)
                var lastLap = start
                for await command in commands {
                    switch command {
                    case .togglePause:
                        if session.state == .paused {
                            session.resume()
                        } else if session.state == .running {
                            session.pause()
                        }
                        display.tick(at: store.wallClock())
                    case .lap:
                        let now = store.wallClock()
                        try await builder.addWorkoutEvents([
                            HKWorkoutEvent(
                                type: .lap, dateInterval: DateInterval(start: lastLap, end: now), metadata: nil)
                        ])
                        lastLap = now
                        display.tick(at: now)
                    case .raiseTarget, .lowerTarget:
                        let now = store.wallClock()
                        let power = builder.threeSecondPower(at: now)?.doubleValue(for: .watt())
                        trainers.change(by: command == .raiseTarget ? 1 : -1, from: power)
                        display.tick(at: now)
                    case .end:
                        break
                    }
                    if command == .end { break }
                }
                timer?.cancel()
                mirroring?.cancel()
                trainers.close()
                time.ended()
                terminalKeys.restore()
                let end = store.wallClock()
                drawing.cancel()
                _ = await drawing.value
                recorder?.record(.end, at: end)
                session.end()
                try await builder.endCollection(at: end)
                await releaseSensors(dataSource.sensors)
                await builder.waitForDelegateCalls()
                display.finish(at: end)
                if terminal { print("") }
                print("Saving… (Ctrl-C again quits at once; the journal keeps the workout for `workout recover`.)")
                fflush(nil)
                let statuses = dataSource.sensorStatuses
                guard monitor.collectedAnything || keepEmpty else {
                    builder.discardWorkout()
                    signals.cancel()
                    throw CommandFailure(
                        "Nothing was collected, so nothing was saved (--keep-empty saves an empty workout).")
                }
                guard let workout = try await builder.finishWorkout() else {
                    throw CommandFailure("The workout could not be saved.")
                }
                signals.cancel()
                if let recorder {
                    let described = dataSource.sensors.map { sensor in
                        FixtureHeader.SensorDescription(
                            id: sensor.identifier, name: sensor.name, services: [],
                            capabilities: sensor.capabilities.names,
                            deviceInformation: .init(sensor.deviceInformation))
                    }
                    try recorder.finish(session: .init(activity: activity, location: nil), sensors: described)
                    print("Saved the raw notifications to \(recorder.path).")
                }
                let lines = try await WorkoutSummary.lines(workout, store: store, sensors: statuses)
                print(lines.joined(separator: "\n"))
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

/// Waits until the stopped sensors released what they held through bluetoothd (notification sessions, a link this
/// recording made), so that the process does not exit with bluetoothd still holding a strap it connected.
private func releaseSensors(_ sensors: [any Sensor]) async {
    await withTaskGroup(of: Void.self) { group in
        for case let sensor as BluetoothSensor in sensors { group.addTask { await sensor.waitUntilReleased() } }
    }
}
