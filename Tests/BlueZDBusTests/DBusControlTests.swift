import BlueZTransport
import BluetoothLE
import FitnessSensors
import Foundation
import OpenHealthKit
import Synchronization
import TestSupport
import Testing

@testable import BlueZDBus

/// A smart trainer controlled through bluetoothd, spoken to a real dbus-daemon where python-dbusmock plays bluetoothd
/// (`Fixtures/fitness_bluez.py`'s trainer: Indoor Bike Data, a control point that indicates and takes writes, a
/// status): requests are `WriteValue` with type `request`, the machine's answers come back in order through
/// `watchControlLink`, a refused write is one sentence, and a dropped link asks for control again.
@Suite(.blockingWaits, .serialized, .timeLimit(.minutes(1))) struct DBusControlTests {
    static let trainer = "F1:22:33:44:55:66"

    /// A trainer on the fake's bus, started, with its control link's events in a stream.
    func start(
        _ fake: FakeBlueZ, clock: ManualClock = ManualClock()
    ) -> (DBusSensor, AsyncStream<SensorEvent>, AsyncStream<ControlLinkEvent>) {
        var options = DBusSensor.Options()
        options.connectTimeout = .seconds(5)
        options.servicesTimeout = .seconds(5)
        let sensor = DBusSensor(
            address: BluetoothAddress(Self.trainer, type: .random)!, name: "Trainer", capabilities: [.power, .cadence],
            options: options, clock: clock, wallClock: { Date(timeIntervalSinceReferenceDate: 0) },
            bus: { [connection = fake.connection] in connection })
        let (control, controlled) = AsyncStream.makeStream(of: ControlLinkEvent.self)
        sensor.watchControlLink { controlled.yield($0) }
        let (events, continuation) = AsyncStream.makeStream(of: SensorEvent.self)
        sensor.start { continuation.yield($0) }
        return (sensor, events, control)
    }

    /// A fake bluetoothd with a trainer (or, by `service`, another sensor) and a started sensor for it.
    struct Bench {
        let fake: FakeBlueZ
        let path: String
        let sensor: DBusSensor
        let events: AsyncStream<SensorEvent>
        let control: AsyncStream<ControlLinkEvent>

        func stop() {
            sensor.stop()
            fake.stop()
        }
    }

    func bench(service: UInt16 = 0x1826, clock: ManualClock = ManualClock()) async throws -> Bench {
        let fake = try await FakeBlueZ()
        do {
            try await fake.addAdapter()
            let path = try await fake.addSensor(Self.trainer, name: "Trainer", service: service)
            let (sensor, events, control) = start(fake, clock: clock)
            return Bench(fake: fake, path: path, sensor: sensor, events: events, control: control)
        } catch {
            fake.stop()
            throw error
        }
    }

    func writes(_ fake: FakeBlueZ, _ path: String) async throws -> [String] {
        guard case .array(_, let elements) = try await fake.fake("Writes", [.string(path)]).first else { return [] }
        return elements.map { write in
            guard case .structure(let fields) = write, fields.count == 2, let bytes = fields[0].byteArray,
                let type = fields[1].string
            else { return "?" }
            return bytes.map { String(format: "%02X", $0) }.joined(separator: " ") + " (\(type))"
        }
    }

    @Test func requestsAreWrittenAsRequestsAndEveryAnswerComesBackInOrder() async throws {
        let bench = try await bench()
        defer { bench.stop() }
        var link = bench.control.makeAsyncIterator()
        #expect(try await nextLink(&link) == .connected(controlPoint: true))
        try await bench.sensor.writeWithResponse([0x00], to: 0x2AD9)
        #expect(try await nextLink(&link) == .value(characteristic: 0x2AD9, bytes: [0x80, 0x00, 0x01]))
        // 200 W twice: two answers alike, both delivered (never taken for a re-delivered value).
        for _ in 0 ..< 2 {
            try await bench.sensor.writeWithResponse([0x05, 0xC8, 0x00], to: 0x2AD9)
            #expect(try await nextLink(&link) == .value(characteristic: 0x2AD9, bytes: [0x80, 0x05, 0x01]))
        }
        #expect(
            try await writes(bench.fake, bench.path) == ["00 (request)", "05 C8 00 (request)", "05 C8 00 (request)"])
        // The machine's status (it notifies: bluetoothd hands it over on a socket) reaches the same watcher.
        try await bench.fake.fake("NotifyStatus", [.string(bench.path), .bytes([0x08, 0xC8, 0x00])])
        #expect(try await nextLink(&link) == .value(characteristic: 0x2ADA, bytes: [0x08, 0xC8, 0x00]))
    }

    @Test func theControlPointIsStartNotifiedAndStoppingReleasesIt() async throws {
        let bench = try await bench()
        defer { bench.stop() }
        var link = bench.control.makeAsyncIterator()
        #expect(try await nextLink(&link) == .connected(controlPoint: true))
        // StartNotify on the control point only: the measurement and the status came on sockets; AcquireNotify was
        // never asked for the control point (bluetoothd refuses it where a characteristic only indicates).
        #expect(try await bench.fake.count("NotifyingCount", bench.path) == 1)
        #expect(try await bench.fake.count("AcquireRefusals", bench.path) == 0)
        bench.sensor.stop()
        try await withDeadline(seconds: 10, "StopNotify of the control point") {
            while try await bench.fake.count("NotifyingCount", bench.path) != 0 { await Task.yield() }
        }
    }

    @Test func theLibrarysControlSetsATargetPowerThroughBluetoothd() async throws {
        let bench = try await bench()
        defer { bench.stop() }
        let machine = FitnessMachineControl(sensor: bench.sensor)
        let (events, happened) = AsyncStream.makeStream(of: FitnessMachineControl.Event.self)
        machine.start { happened.yield($0) }
        defer { machine.close() }
        var iterator = events.makeAsyncIterator()
        #expect(try await nextEvent(&iterator) == .connected(offersControl: true))
        try await machine.setTargetPower(180)
        #expect(machine.state.hasControl && machine.state.targetPower == 180)
        #expect(try await writes(bench.fake, bench.path) == ["00 (request)", "05 B4 00 (request)"])
    }

    @Test func aRefusedWriteIsOneSentenceAndARefusedRequestTheMachinesAnswer() async throws {
        let bench = try await bench()
        defer { bench.stop() }
        var link = bench.control.makeAsyncIterator()
        #expect(try await nextLink(&link) == .connected(controlPoint: true))
        try await bench.fake.fake("SetControl", [.string(bench.path), .string("refuse-write")])
        await #expect(throws: BlueZError.self) { try await bench.sensor.writeWithResponse([0x00], to: 0x2AD9) }
        do {
            try await bench.sensor.writeWithResponse([0x00], to: 0x2AD9)
        } catch let error as BlueZError {
            #expect(error.message.contains("Write not permitted"), "\(error.message)")
            #expect(!error.message.contains("\n"))
        }
        try await bench.fake.fake("SetControl", [.string(bench.path), .string("refuse-control")])
        try await bench.sensor.writeWithResponse([0x00], to: 0x2AD9)
        #expect(try await nextLink(&link) == .value(characteristic: 0x2AD9, bytes: [0x80, 0x00, 0x05]))
        // A characteristic it does not offer for writing.
        do {
            try await bench.sensor.writeWithResponse([0x01], to: 0x2ADA)
            Issue.record("a write to the status characteristic succeeded")
        } catch let error as BlueZError {
            #expect(error.message == "Trainer offers no characteristic 0x2ADA to write.")
        }
    }

    @Test func aDroppedLinkIsReportedAndTheNextSessionOffersControlAgain() async throws {
        let clock = ManualClock()
        let bench = try await bench(clock: clock)
        defer { bench.stop() }
        var link = bench.control.makeAsyncIterator()
        var iterator = bench.events.makeAsyncIterator()
        #expect(try await nextLink(&link) == .connected(controlPoint: true))
        try await bench.fake.fake(
            "DropLink", [.string(bench.path), .string("org.bluez.Reason.Timeout"), .string("Timeout")])
        #expect(try await nextLink(&link) == .disconnected)
        await #expect(throws: BlueZError.self) { try await bench.sensor.writeWithResponse([0x00], to: 0x2AD9) }
        while try await next(&iterator).hasPrefix("disconnected") == false {}
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(250))
        #expect(try await nextLink(&link) == .connected(controlPoint: true))
        try await bench.sensor.writeWithResponse([0x00], to: 0x2AD9)
        #expect(try await nextLink(&link) == .value(characteristic: 0x2AD9, bytes: [0x80, 0x00, 0x01]))
    }

    @Test func aSensorWithoutAControlPointSaysSoAndRefusesWrites() async throws {
        let bench = try await bench(service: 0x1818)
        defer { bench.stop() }
        var link = bench.control.makeAsyncIterator()
        #expect(try await nextLink(&link) == .connected(controlPoint: false))
        do {
            try await bench.sensor.writeWithResponse([0x00], to: 0x2AD9)
            Issue.record("a write to a power meter's control point succeeded")
        } catch let error as BlueZError {
            #expect(error.message == "Trainer offers no characteristic 0x2AD9 to write.")
        }
    }
}

/// bluetoothd's NotPermitted says three different things; each gets its own advice (pairing helps with one only).
@Test func bluetoothdsRefusalsSayWhatToDo() {
    func sentence(_ name: String, _ message: String) -> (BlueZError.Code, String) {
        let error = BlueZClient.sentence(
            for: DBusError(name: name, message: message), calling: "AcquireNotify", at: "/org/bluez/hci0/dev_X")
        return (error.code, error.message)
    }
    #expect(
        sentence("org.bluez.Error.NotPermitted", "Notify acquired") == (
            .busy,
            "Another program holds what AcquireNotify asks for (Notify acquired); close it, or record from that program."
        ))
    #expect(
        sentence("org.bluez.Error.NotPermitted", "Write not permitted") == (
            .connectionFailed, "The sensor does not permit AcquireNotify (Write not permitted)."
        ))
    #expect(
        sentence("org.bluez.Error.NotAuthorized", "Operation Not Authorized") == (
            .permissionDenied,
            "bluetoothd did not permit AcquireNotify (Operation Not Authorized); pair the sensor with `workout pair` (with --again if it was paired before: its bond is stale)."
        ))
}

/// The next control link event; fails after 10 s.
func nextLink(_ iterator: inout AsyncStream<ControlLinkEvent>.Iterator) async throws -> ControlLinkEvent? {
    nonisolated(unsafe) var moving = iterator
    defer { iterator = moving }
    return try await withDeadline(seconds: 10, "a control link event") { await moving.next() }
}

/// The next control event; fails after 10 s.
func nextEvent(
    _ iterator: inout AsyncStream<FitnessMachineControl.Event>.Iterator
) async throws -> FitnessMachineControl.Event? {
    nonisolated(unsafe) var moving = iterator
    defer { iterator = moving }
    return try await withDeadline(seconds: 10, "a control event") { await moving.next() }
}
