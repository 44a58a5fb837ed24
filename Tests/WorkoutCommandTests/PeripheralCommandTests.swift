import Foundation
import Glibc
import TestSupport
import Testing

/// `workout peripheral` in a child process, reached by `workout pair` and `workout sensors` through
/// `unix:PATH`: the whole tool, over a real listening socket.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct PeripheralCommandTests {
    @Test func pairASimulatedStrapAndListIt() throws {
        let directory = try TemporaryDirectory()
        let socket = directory.file("strap.sock")
        let store = directory.file("store.sqlite")

        // The name the peripheral is given is its Generic Access Device Name, which `pair` reads, as a phone would
        // (before the strap's Device Information, "OpenHealthKit Simulated HR strap").
        let name = "Bench strap with a rather long name"
        let (peripheral, banner) = try Tool.startPeripheral([
            "--profile", "heart-rate", "--listen", socket, "--name", name,
        ])
        defer { peripheral.killGroup() }
        #expect(banner == "Simulated heart-rate sensor '\(name)' at unix:\(socket); Ctrl-C stops it.\n")

        let pair = try Tool.run(["pair", "unix:\(socket)", "--store", store])
        #expect(pair.status == 0, "\(pair.stderr)")
        #expect(pair.stdout == "Paired \(name) (unix:\(socket)): heart rate, RR intervals, energy, battery.\n")

        // Each column is as wide as its longest entry plus two spaces: the name has 35 characters; the identifier's
        // width depends on the temporary directory, which leaves the measures too little room to fold them.
        let sensors = try Tool.run(["sensors", "--store", store])
        let identifier = "unix:\(socket)"
        func column(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: width - text.count) }
        let width = identifier.count + 2
        #expect(width + 37 > 80 - 24)
        #expect(
            sensors.transcript == column("Identifier", width) + column("Name", 37) + "Measures\n"
                + column(identifier, width) + "\(name)  heart rate, RR intervals, energy, battery\n")

        kill(peripheral.processIdentifier, SIGINT)
        peripheral.waitUntilExit(within: childProcessTimeLimit)
        #expect(peripheral.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: socket), "Ctrl-C removes the socket file")
    }

    /// `sensors` keeps rows in 80 columns: a long list of measures is folded after its commas, under its column.
    @Test func sensorsFoldsWhatASensorMeasures() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("store.sqlite")
        for (address, name) in [("AA:BB:CC:DD:EE:FF/random", "Left pedal"), ("unix:/tmp/s.sock", "OHK Strap")] {
            let pair = try Tool.run(["pair", address, "--name", name, "--no-probe", "--store", store])
            #expect(pair.status == 0, "\(pair.stderr)")
        }
        // Unprobed, a sensor may measure anything: 72 characters of measures from column 42.
        #expect(
            try Tool.run(["sensors", "--store", store]).transcript == """
                Identifier                    Name        Measures
                ble:AA:BB:CC:DD:EE:FF/random  Left pedal  heart rate, RR intervals, power,
                                                          cadence, speed, distance, energy,
                                                          battery
                unix:/tmp/s.sock              OHK Strap   heart rate, RR intervals, power,
                                                          cadence, speed, distance, energy,
                                                          battery

                """)
    }

    @Test func recordingWithoutSensorsIsOneSentence() throws {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("ohk-\(UUID()).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let result = try Tool.run(["record", "--store", store])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "workout: There is no sensor to record from; pair one with `workout pair ADDRESS` or pass --sensor ADDRESS.\n"
        )
    }

    @Test func fixtureErrorsAreOneSentence() throws {
        let missing = try Tool.run([
            "peripheral", "--profile", "cycling-power", "--listen", "/tmp/unused.sock", "--fixture", "ride.json",
        ])
        #expect(
            missing.transcript == """
                --- stderr
                workout: ride.json: expected a fixture file, but there is no such file.
                --- exit 1

                """)
        let run = fixture("run-45min.jsonl")
        let wrongProfile = try Tool.run([
            "peripheral", "--profile", "cycling-power", "--listen", "/tmp/unused.sock", "--fixture", run,
        ])
        #expect(wrongProfile.status == 1)
        #expect(wrongProfile.stderr == "workout: \(run) holds no 0x2A63 notifications for this profile.\n")
    }

    /// `--max-power` is a smart trainer's, from 1 to 2000 W: anything else is one sentence (ArgumentParser's exit 64).
    @Test func maxPowerIsOnlyASmartTrainersAndWithinItsRange() throws {
        let strap = try Tool.run([
            "peripheral", "--profile", "heart-rate", "--listen", "/tmp/unused.sock", "--max-power", "300",
        ])
        #expect(strap.status == 64)
        #expect(strap.stderr.contains("--max-power is a smart trainer's: it needs --profile smart-trainer."))
        let huge = try Tool.run([
            "peripheral", "--profile", "smart-trainer", "--listen", "/tmp/unused.sock", "--max-power", "5000",
        ])
        #expect(huge.status == 64)
        #expect(huge.stderr.contains("--max-power must be between 1 and 2000 W, not 5000."))
    }

    /// A strap serving a recorded run's notifications, recorded from for 2 s on the stepped clock: what is recorded
    /// is the run's warm-up. The fixture's first heart rates (fixtures/run-45min.jsonl, bytes `1E 4A …`, `16 4C …`,
    /// `16 4E …`) are 74, 76 and 78 bpm, 0, 0.984 and 2.002 s after its first: the strap sends 74 as it starts,
    /// before the recording has subscribed, 76 at the 1 s step, and 78 at 2.25 s, after the recording ended at 2 s.
    /// So the summary has one heart rate, 76 bpm, and one second in Z1 (from 0:01 to the end).
    @Test func recordFromAStrapReplayingAFixture() throws {
        let directory = try TemporaryDirectory()
        let clock = try SteppedClock(directory: directory)
        let socket = directory.file("strap.sock")
        let peripheral = try clock.startPeripheral([
            "--profile", "heart-rate", "--listen", socket, "--fixture",
            fixture("run-45min.jsonl"),
        ]).member
        defer { SteppedClock.stop([peripheral]) }
        let (recording, result) = try clock.startRecording(
            [
                "--activity", "running", "--sensor", "unix:\(socket)", "--duration", "2", "--store",
                directory.file("store.sqlite"),
            ],
            peripherals: [peripheral])
        #expect(clock.runUntilEnded(recording, [peripheral]) == 8)
        #expect(
            normalized(result().transcript, directory: directory.path) == """
                Recording a running workout from unix:DIR/strap.sock; Ctrl-C ends and saves.
                0:01  zone Z1
                Saving… (Ctrl-C again quits at once; the journal keeps the workout for `workout recover`.)
                Saved workout UUID (running) to DIR/store.sqlite.
                  moving time     0:02
                  elapsed time    0:02
                  distance        –
                  energy          –
                  heart rate      average 76, max 76 bpm
                  power           –
                  cadence         –
                  time in zones   heart rate, system zones
                    activity        Z1       Z2       Z3       Z4       Z5
                    bpm             < 137    137–147  148–158  159–169  ≥ 170
                    running         0:01     0:00     0:00     0:00     0:00
                  laps            none
                  sensors         unix:DIR/strap.sock: 0 dropouts, 0:00 without data
                  skipped         nothing

                """)
    }

    /// `--again` pairs afresh, so it needs the sensor: with --no-probe it is one sentence (exit 64), nothing paired.
    @Test func pairAgainNeedsTheSensor() throws {
        let store = "/tmp/unused-\(UUID()).sqlite"
        let result = try Tool.run(["pair", "C7:3A:10:5E:22:F1/random", "--again", "--no-probe", "--store", store])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--again pairs afresh, which needs the sensor: not with --no-probe."))
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test func pairingNothingIsOneSentence() throws {
        let result = try Tool.run(["pair", "unix:/nonexistent/strap.sock", "--store", "/tmp/unused-\(UUID()).sqlite"])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "workout: Nothing listens at unix:/nonexistent/strap.sock; start one with `workout peripheral --listen PATH`.\n"
        )
    }
}
