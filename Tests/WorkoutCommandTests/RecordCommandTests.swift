import BlueZTransport
import Foundation
import Glibc
import OpenHealthKit
import TestSupport
import Testing

@testable import SteppedWorkoutHelper
@testable import WorkoutCommands

/// `workout record` end to end: the built tool against `workout peripheral` processes with faults, over real
/// sockets, all on the tool's stepped time (``SteppedClock``): the test moves time 250 ms at a time, so a
/// 10-second ride takes a few milliseconds, and what is printed is the same on every run.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct RecordCommandTests {
    /// A strap, a trainer that drops out from 4 s to 7 s (and sends every 10th notification malformed) and power
    /// pedals, as a cyclist with a smart trainer and pedals has them: power is taken from one device at a time (the
    /// trainer, listed first; the pedals while it is gone), so distance is counted once; the dropout is shown and
    /// counted, and the trainer's silence is a gap, not a frozen value.
    ///
    /// The transcript by hand (the peripherals' signals: BlueZTransport's PeripheralSignal; a strap notifies at 1 Hz,
    /// a power meter at 4 Hz, from one interval after the start):
    /// - the first heart rate comes at 0:01 (zone Z1: it starts near 130, below the system Z2 boundary of 137), and
    ///   crosses 137 at 0:09;
    /// - the trainer drops its link at 4 s ("lost"); the recording retries after 0.25, 0.5, 1 and 2 s of backoff
    ///   (4.25, 4.75, 5.75: refused, still in the dropout; 7.75: connected), so it is "back" at 7.75 (shown 0:08) and
    ///   was without data 3.75 s (shown 0:04);
    /// - the trainer sent 15 notifications before the dropout (0.25 … 3.75 s: the 10th malformed) and 9 after
    ///   (8.0 … 10.0 s: the 20th malformed): 2 skipped;
    /// - distance: the simulated wheel turns at 9 m/s, 10 s → 0.09 km from one wheel (two would give 0.18);
    ///   energy: about 208 W × 10 s = 2.08 kJ, counted as 2 kcal; normalized power needs 30 s, so "–";
    /// - zones: no heart rate in the first second, then Z1 until 0:09 and Z2 to the end: 0:08 and 0:01 as rounded.
    @Test func rideWithADropoutAndTwoPowerMeters() async throws {
        let directory = try TemporaryDirectory()
        let clock = try SteppedClock(directory: directory)
        let strap = directory.file("strap.sock"), trainer = directory.file("trainer.sock"),
            pedals = directory.file("pedals.sock")
        let peripherals = try [
            clock.startPeripheral(["--profile", "heart-rate", "--listen", strap, "--battery", "64"]).member,
            clock.startPeripheral([
                "--profile", "cycling-power", "--listen", trainer, "--dropout", "4:3",
                "--malformed-every", "10",
            ]).member,
            clock.startPeripheral(["--profile", "cycling-power", "--listen", pedals]).member,
        ]
        defer { SteppedClock.stop(peripherals) }
        let store = directory.file("ride.sqlite")
        let (recording, result) = try clock.startRecording(
            [
                "--sensor", "unix:\(strap)", "--sensor", "unix:\(trainer)", "--sensor", "unix:\(pedals)", "--duration",
                "10",
                "--store", store,
            ], peripherals: peripherals)
        #expect(clock.runUntilEnded(recording, peripherals) == 40, "10 s in steps of 250 ms")
        #expect(
            normalized(result().transcript, directory: directory.path) == """
                Recording a cycling workout from unix:DIR/strap.sock, unix:DIR/trainer.sock, unix:DIR/pedals.sock; Ctrl-C ends and saves.
                0:01  zone Z1
                0:04  unix:DIR/trainer.sock lost
                0:08  unix:DIR/trainer.sock back
                0:09  zone Z2
                Saving… (Ctrl-C again quits at once; the journal keeps the workout for `workout recover`.)
                Saved workout UUID (cycling) to DIR/ride.sqlite.
                  moving time     0:10
                  elapsed time    0:10
                  distance        0.09 km
                  energy          2 kcal
                  heart rate      average 134, max 137 bpm
                  power           average 208, max 219, normalized – W
                  cadence         average 92 rpm
                  time in zones   heart rate, system zones
                    activity        Z1       Z2       Z3       Z4       Z5
                    bpm             < 137    137–147  148–158  159–169  ≥ 170
                    cycling         0:08     0:01     0:00     0:00     0:00
                  laps            none
                  sensors         unix:DIR/strap.sock: 0 dropouts, 0:00 without data
                                  unix:DIR/trainer.sock: 1 dropout, 0:04 without data
                                  unix:DIR/pedals.sock: 0 dropouts, 0:00 without data
                  skipped         2 malformed notifications

                """)

        // What was saved, read back through the library.
        let health = try HKHealthStore(databasePath: store, clientIdentifier: "workout")
        let types = HKLiveWorkoutDataSource.collectableTypes
        try await health.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
        let workouts = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(
            for: health)
        let workout = try #require(workouts.first)
        let power = try await HKSampleQueryDescriptor(
            predicates: [
                .quantitySample(
                    type: HKQuantityType(.cyclingPower), predicate: HKQuery.predicateForObjects(from: workout))
            ],
            sortDescriptors: [SortDescriptor(\.startDate)]
        ).result(for: health)
        let start = SteppedTime.start  // where the stepped clocks start
        // One device at a time: the trainer until it dropped (its last reading at 3.75 s), the pedals while it was
        // gone (from the first stale instant of the trainer), the trainer again from its return at 7.75 s.
        var runs: [(device: String, from: Double)] = []
        for sample in power {
            let device = sample.device?.localIdentifier ?? "?"
            if runs.last?.device != device { runs.append((device, sample.startDate.timeIntervalSince(start))) }
        }
        #expect(runs.map(\.device) == ["unix:\(trainer)", "unix:\(pedals)", "unix:\(trainer)"], "\(runs)")
        #expect(runs.last?.from == 7.75, "\(runs)")
        // The trainer's dropout is a gap in its samples (3.75 → 7.75 s without data), not a held value.
        let trainerTimes = power.filter { $0.device?.localIdentifier == "unix:\(trainer)" }.map {
            $0.startDate.timeIntervalSince(start)
        }
        let longestGap = zip(trainerTimes, trainerTimes.dropFirst()).map { $1 - $0 }.max() ?? 0
        #expect(longestGap == 4, "\(trainerTimes)")
    }

    /// A strap both paired and named with --sensor is read once, by the name it was paired with: one connection, one
    /// name in the banner, one line among the sensors (two would contend for the device: through bluetoothd, the
    /// second finds its notifications taken).
    @Test func aPairedSensorNamedAgainIsReadOnce() throws {
        let directory = try TemporaryDirectory()
        let clock = try SteppedClock(directory: directory)
        let socket = directory.file("strap.sock")
        let peripheral = try clock.startPeripheral(["--profile", "heart-rate", "--listen", socket]).member
        defer { SteppedClock.stop([peripheral]) }
        let store = directory.file("paired.sqlite")
        let pair = try Tool.run(["pair", "unix:\(socket)", "--name", "Strap", "--no-probe", "--store", store])
        #expect(pair.status == 0, "\(pair.stderr)")
        let backup = directory.file("backup.sqlite")
        let (recording, result) = try clock.startRecording(
            ["--sensor", "unix:\(socket)", "--duration", "3", "--store", store, "--sync", backup],
            peripherals: [peripheral])
        #expect(clock.runUntilEnded(recording, [peripheral]) == 12)
        let transcript = normalized(result().transcript, directory: directory.path)
        #expect(transcript.hasPrefix("Recording a cycling workout from Strap; Ctrl-C ends and saves.\n"))
        let sensorLines = transcript.split(separator: "\n").filter {
            $0.contains("strap.sock:") || $0.contains("Strap:")
        }
        #expect(
            sensorLines == ["  sensors         Strap: 0 dropouts, 0:00 without data"], "\(transcript)")

        // --sync copies the saved workout to another store; when it cannot, the workout stays saved where it was.
        #expect(
            transcript.split(separator: "\n").last?.contains(
                /^Copied 1 workout \([0-9]+ samples\) from DIR\/paired\.sqlite to DIR\/backup\.sqlite\.$/) == true,
            "\(transcript)")
        let listed = try Tool.run(["list", "--store", store]).stdout
        #expect(try Tool.run(["list", "--store", backup]).stdout == listed)
        let (unsynced, unsyncedResult) = try clock.startRecording(
            ["--sensor", "unix:\(socket)", "--duration", "1", "--store", store, "--sync", directory.path],
            peripherals: [peripheral])
        _ = clock.runUntilEnded(unsynced, [peripheral])
        let failed = normalized(unsyncedResult().transcript, directory: directory.path)
        #expect(
            failed.hasSuffix(
                """
                --- stderr
                workout: The workout is saved in DIR/paired.sqlite, but copying it to DIR failed: \
                The health store path DIR is a directory, not a file. \
                `workout sync DIR/paired.sqlite DIR` copies it later.
                --- exit 1

                """), "\(failed)")
        #expect(try Tool.run(["list", "--store", store]).stdout.split(separator: "\n").count == 3)
    }

    /// A sensor that never delivers: nothing is saved, the tool says so and exits 1; with --keep-empty it is saved.
    @Test func anEmptyRecordingSavesNothingUnlessKept() throws {
        let directory = try TemporaryDirectory()
        let clock = try SteppedClock(directory: directory)
        let socket = directory.file("gone.sock")
        let peripheral = try clock.startPeripheral([
            "--profile", "heart-rate", "--listen", socket, "--dropout", "0:600",
        ]).member
        defer { SteppedClock.stop([peripheral]) }
        let store = directory.file("empty.sqlite")
        let empty = try clock.startRecording(
            ["--sensor", "unix:\(socket)", "--duration", "1", "--store", store], peripherals: [peripheral])
        #expect(clock.runUntilEnded(empty.member, [peripheral]) == 4)
        #expect(
            normalized(empty.result().transcript, directory: directory.path) == """
                Recording a cycling workout from unix:DIR/gone.sock; Ctrl-C ends and saves.
                Saving… (Ctrl-C again quits at once; the journal keeps the workout for `workout recover`.)
                --- stderr
                workout: Nothing was collected, so nothing was saved (--keep-empty saves an empty workout).
                --- exit 1

                """)
        #expect(
            normalized(try Tool.run(["list", "--store", store]).transcript, directory: directory.path) == """
                No workouts in DIR/empty.sqlite yet. Try `workout demo`.

                """)
        let kept = try clock.startRecording(
            ["--sensor", "unix:\(socket)", "--duration", "1", "--keep-empty", "--store", store],
            peripherals: [peripheral])
        #expect(clock.runUntilEnded(kept.member, [peripheral]) == 4)
        // Kept: one second, nothing in it, and the sensor said to have never connected (not "0 dropouts, 0:00
        // without data", which would say the opposite). Why its last try failed depends on which of the two
        // processes acted first when the peripheral closed the link it had just accepted: an end of file, EPIPE or
        // ECONNRESET. That sentence is the one thing normalised (to CLOSED).
        let keptTranscript = normalized(kept.result().transcript, directory: directory.path)
            .replacing(
                /The sensor closed the link\.|The link to the sensor was lost \((Broken pipe|Connection reset by peer)\)\./,
                with: "CLOSED")
        #expect(
            keptTranscript == """
                Recording a cycling workout from unix:DIR/gone.sock; Ctrl-C ends and saves.
                Saving… (Ctrl-C again quits at once; the journal keeps the workout for `workout recover`.)
                Saved workout UUID (cycling) to DIR/empty.sqlite.
                  moving time     0:01
                  elapsed time    0:01
                  distance        –
                  energy          –
                  heart rate      –
                  power           –
                  cadence         –
                  time in zones   –
                  laps            none
                  sensors         unix:DIR/gone.sock: never connected. CLOSED
                  skipped         nothing

                """)
        #expect(try Tool.run(["list", "--store", store]).stdout.split(separator: "\n").count == 2)
    }

    /// A second Ctrl-C while the workout is being saved ends the process at once, and nothing is lost: either the
    /// save had finished (whether or not the process lived to exit), or the store's journal holds the workout and
    /// `workout recover --finish` saves it. (Where the second Ctrl-C lands in the save is the one thing left to the
    /// machine's scheduling; both outcomes are checked exactly.)
    @Test func aSecondCtrlCWhileSavingLosesNothing() throws {
        let directory = try TemporaryDirectory()
        let clock = try SteppedClock(directory: directory)
        let socket = directory.file("strap.sock")
        let peripheral = try clock.startPeripheral(["--profile", "heart-rate", "--listen", socket]).member
        defer { SteppedClock.stop([peripheral]) }
        let store = directory.file("twice.sqlite")
        let process = Process()
        process.standardInput = FileHandle.nullDevice
        process.arguments = ["record", "--sensor", "unix:\(socket)", "--store", store]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let recording = try clock.start(process, peripherals: [peripheral])
        // 3 s: three heart rates collected.
        for _ in 0 ..< 12 { #expect(clock.step(recording, [peripheral]) == "ok") }
        #expect(clock.sync(recording, [peripheral]) == "ok")
        kill(process.processIdentifier, SIGINT)
        let ended = recording.readLine()
        #expect(ended == "ended")
        // A recording that did not end is killed, so that the test fails instead of waiting for it.
        if ended != "ended" { kill(process.processIdentifier, SIGKILL) }
        let seen = read(output, until: "Saving…")
        #expect(seen.contains("Saving…"), "\(seen)")
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit(within: childProcessTimeLimit)
        let list = try Tool.run(["list", "--store", store])
        if process.terminationReason == .uncaughtSignal {
            // Killed while saving: either the save's transaction had committed (the workout is listed and no
            // journal is left), or it had not (the journal holds the workout and recover saves it).
            let saved = list.stdout.contains("cycling")
            let recover = try Tool.run(["recover", "--finish", "--store", store])
            #expect(recover.status == 0, "\(recover.stderr)")
            if saved {
                #expect(recover.stdout.hasPrefix("No interrupted workout to recover"), "\(recover.stdout)")
            } else {
                #expect(recover.stdout.contains("Saved as workout "), "\(recover.stdout)")
            }
        } else {
            #expect(process.terminationStatus == 0)
            #expect(list.stdout.contains("cycling"))
        }
        let after = try Tool.run(["list", "--store", store])
        #expect(after.stdout.split(separator: "\n").count == 2, "one workout: \(after.stdout)")
    }

    /// A Bluetooth sensor on a machine with no adapter (or a kernel without Bluetooth) is one sentence naming the way
    /// out, before a store is made.
    @Test(.enabled(if: kernelLacksBluetooth, "this kernel has Bluetooth (the sentence is for one without)"))
    func aBluetoothSensorWithoutBluetoothIsOneSentence() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("health.sqlite")
        let bluetooth = try Tool.run(["record", "--sensor", "AA:BB:CC:DD:EE:FF", "--store", store])
        #expect(bluetooth.status == 1)
        #expect(
            bluetooth.stderr
                == "workout: No Bluetooth adapter is present (or this kernel has no Bluetooth); plug one in, "
                + "`rfkill unblock bluetooth`, or record from a simulated sensor with --sensor unix:PATH.\n")
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    /// Permanent failures are one sentence naming the fix, exit 1, before a session starts (no store is created).
    @Test func permanentFailuresAreOneSentenceBeforeAnythingStarts() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("never.sqlite")
        let plain = directory.file("plain.txt")
        try "not a socket".write(toFile: plain, atomically: true, encoding: .utf8)
        let cases: [(String, String)] = [
            (
                "unix:\(directory.path)/nothing.sock",
                "workout: Nothing listens at \(directory.path)/nothing.sock; start a simulated sensor with `workout peripheral --profile heart-rate --listen \(directory.path)/nothing.sock` or fix the path.\n"
            ),
            (
                "unix:\(plain)",
                "workout: \(plain) is not a socket; give the path a simulated sensor listens at (`workout peripheral --listen \(plain)`).\n"
            ),
        ]
        for (address, message) in cases {
            let result = try Tool.run(["record", "--sensor", address, "--store", store])
            #expect(result.status == 1)
            #expect(result.stderr == message)
            #expect(result.stdout == "")
        }
        let malformed = try Tool.run(["record", "--sensor", "AA:BB:CC", "--store", store])
        #expect(malformed.status == 1)
        #expect(
            malformed.stderr.hasPrefix("workout: ") && malformed.stderr.hasSuffix(".\n")
                && malformed.stderr.split(separator: "\n").count == 1,
            "\(malformed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store))
    }
}
