import BlueZTransport
import BluetoothLE
import FitnessSensors
import Foundation
import Testing

@testable import BlueZDBus

/// One tree of bluetoothd's objects and one set of matches per process (review D6b): two straps recorded at once on
/// one bus connection add bluetoothd's signal match once, each hears only its own device's signals, and the matches
/// go when the last sensor stops. The daemon's own count of a connection's match rules (dbus-daemon's
/// `org.freedesktop.DBus.Debug.Stats`) is the witness.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct ObjectCacheTests {
    static let second = "D2:44:19:7A:03:B8"

    /// bluetoothd's signal matches the daemon holds for every connection on the fake's bus.
    func bluetoothdMatches(_ fake: FakeBlueZ) async throws -> Int {
        let reply = try await fake.connection.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Debug.Stats", "GetAllMatchRules",
            [], timeout: .seconds(10))
        let rules = try #require(reply.first?.stringKeyed, "GetAllMatchRules replied \(reply)")
        return rules.values.flatMap { $0.stringArray ?? [] }.filter { $0.contains("sender='org.bluez'") }.count
    }

    func sensor(_ fake: FakeBlueZ, _ address: String) -> (DBusSensor, AsyncStream<SensorEvent>) {
        var options = DBusSensor.Options()
        options.connectTimeout = .seconds(5)
        options.servicesTimeout = .seconds(5)
        return fake.startSensor(address, options: options)
    }

    @Test func twoSensorsShareOneTreeAndOneMatchAndEachHearsItsOwnDevice() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        try await fake.addAdapter()
        let strap = try await fake.addSensor(BlueZDBusTests.strap, name: "Strap")
        let other = try await fake.addSensor(Self.second, name: "Other strap")
        // Both through StartNotify: their values come as PropertiesChanged signals, which the one match carries.
        for path in [strap, other] { try await fake.fake("SetAcquireNotify", [.string(path), .string("refuse")]) }
        #expect(try await bluetoothdMatches(fake) == 0)

        let (first, firstEvents) = sensor(fake, BlueZDBusTests.strap)
        let (second, secondEvents) = sensor(fake, Self.second)
        var firstIterator = firstEvents.makeAsyncIterator()
        var secondIterator = secondEvents.makeAsyncIterator()
        for _ in 0 ..< 2 {
            #expect(["connecting", "connected"].contains(try await next(&firstIterator)))
            #expect(["connecting", "connected"].contains(try await next(&secondIterator)))
        }
        #expect(try await bluetoothdMatches(fake) == 1)

        // Each value reaches the sensor of its own device only.
        try await fake.notify(strap, [0x00, 81])
        try await fake.notify(other, [0x00, 142])
        #expect(try await next(&firstIterator) == "heart rate 81")
        #expect(try await next(&secondIterator) == "heart rate 142")

        // One sensor stops: the other still hears its device through the shared match.
        first.stop()
        try await withDeadline(seconds: 10, "the first sensor to release what it held") {
            await first.waitUntilReleased()
        }
        try await fake.notify(other, [0x00, 143])
        #expect(try await next(&secondIterator) == "heart rate 143")
        #expect(try await bluetoothdMatches(fake) == 1)

        // The last one stops: the match goes with it.
        second.stop()
        try await withDeadline(seconds: 10, "the second sensor to release what it held") {
            await second.waitUntilReleased()
        }
        #expect(try await bluetoothdMatches(fake) == 0)
    }
}
