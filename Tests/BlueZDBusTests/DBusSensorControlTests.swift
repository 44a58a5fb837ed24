import BlueZTransport
import BluetoothLE
import FitnessSensors
import Foundation
import OpenHealthKit
import TestSupport
import Testing

@testable import BlueZDBus

/// A trainer controlled through bluetoothd (`Fixtures/fitness_bluez.py` plays it on a private bus): requests written
/// with `WriteValue` type `request`, the control point's answers as `PropertiesChanged` after `StartNotify`, in
/// order, a refusal in one sentence, and the link's ups and downs; OpenHealthKit's `FitnessMachineControl` end to end.
@Suite(.serialized, .timeLimit(.minutes(1))) struct DBusSensorControlTests {
    static let trainer = "C7:3A:10:5E:22:F1"
    static let controlPoint = GATTAssignedNumbers.Characteristic.fitnessMachineControlPoint

    /// A trainer bluetoothd has heard, on the fake's bus.
    func addTrainer(_ fake: FakeBlueZ, controlPoint: Bool = true) async throws -> String {
        try await fake.addAdapter()
        let path = try await fake.addSensor(Self.trainer, name: "Trainer", service: 0x1826)
        if !controlPoint { try await fake.fake("RemoveControlPoint", [.string(path)]) }
        return path
    }

    /// The trainer's sensor, its control link watched before it starts; both streams of events.
    func start(
        _ fake: FakeBlueZ, clock: ManualClock = ManualClock()
    ) -> (DBusSensor, AsyncStream<SensorEvent>, AsyncStream<ControlLinkEvent>) {
        var options = DBusSensor.Options()
        options.connectTimeout = .seconds(5)
        options.servicesTimeout = .seconds(5)
        let sensor = DBusSensor(
            address: BluetoothAddress(Self.trainer, type: .random)!, name: "Trainer", capabilities: .fitnessMachine,
            options: options, clock: clock, wallClock: { Date(timeIntervalSinceReferenceDate: 0) },
            bus: { [connection = fake.connection] in connection })
        let (link, linkSink) = AsyncStream.makeStream(of: ControlLinkEvent.self)
        sensor.watchControlLink { linkSink.yield($0) }
        let (events, sink) = AsyncStream.makeStream(of: SensorEvent.self)
        sensor.start { sink.yield($0) }
        return (sensor, events, link)
    }

    /// A fake bluetoothd with a trainer, its sensor started on it and the control link's events.
    struct Rig {
        let fake: FakeBlueZ
        let path: String
        let sensor: DBusSensor
        var link: AsyncStream<ControlLinkEvent>.Iterator

        func close() {
            sensor.stop()
            fake.stop()
        }
    }

    func makeRig(controlPoint: Bool = true, clock: ManualClock = ManualClock()) async throws -> Rig {
        let fake = try await FakeBlueZ()
        let path: String
        do { path = try await addTrainer(fake, controlPoint: controlPoint) } catch {
            fake.stop()
            throw error
        }
        let (sensor, _, link) = start(fake, clock: clock)
        return Rig(fake: fake, path: path, sensor: sensor, link: link.makeAsyncIterator())
    }

    /// The sentence a write to the control point throws; the test fails when it throws none.
    func refusal(
        _ sensor: DBusSensor, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> String? {
        let error = await #expect(throws: BlueZError.self, sourceLocation: sourceLocation) {
            try await sensor.writeWithResponse([0x00], to: Self.controlPoint)
        }
        return error?.message
    }

    @Test func aRequestReachesBluetoothdAsAWriteRequestAndEveryAnswerComesBackInOrder() async throws {
        var rig = try await makeRig()
        defer { rig.close() }
        let (fake, path, sensor) = (rig.fake, rig.path, rig.sensor)
        #expect(try await next(&rig.link) == .connected(controlPoint: true))
        try await sensor.writeWithResponse([0x00], to: Self.controlPoint)
        #expect(try await next(&rig.link) == .value(characteristic: Self.controlPoint, bytes: [0x80, 0x00, 0x01]))
        // Two identical targets are two answers, neither dropped as a duplicate.
        try await sensor.writeWithResponse([0x05, 0xC8, 0x00], to: Self.controlPoint)
        try await sensor.writeWithResponse([0x05, 0xC8, 0x00], to: Self.controlPoint)
        #expect(try await next(&rig.link) == .value(characteristic: Self.controlPoint, bytes: [0x80, 0x05, 0x01]))
        #expect(try await next(&rig.link) == .value(characteristic: Self.controlPoint, bytes: [0x80, 0x05, 0x01]))
        let writes = try await fake.fake("Writes", [.string(path)]).first?.stringArray
        #expect(writes == ["00 request", "05 C8 00 request", "05 C8 00 request"])
        // The machine's status comes on its own socket (0x2ADA notifies), to the same watcher: target power 200 W.
        try await fake.fake("NotifyStatus", [.string(path), .bytes([0x08, 0xC8, 0x00])])
        #expect(
            try await next(&rig.link)
                == .value(
                    characteristic: GATTAssignedNumbers.Characteristic.fitnessMachineStatus, bytes: [0x08, 0xC8, 0x00]))
    }

    @Test func fitnessMachineControlSetsTheTargetPowerEndToEnd() async throws {
        let rig = try await makeRig()
        defer { rig.close() }
        let (fake, path) = (rig.fake, rig.path)
        // The control's watcher takes the place of the rig's.
        let control = FitnessMachineControl(sensor: rig.sensor, clock: ManualClock())
        let (stream, sink) = AsyncStream.makeStream(of: FitnessMachineControl.Event.self)
        control.start { sink.yield($0) }
        defer { control.close() }
        var events = stream.makeAsyncIterator()
        #expect(try await next(&events) == .connected(offersControl: true))
        try await withDeadline(seconds: 10, "the target to be accepted") { try await control.setTargetPower(200) }
        #expect(try await next(&events) == .accepted(.requestControl))
        #expect(try await next(&events) == .accepted(.setTargetPower(200)))
        #expect(control.state.hasControl)
        #expect(control.state.targetPower == 200)
        let writes = try await fake.fake("Writes", [.string(path)]).first?.stringArray
        #expect(writes == ["00 request", "05 C8 00 request"])
    }

    @Test func aRefusedWriteIsBluetoothdsErrorInOneSentence() async throws {
        var rig = try await makeRig()
        defer { rig.close() }
        let (fake, path, sensor) = (rig.fake, rig.path, rig.sensor)
        #expect(try await next(&rig.link) == .connected(controlPoint: true))
        try await fake.fake(
            "RefuseWrites",
            [.string(path), .string("org.bluez.Error.Failed"), .string("Operation failed with ATT error: 0x80")])
        #expect(
            await refusal(sensor) == "bluetoothd could not WriteValue: Failed (Operation failed with ATT error: 0x80).")
        try await fake.fake("RefuseWrites", [.string(path), .string("org.bluez.Error.NotAuthorized"), .string("")])
        #expect(await refusal(sensor) == "bluetoothd did not permit WriteValue; pair the sensor with `workout pair`.")
    }

    @Test func aDroppedLinkIsDisconnectedAndTheNextSessionOffersTheControlPointAgain() async throws {
        let clock = ManualClock()
        var rig = try await makeRig(clock: clock)
        defer { rig.close() }
        let (fake, path, sensor) = (rig.fake, rig.path, rig.sensor)
        #expect(try await next(&rig.link) == .connected(controlPoint: true))
        #expect(try await fake.count("NotifyingCount", path) == 1)
        try await fake.fake(
            "DropLink", [.string(path), .string("org.bluez.Reason.Timeout"), .string("Connection timeout")])
        #expect(try await next(&rig.link) == .disconnected)
        #expect(await refusal(sensor) == "Trainer is not connected.")
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(250))
        #expect(try await next(&rig.link) == .connected(controlPoint: true))
        // The new session subscribed again: an answer comes back.
        try await sensor.writeWithResponse([0x00], to: Self.controlPoint)
        #expect(try await next(&rig.link) == .value(characteristic: Self.controlPoint, bytes: [0x80, 0x00, 0x01]))
        // A watcher set while the link is up hears so at once.
        let (late, sink) = AsyncStream.makeStream(of: ControlLinkEvent.self)
        sensor.watchControlLink { sink.yield($0) }
        var lateEvents = late.makeAsyncIterator()
        #expect(try await next(&lateEvents) == .connected(controlPoint: true))
        // The sensor connected the trainer: stopping releases the control point's StartNotify.
        sensor.stop()
        try await withDeadline(seconds: 10, "StopNotify of the control point") {
            while try await fake.count("NotifyingCount", path) != 0 { await Task.yield() }
        }
    }

    @Test func aMachineWithoutAControlPointIsConnectedWithoutOneAndAWriteFailsInOneSentence() async throws {
        var rig = try await makeRig(controlPoint: false)
        defer { rig.close() }
        #expect(try await next(&rig.link) == .connected(controlPoint: false))
        #expect(await refusal(rig.sensor) == "Trainer offers no characteristic 0x2AD9.")
    }

    @Test func theWrapperForwardsControlToTheDBusSensor() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        let path = try await addTrainer(fake)
        let sensor = BluetoothSensor(
            identifier: "ble:\(Self.trainer)/random", name: "Trainer", capabilities: .fitnessMachine
        ) { [connection = fake.connection] _ in
            DBusSensor(
                address: BluetoothAddress(Self.trainer, type: .random)!, name: "Trainer",
                capabilities: .fitnessMachine, clock: ManualClock(), bus: { connection })
        }
        let (link, sink) = AsyncStream.makeStream(of: ControlLinkEvent.self)
        sensor.watchControlLink { sink.yield($0) }
        sensor.start { _ in }
        defer { sensor.stop() }
        var events = link.makeAsyncIterator()
        #expect(try await next(&events) == .connected(controlPoint: true))
        try await sensor.writeWithResponse([0x00], to: Self.controlPoint)
        #expect(try await next(&events) == .value(characteristic: Self.controlPoint, bytes: [0x80, 0x00, 0x01]))
        #expect(try await fake.fake("Writes", [.string(path)]).first?.stringArray == ["00 request"])
    }
}

/// The next element, failing the test when none comes within 10 s.
func next<Element: Sendable>(_ iterator: inout AsyncStream<Element>.Iterator) async throws -> Element? {
    nonisolated(unsafe) var moving = iterator
    defer { iterator = moving }
    return try await withDeadline(seconds: 10, "the next \(Element.self)") { () -> Element? in await moving.next() }
}
