import Foundation
import Testing

/// `workout show` lists the sensors a live recording kept, with the battery level they reported: the simulated
/// strap serves Device Information ("OpenHealthKit", "Simulated HR strap") and a Battery Level of `--battery`.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct ShowSensorsCommandTests {
    @Test func showListsTheRecordingsSensorWithItsBattery() throws {
        let directory = try TemporaryDirectory()
        let clock = try SteppedClock(directory: directory)
        let socket = directory.file("strap.sock")
        let peripheral = try clock.startPeripheral(["--profile", "heart-rate", "--listen", socket, "--battery", "64"])
            .member
        defer { SteppedClock.stop([peripheral]) }
        let store = directory.file("health.sqlite")
        let recording = try clock.startRecording(
            ["--sensor", "unix:\(socket)", "--duration", "2", "--store", store],
            peripherals: [peripheral])
        #expect(clock.runUntilEnded(recording.member, [peripheral]) == 8)
        #expect(recording.result().status == 0)
        let id = try #require(
            try Tool.run(["list", "--store", store]).stdout.split(separator: "\n").dropFirst().first?
                .split(separator: " ").first.map(String.init))

        let shown = try Tool.run(["show", id, "--store", store])
        #expect(shown.status == 0)
        // The maker and model from Device Information, the sensor's name (its address), one battery level: the strap
        // read 64 % on connecting and reported no other.
        let sensors = shown.stdout.split(separator: "\n").filter { $0.hasPrefix("  sensors") }
        #expect(
            sensors.map { normalized(String($0), directory: directory.path) }
                == ["  sensors    OpenHealthKit Simulated HR strap (unix:DIR/strap.sock), battery 64 %"])

        let json = try Tool.run(["show", id, "--json", "--store", store])
        let object = try #require(try JSONSerialization.jsonObject(with: json.output) as? [String: Any])
        let listed = try #require(object["sensors"] as? [[String: Any]])
        #expect(listed.count == 1)
        #expect(listed.first?["identifier"] as? String == "unix:\(socket)")
        #expect(listed.first?["manufacturer"] as? String == "OpenHealthKit")
        #expect(listed.first?["model"] as? String == "Simulated HR strap")
        #expect(listed.first?["batteryAtStart"] as? Int == 64 && listed.first?["batteryAtEnd"] as? Int == 64)
    }
}
