import Foundation
import BlueZTransport
import Glibc
import OpenHealthKit
import Testing

/// `workout record` end to end: the built tool against `workout peripheral` processes with faults, over real
/// sockets. These take real time (the peripherals notify at their real rate): about 10 s for the ride.
@Suite(.timeLimit(.minutes(1))) struct RecordCommandTests {
    /// A strap, a trainer that drops out from 4 s to 7 s (and sends every 10th notification malformed) and power
    /// pedals, as a cyclist with a smart trainer and pedals has them: power is taken from one device at a time (the
    /// trainer, listed first; the pedals while it is gone), so distance is counted once; the dropout is shown and
    /// counted, and the trainer's silence is a gap, not a frozen value.
    @Test func rideWithADropoutAndTwoPowerMeters() async throws {
        let directory = try TemporaryDirectory()
        let strap = directory.file("strap.sock"), trainer = directory.file("trainer.sock"), pedals = directory.file("pedals.sock")
        let peripherals = try [
            PeripheralCommandTests.startPeripheral(["--profile", "heart-rate", "--listen", strap, "--battery", "64"]),
            PeripheralCommandTests.startPeripheral(["--profile", "cycling-power", "--listen", trainer, "--dropout", "4:3",
                                                    "--malformed-every", "10"]),
            PeripheralCommandTests.startPeripheral(["--profile", "cycling-power", "--listen", pedals]),
        ]
        defer { for (process, _) in peripherals where process.isRunning { process.terminate() } }
        let store = directory.file("ride.sqlite")
        let record = try Tool.run(["record", "--sensor", "unix:\(strap)", "--sensor", "unix:\(trainer)", "--sensor", "unix:\(pedals)",
                                   "--duration", "10", "--store", store])
        #expect(record.status == 0, "\(record.stderr)")
        #expect(record.stderr == "", "no log lines without --verbose")
        let output = normalized(record.stdout, directory: directory.path)
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.first == "Recording a cycling workout from unix:DIR/strap.sock, unix:DIR/trainer.sock, unix:DIR/pedals.sock; "
                + "Ctrl-C ends and saves.")
        #expect(lines.contains { $0.hasSuffix("  unix:DIR/trainer.sock lost") }, "\(output)")
        #expect(lines.contains { $0.hasSuffix("  unix:DIR/trainer.sock back") }, "\(output)")
        let trainerLine = try #require(lines.first { $0.contains("unix:DIR/trainer.sock: ") }, "\(output)")
        // One dropout; without data for the 3 s it lasted plus the reconnection's backoff (0.25 s doubling), under 10 s.
        #expect(trainerLine.contains("unix:DIR/trainer.sock: 1 dropout, 0:0") && trainerLine.hasSuffix(" without data"), "\(trainerLine)")
        #expect(lines.contains("                  unix:DIR/pedals.sock: 0 dropouts, 0:00 without data"))
        let skipped = try #require(lines.first { $0.hasPrefix("  skipped ") })
        #expect(skipped != "  skipped         0 malformed notifications", "every 10th of the trainer's 4 Hz notifications")

        // What was saved, read back through the library.
        let health = try HKHealthStore(databasePath: store, clientIdentifier: "workout")
        let types = HKLiveWorkoutDataSource.collectableTypes
        try await health.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
        let workouts = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: health)
        let workout = try #require(workouts.first)
        let power = try await HKSampleQueryDescriptor(
            predicates: [.quantitySample(type: HKQuantityType(.cyclingPower), predicate: HKQuery.predicateForObjects(from: workout))],
            sortDescriptors: [SortDescriptor(\.startDate)]).result(for: health)
        let devices = power.map { $0.device?.localIdentifier ?? "?" }
        // One device at a time: the trainer, the pedals while it was gone, the trainer again — at most 2 switches.
        let switches = zip(devices, devices.dropFirst()).filter { $0 != $1 }.count
        #expect(Set(devices) == ["unix:\(trainer)", "unix:\(pedals)"], "\(Set(devices))")
        #expect(switches <= 2, "\(switches) switches between power meters")
        // The trainer's dropout is a gap in its samples (3 s without data), not a held value.
        let trainerTimes = power.filter { $0.device?.localIdentifier == "unix:\(trainer)" }.map(\.startDate)
        let longestGap = zip(trainerTimes, trainerTimes.dropFirst()).map { $1.timeIntervalSince($0) }.max() ?? 0
        #expect(longestGap >= 2.5, "\(longestGap)")
        // Distance from one wheel: the simulated speed is 9 ± 0.5 m/s, so at most 9.5 m per second recorded; two
        // meters would give twice that.
        let metres = workout.statistics(for: HKQuantityType(.distanceCycling))?.sumQuantity()?.doubleValue(for: .meter()) ?? 0
        #expect(metres > 20 && metres <= 9.5 * workout.duration + 1, "\(metres) m in \(workout.duration) s")
        for (process, _) in peripherals { kill(process.processIdentifier, SIGINT); process.waitUntilExit() }
    }

    /// A sensor that never delivers: nothing is saved, the tool says so and exits 1; with --keep-empty it is saved.
    @Test func anEmptyRecordingSavesNothingUnlessKept() throws {
        let directory = try TemporaryDirectory()
        let socket = directory.file("gone.sock")
        let (peripheral, _) = try PeripheralCommandTests.startPeripheral(["--profile", "heart-rate", "--listen", socket,
                                                                         "--dropout", "0:600"])
        defer { if peripheral.isRunning { peripheral.terminate() } }
        let store = directory.file("empty.sqlite")
        let empty = try Tool.run(["record", "--sensor", "unix:\(socket)", "--duration", "1", "--store", store])
        #expect(empty.status == 1)
        #expect(empty.stderr == "workout: Nothing was collected, so nothing was saved (--keep-empty saves an empty workout).\n")
        #expect(try Tool.run(["list", "--store", store]).stdout == "No workouts in \(store) yet. Try `workout demo`.\n")
        let kept = try Tool.run(["record", "--sensor", "unix:\(socket)", "--duration", "1", "--keep-empty", "--store", store])
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(try Tool.run(["list", "--store", store]).stdout.split(separator: "\n").count == 2)
    }

    /// A second Ctrl-C while the workout is being saved ends the process at once, and nothing is lost: either the
    /// save had finished (whether or not the process lived to exit), or the store's journal holds the workout and
    /// `workout recover --finish` saves it.
    @Test func aSecondCtrlCWhileSavingLosesNothing() throws {
        let directory = try TemporaryDirectory()
        let socket = directory.file("strap.sock")
        let (peripheral, _) = try PeripheralCommandTests.startPeripheral(["--profile", "heart-rate", "--listen", socket])
        defer { if peripheral.isRunning { peripheral.terminate() } }
        let store = directory.file("twice.sqlite")
        let record = Process()
        record.executableURL = Tool.url
        record.arguments = ["record", "--sensor", "unix:\(socket)", "--store", store]
        let output = Pipe()
        record.standardOutput = output
        record.standardError = FileHandle.nullDevice
        try record.run()
        defer { if record.isRunning { record.terminate() } }
        var seen = ""
        func read(until text: String) {
            let deadline = Date().addingTimeInterval(15)
            while !seen.contains(text), Date() < deadline {
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { return }
                seen += String(decoding: data, as: UTF8.self)
            }
        }
        // Piped, the first zone update is an event line: heart rate was collected.
        read(until: "  zone Z")
        #expect(seen.contains("  zone Z"), "\(seen)")
        kill(record.processIdentifier, SIGINT)
        read(until: "Saving…")
        kill(record.processIdentifier, SIGINT)
        record.waitUntilExit()
        let list = try Tool.run(["list", "--store", store])
        if record.terminationReason == .uncaughtSignal {
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
            #expect(record.terminationStatus == 0)
            #expect(list.stdout.contains("cycling"))
        }
        let after = try Tool.run(["list", "--store", store])
        #expect(after.stdout.split(separator: "\n").count == 2, "one workout: \(after.stdout)")
        kill(peripheral.processIdentifier, SIGINT)
        peripheral.waitUntilExit()
    }

    /// Permanent failures are one sentence naming the fix, exit 1, before a session starts (no store is created).
    @Test func permanentFailuresAreOneSentenceBeforeAnythingStarts() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("never.sqlite")
        let plain = directory.file("plain.txt")
        try "not a socket".write(toFile: plain, atomically: true, encoding: .utf8)
        let cases: [(String, String)] = [
            ("unix:\(directory.path)/nothing.sock",
             "workout: Nothing listens at \(directory.path)/nothing.sock; start a simulated sensor with `workout peripheral --profile heart-rate --listen \(directory.path)/nothing.sock` or fix the path.\n"),
            ("unix:\(plain)", "workout: \(plain) is not a socket; give the path a simulated sensor listens at (`workout peripheral --listen \(plain)`).\n"),
        ]
        for (address, message) in cases {
            let result = try Tool.run(["record", "--sensor", address, "--store", store])
            #expect(result.status == 1)
            #expect(result.stderr == message)
            #expect(result.stdout == "")
        }
        if (try? BluetoothAdapters.list())?.isEmpty == true {
            let bluetooth = try Tool.run(["record", "--sensor", "AA:BB:CC:DD:EE:FF", "--store", store])
            #expect(bluetooth.status == 1)
            #expect(bluetooth.stderr == "workout: No Bluetooth adapter is present (or this kernel has no Bluetooth); plug one in, "
                    + "`rfkill unblock bluetooth`, or record from a simulated sensor with --sensor unix:PATH.\n")
        }
        let malformed = try Tool.run(["record", "--sensor", "AA:BB:CC", "--store", store])
        #expect(malformed.status == 1)
        #expect(malformed.stderr.hasPrefix("workout: ") && malformed.stderr.hasSuffix(".\n") && malformed.stderr.split(separator: "\n").count == 1,
                "\(malformed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store))
    }
}
