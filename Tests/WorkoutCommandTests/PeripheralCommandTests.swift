import Foundation
import Glibc
import Testing

/// `workout peripheral` in a child process, reached by `workout pair` and `workout sensors` through
/// `unix:PATH`: the whole tool, over a real listening socket.
@Suite(.timeLimit(.minutes(1))) struct PeripheralCommandTests {
    @Test func pairASimulatedStrapAndListIt() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("strap.sock").path
        let store = directory.appendingPathComponent("store.sqlite").path

        let (peripheral, banner) = try Tool.startPeripheral(["--profile", "heart-rate", "--listen", socket])
        defer { if peripheral.isRunning { peripheral.terminate() } }
        #expect(banner == "Simulated heart-rate sensor 'OHK Strap' at unix:\(socket); Ctrl-C stops it.\n")

        let pair = try Tool.run(["pair", "unix:\(socket)", "--store", store])
        #expect(pair.status == 0, "\(pair.stderr)")
        #expect(pair.stdout == "Paired OpenHealthKit Simulated HR strap (unix:\(socket)): heart rate, RR intervals, energy, battery.\n")

        let sensors = try Tool.run(["sensors", "--store", store])
        #expect(sensors.status == 0, "\(sensors.stderr)")
        #expect(sensors.stdout.contains("unix:\(socket)"))
        #expect(sensors.stdout.contains("heart rate, RR intervals, energy, battery"))

        kill(peripheral.processIdentifier, SIGINT)
        peripheral.waitUntilExit()
        #expect(peripheral.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: socket), "Ctrl-C removes the socket file")
    }

    @Test func recordingWithoutSensorsIsOneSentence() throws {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("ohk-\(UUID()).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let result = try Tool.run(["record", "--store", store])
        #expect(result.status == 1)
        #expect(result.stderr == "workout: There is no sensor to record from; pair one with `workout pair ADDRESS` or pass --sensor ADDRESS.\n")
    }

    @Test func fixtureErrorsAreOneSentence() throws {
        let missing = try Tool.run(["peripheral", "--profile", "cycling-power", "--listen", "/tmp/unused.sock", "--fixture", "ride.json"])
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("workout: ride.json") && missing.stderr.hasSuffix(".\n"))
        let run = fixture("run-45min.jsonl")
        let wrongProfile = try Tool.run(["peripheral", "--profile", "cycling-power", "--listen", "/tmp/unused.sock", "--fixture", run])
        #expect(wrongProfile.status == 1)
        #expect(wrongProfile.stderr == "workout: \(run) holds no 0x2A63 notifications for this profile.\n")
    }

    /// A strap serving a recorded run's notifications: what is recorded from it is the run's warm-up (about 80 bpm).
    /// (One second of real time.)
    @Test func recordFromAStrapReplayingAFixture() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("strap.sock").path
        let (peripheral, _) = try Tool.startPeripheral(["--profile", "heart-rate", "--listen", socket, "--fixture",
                                                        fixture("run-45min.jsonl")])
        defer { if peripheral.isRunning { peripheral.terminate() } }
        let record = try Tool.run(["record", "--activity", "running", "--sensor", "unix:\(socket)", "--duration", "1",
                                   "--store", directory.appendingPathComponent("store.sqlite").path])
        #expect(record.status == 0, "\(record.stderr)")
        let heart = try #require(record.stdout.split(separator: "\n").first { $0.contains("heart rate ") })
        let maximum = heart.split(separator: " ").compactMap { Double($0) }.last ?? 0
        #expect(maximum > 60 && maximum < 100, "\(heart)")
        kill(peripheral.processIdentifier, SIGINT)
        peripheral.waitUntilExit()
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ohk-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func pairingNothingIsOneSentence() throws {
        let result = try Tool.run(["pair", "unix:/nonexistent/strap.sock", "--store", "/tmp/unused-\(UUID()).sqlite"])
        #expect(result.status == 1)
        #expect(result.stderr == "workout: Nothing listens at unix:/nonexistent/strap.sock; start one with `workout peripheral --listen PATH`.\n")
    }
}
