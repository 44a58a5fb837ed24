import BlueZTransport
import BluetoothLE
import FitnessSensors
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import BlueZDBus

/// bluetoothd's D-Bus API, spoken to a real dbus-daemon where python-dbusmock plays bluetoothd
/// (`Fixtures/fitness_bluez.py`): discovery, connection and notifications decoded into readings, a link lost and
/// found again, pairing through the agent, and replies of the wrong shape.
@Suite(.blockingWaits, .serialized, .timeLimit(.minutes(1))) struct BlueZDBusTests {
    static let strap = "C7:3A:10:5E:22:F1"

    /// A sensor on the fake's bus, with its events in a stream.
    func start(_ fake: FakeBlueZ, clock: ManualClock = ManualClock()) -> (DBusSensor, AsyncStream<SensorEvent>) {
        var options = DBusSensor.Options()
        options.connectTimeout = .seconds(5)
        options.servicesTimeout = .seconds(5)
        return fake.startSensor(options: options, clock: clock)
    }

    @Test func discoveryFindsTheFitnessSensorsBluetoothdReportsWithTheirAddressTypesAndStopsAfterwards() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        try await fake.addAdapter()
        let scanner = DBusScanner(client: fake.client, adapter: "hci0")
        let scan = Task { try await scanner.scan(for: .seconds(30), clock: ContinuousClock()) }
        // Devices announced while discovering (InterfacesAdded), once discovery is on.
        try await withDeadline(seconds: 10, "discovery to start") {
            while try await fake.client.managedObjects().properties("/org/bluez/hci0", BlueZ.adapter)?["Discovering"]?
                .bool != true
            {
                await Task.yield()
            }
        }
        _ = try await fake.addSensor(Self.strap, name: "Polar H10 8A1C2D3E")
        _ = try await fake.addSensor("00:22:D0:11:22:33", name: "Assioma", random: false, service: 0x1818)
        // A round trip: the signals sent before its reply are out.
        _ = try await fake.fake("ConnectCount", [.string("/org/bluez/hci0/dev_00_22_D0_11_22_33")])
        scan.cancel()  // Ctrl-C
        let devices = try await scan.value
        #expect(devices.map(\.addressSpelling) == ["C7:3A:10:5E:22:F1/random", "00:22:D0:11:22:33"])
        #expect(devices.map(\.name) == ["Polar H10 8A1C2D3E", "Assioma"])
        #expect(devices.map(\.kind) == [.heartRate, .cyclingPower])
        #expect(devices.map(\.rssi) == [-58, -58])
        // The filter asked for LE and the fitness services; discovery is off again.
        let adapter = try #require(try await fake.client.managedObjects().properties("/org/bluez/hci0", BlueZ.adapter))
        #expect(adapter["Discovering"]?.bool == false)
    }

    @Test func notificationsFromAcquiredSocketAreDecodedIntoReadingsAndTheSocketIsReleasedOnStop() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        try await fake.addAdapter()
        let path = try await fake.addSensor(Self.strap, name: "Strap")
        let (sensor, events) = start(fake)
        var iterator = events.makeAsyncIterator()
        #expect(try await next(&iterator) == "connecting")
        #expect(try await next(&iterator) == "connected")
        // 0x16: uint8 rate, contact detected, RR present; 72 bpm, RR 0x0340 = 832/1024 s.
        try await fake.notify(path, [0x16, 72, 0x40, 0x03])
        #expect(try await next(&iterator) == "heart rate 72")
        // A malformed value (flags say uint16 rate, one byte follows) is skipped and counted, the next one read.
        try await fake.notify(path, [0x01, 0x50])
        try await fake.notify(path, [0x00, 75])
        #expect(try await next(&iterator) == "heart rate 75")
        #expect(sensor.malformedNotifications == 1)
        #expect(try await fake.count("ConnectCount", path) == 1)
        sensor.stop()
        // The sensor connected the strap, so stopping releases the socket and disconnects it, both done once
        // waitUntilReleased returns (what `workout record` waits for before it exits).
        try await withDeadline(seconds: 10, "the sensor to release what it held") { await sensor.waitUntilReleased() }
        #expect(try await fake.count("SocketCount", path) == 0)
        let device = try await fake.client.managedObjects().properties(path, BlueZ.device)
        #expect(device?["Connected"]?.bool == false)
    }

    @Test func aLostLinkIsReportedWithBluetoothdsReasonAndReconnectedAfterBackoff() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        try await fake.addAdapter()
        let path = try await fake.addSensor(Self.strap, name: "Strap")
        let clock = ManualClock()
        let (sensor, events) = start(fake, clock: clock)
        defer { sensor.stop() }
        var iterator = events.makeAsyncIterator()
        #expect(try await next(&iterator) == "connecting")
        #expect(try await next(&iterator) == "connected")
        try await fake.fake(
            "DropLink", [.string(path), .string("org.bluez.Reason.Timeout"), .string("Connection timeout")])
        #expect(
            try await next(&iterator)
                == "disconnected: bluetoothd reports the link ended: Connection timeout (org.bluez.Reason.Timeout).")
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(250))
        #expect(try await next(&iterator) == "connecting")
        #expect(try await next(&iterator) == "connected")
        #expect(try await fake.count("ConnectCount", path) == 2)
        try await fake.notify(path, [0x00, 64])
        #expect(try await next(&iterator) == "heart rate 64")
    }

    /// A link the sensor made stays the sensor's across a loss: when bluetoothd has the link up again by itself before
    /// the next session asks (a Connect still pending in it), the sensor uses it and still disconnects it on stop.
    @Test func aLinkTheSensorMadeIsDisconnectedOnStopEvenWhenBluetoothdBroughtItBack() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        try await fake.addAdapter()
        let path = try await fake.addSensor(Self.strap, name: "Strap")
        let clock = ManualClock()
        let (sensor, events) = start(fake, clock: clock)
        var iterator = events.makeAsyncIterator()
        #expect(try await next(&iterator) == "connecting")
        #expect(try await next(&iterator) == "connected")
        try await fake.fake(
            "DropLink", [.string(path), .string("org.bluez.Reason.Timeout"), .string("Connection timeout")])
        #expect(try await next(&iterator).hasPrefix("disconnected: "))
        try await clock.waitForSleepers(1)
        _ = try await fake.client.call(path, BlueZ.device, "Connect")  // bluetoothd's pending Connect completes
        clock.advance(by: .milliseconds(250))
        #expect(try await next(&iterator) == "connecting")
        #expect(try await next(&iterator) == "connected")
        #expect(try await fake.count("ConnectCount", path) == 2, "the sensor asked once, bluetoothd once")
        sensor.stop()
        try await withDeadline(seconds: 10, "the sensor to release what it held") { await sensor.waitUntilReleased() }
        let device = try await fake.client.managedObjects().properties(path, BlueZ.device)
        #expect(device?["Connected"]?.bool == false)
    }

    @Test func aDeviceBluetoothdAlreadyHoldsIsUsedAsItIsAndValuesComeAsPropertiesWhereAcquireNotifyIsRefused()
        async throws
    {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        try await fake.addAdapter()
        let path = try await fake.addSensor(Self.strap, name: "Strap")
        try await fake.fake("SetAcquireNotify", [.string(path), .string("refuse")])
        _ = try await fake.client.call(path, BlueZ.device, "Connect")  // bluetoothctl connect
        let (sensor, events) = start(fake)
        defer { sensor.stop() }
        var iterator = events.makeAsyncIterator()
        #expect(try await next(&iterator) == "connecting")
        #expect(try await next(&iterator) == "connected")
        try await fake.notify(path, [0x00, 81])
        #expect(try await next(&iterator) == "heart rate 81")
        #expect(try await fake.count("ConnectCount", path) == 1)
        // The link was bluetoothd's before the sensor started: it stays up when the sensor stops.
        sensor.stop()
        try await withDeadline(seconds: 10, "the sensor to release what it held") { await sensor.waitUntilReleased() }
        let device = try await fake.client.managedObjects().properties(path, BlueZ.device)
        #expect(device?["Connected"]?.bool == true)
    }

    @Test func aMalformedAcquireNotifyReplyEndsTheSessionWithOneClearReason() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        try await fake.addAdapter()
        let path = try await fake.addSensor(Self.strap, name: "Strap")
        try await fake.fake("SetAcquireNotify", [.string(path), .string("malformed")])
        let (sensor, events) = start(fake)
        defer { sensor.stop() }
        var iterator = events.makeAsyncIterator()
        #expect(try await next(&iterator) == "connecting")
        #expect(
            try await next(&iterator)
                == "disconnected: bluetoothd sent an unexpected reply to AcquireNotify: 's', not 'hq'.")
    }

    @Test func managedObjectsOfTheWrongShapeAreOneClearError() throws {
        var objects = BlueZObjects()
        #expect(throws: BlueZReplyError("GetManagedObjects replied with 's', not 'a{oa{sa{sv}}}'")) {
            try objects.load(managedObjects: [.string("nonsense")])
        }
        #expect(throws: BlueZReplyError.self) {
            try objects.load(managedObjects: [
                .array(elementSignature: "{os}", [.dictionaryEntry(.objectPath("/a"), .string("x"))])
            ])
        }
        #expect(objects == BlueZObjects())
    }

    @Test func pairingTrustsTheSensorAndBondsOnlyWhenItsMeasurementIsProtected() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        try await fake.addAdapter()
        let path = try await fake.addSensor(Self.strap, name: "Polar H10 8A1C2D3E")
        let pairing = DBusPairing(client: fake.client, adapter: "hci0", timeout: .seconds(5))
        let outcome = try await pairing.pair(BluetoothAddress(Self.strap, type: .public)!, clock: ContinuousClock())
        #expect(outcome.bonding == "no bond needed")
        #expect(outcome.trusted)
        // bluetoothd knows the address is random, whatever the person typed.
        #expect(SensorAddress.bluetooth(outcome.address).identifier == "ble:C7:3A:10:5E:22:F1/random")
        #expect(outcome.probe.capabilities.contains(.heartRate))
        #expect(outcome.probe.deviceName == "Polar H10 8A1C2D3E")
        let device = try #require(try await fake.client.managedObjects().device(at: path))
        #expect(!device.isPaired && device.isTrusted && !device.isConnected)
        #expect(try await fake.count("SocketCount", path) == 0)
    }

    @Test(arguments: ["none", "claimed", "exported"])
    func pairingSaysWhenBluetoothdKeepsDeviceInformationToItself(mode: String) async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        try await fake.addAdapter()
        let path = try await fake.addSensor(Self.strap, name: "Polar H10 8A1C2D3E")
        try await fake.fake("SetDeviceInformation", [.string(path), .string(mode)])
        let pairing = DBusPairing(client: fake.client, adapter: "hci0", timeout: .seconds(5))
        let outcome = try await pairing.pair(BluetoothAddress(Self.strap, type: .random)!, clock: ContinuousClock())
        // Claimed (bluetoothd before 5.80): listed among the services, not exported: said. Exported (5.80 and
        // later): read. None: nothing to say.
        #expect(outcome.deviceInformationHidden == (mode == "claimed"))
        let information = outcome.probe.deviceInformation
        #expect(information.manufacturerName == (mode == "exported" ? "Polar Electro Oy" : nil))
        #expect(information.modelNumber == (mode == "exported" ? "H10" : nil))
    }

    @Test func aConnectionBluetoothdNeverSaysConnectedStillPairsAndRecords() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        try await fake.addAdapter()
        let path = try await fake.addSensor(Self.strap, name: "Strap")
        // Given bluetoothd answering Connect and resolving the services without ever saying Connected (5.66 after
        // losing track of an earlier link, as seen on the VM bench)
        try await fake.fake("SetSilentConnected", [.string(path), .boolean(true)])
        // Then pairing connects once and pairs (it said "disconnected while its services were resolved, three times")
        let pairing = DBusPairing(client: fake.client, adapter: "hci0", timeout: .seconds(5))
        let outcome = try await pairing.pair(BluetoothAddress(Self.strap, type: .random)!, clock: ContinuousClock())
        #expect(outcome.trusted && outcome.probe.capabilities.contains(.heartRate))
        #expect(try await fake.count("ConnectCount", path) == 1)
        // And a recording connects
        let (sensor, events) = start(fake)
        defer { sensor.stop() }
        var iterator = events.makeAsyncIterator()
        #expect(try await next(&iterator) == "connecting")
        #expect(try await next(&iterator) == "connected")
    }

    @Test func aSensorThatProtectsItsMeasurementIsBondedThroughTheAgentWithNoDialog() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        try await fake.addAdapter()
        let path = try await fake.addProtectedSensor(Self.strap, name: "Strap")
        let pairing = DBusPairing(client: fake.client, adapter: "hci0", timeout: .seconds(5))
        let outcome = try await pairing.pair(BluetoothAddress(Self.strap, type: .random)!, clock: ContinuousClock())
        #expect(outcome.bonding == "bonded")
        let device = try #require(try await fake.client.managedObjects().device(at: path))
        #expect(device.isPaired && device.isTrusted)
        // Once bonded, a recording subscribes.
        let (sensor, events) = start(fake)
        defer { sensor.stop() }
        var iterator = events.makeAsyncIterator()
        #expect(try await next(&iterator) == "connecting")
        #expect(try await next(&iterator) == "connected")
    }

    /// A desktop's agent is bluetoothd's default (another program registered it and asked to be the default):
    /// pairing a sensor whose measurement needs encryption makes ours the default while it runs, so the bond
    /// bluetoothd makes by itself asks ours and never the desktop's (no dialog); afterwards the desktop's is the
    /// default again. With an agent that is only registered, the desktop's was asked (the review's B2).
    @Test func theBondAsksOurAgentNotTheDesktopsAndGivesTheDefaultBack() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        try await fake.addAdapter()
        _ = try await fake.addProtectedSensor(Self.strap, name: "Strap")
        let desktop = try BusConnection.connect(address: fake.address)
        defer { desktop.close() }
        let asked = Locked<[String]>([])
        let desktopAgent = "/org/desktop/agent"
        let export = try await desktop.export(desktopAgent) { call in
            asked.withLock { $0.append(call.member) }
            return .success([])
        }
        defer { export.cancel() }
        let manager = BlueZClient(connection: desktop, callTimeout: .seconds(10))
        _ = try await manager.call(
            "/org/bluez", BlueZ.agentManager, "RegisterAgent", [.objectPath(desktopAgent), .string("KeyboardDisplay")])
        _ = try await manager.call("/org/bluez", BlueZ.agentManager, "RequestDefaultAgent", [.objectPath(desktopAgent)])

        let pairing = DBusPairing(client: fake.client, adapter: "hci0", timeout: .seconds(5))
        let outcome = try await pairing.pair(BluetoothAddress(Self.strap, type: .random)!, clock: ContinuousClock())
        #expect(outcome.bonding == "bonded")
        #expect(asked.withLock { $0 }.isEmpty, "the desktop's agent was asked: \(asked.withLock { $0 })")
        #expect(try await fake.fake("DefaultAgent").first?.string == desktopAgent)
    }

    /// `workout pair --again`: what bluetoothd kept of a bonded sensor (its object, so its bond) is removed, a second
    /// forget finds nothing, and once the sensor is heard again it bonds afresh ("bonded", not "already bonded").
    @Test func forgettingASensorRemovesItsBondAndItBondsAfresh() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        try await fake.addAdapter()
        let path = try await fake.addProtectedSensor(Self.strap, name: "Strap")
        let pairing = DBusPairing(client: fake.client, adapter: "hci0", timeout: .seconds(5))
        let address = BluetoothAddress(Self.strap, type: .random)!
        #expect(try await pairing.pair(address, clock: ContinuousClock()).bonding == "bonded")
        #expect(try await pairing.pair(address, clock: ContinuousClock()).bonding == "already bonded")
        #expect(try await DBusPairing(client: fake.client, adapter: "hci1").forget(address) == 0)
        #expect(try await pairing.forget(address) == 1)
        #expect(try await fake.client.managedObjects().device(at: path) == nil)
        #expect(try await pairing.forget(address) == 0)
        _ = try await fake.addProtectedSensor(Self.strap, name: "Strap")  // heard again
        let afresh = try await pairing.pair(address, clock: ContinuousClock())
        #expect(afresh.bonding == "bonded")
    }

    @Test func theAgentAuthorisesJustWorksAndRejectsWhatNeedsAPerson() {
        func call(_ member: String) -> Result<[DBusValue], DBusError> {
            PairingAgent.answer(
                BusConnection.MethodCall(
                    sender: nil, path: PairingAgent.path, interface: BlueZ.agent,
                    member: member, arguments: [.objectPath("/org/bluez/hci0/dev_X")]))
        }
        #expect(call("RequestAuthorization") == .success([]))
        #expect(call("RequestConfirmation") == .success([]))
        #expect((try? call("RequestPasskey").get()) == nil)
        if case .failure(let error) = call("RequestPinCode") { #expect(error.name == "org.bluez.Error.Rejected") }
    }
}

/// The next event, as a short phrase; fails after 10 s.
func next(_ iterator: inout AsyncStream<SensorEvent>.Iterator) async throws -> String {
    nonisolated(unsafe) var moving = iterator
    defer { iterator = moving }
    let event = try await withDeadline(seconds: 10, "a sensor event") { () -> SensorEvent? in await moving.next() }
    guard let event else { return "ended" }
    switch event.kind {
    case .connection(.connecting): return "connecting"
    case .connection(.connected): return "connected"
    case .connection(.disconnected(let reason)): return "disconnected: \(reason ?? "-")"
    case .reading(.heartRate(let reading)): return "heart rate \(reading.bpm)"
    case .reading(let value): return "\(value)"
    }
}
