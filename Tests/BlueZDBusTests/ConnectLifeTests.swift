import BlueZTransport
import BluetoothLE
import FitnessSensors
import Foundation
import TestSupport
import Testing

@testable import BlueZDBus

/// A `Device1.Connect` owned from start to end (issue 36, the review's B1), against the fake bluetoothd behaving as
/// bluetoothd does for a sensor out of range: its Connect is answered only once the sensor is there, every other
/// Connect meanwhile is `InProgress`, and only a `Disconnect` cancels it (answering it `br-connection-canceled`).
@Suite(.blockingWaits, .serialized, .timeLimit(.minutes(1))) struct ConnectLifeTests {
    static let strap = BlueZDBusTests.strap

    /// A sensor out of range, and a D-Bus sensor started on it with `connectTimeout` (sd-bus's limit on the Connect
    /// call, in real time); returns the fake, the device's path, the sensor and its events.
    func absentStrap(
        connectTimeout: Duration = .seconds(20)
    ) async throws -> (FakeBlueZ, String, DBusSensor, AsyncStream<SensorEvent>) {
        let fake = try await FakeBlueZ()
        try await fake.addAdapter()
        let path = try await fake.addSensor(Self.strap, name: "Strap")
        try await fake.fake("SetPresent", [.string(path), .boolean(false)])
        var options = DBusSensor.Options()
        options.connectTimeout = connectTimeout
        let (sensor, events) = fake.startSensor(options: options)
        return (fake, path, sensor, events)
    }

    /// The Connect calls bluetoothd took on and the Disconnect calls it got, once `connects` Connects are pending or
    /// done.
    func calls(_ fake: FakeBlueZ, _ path: String, once connects: Int) async throws -> (connects: Int, disconnects: Int)
    {
        try await withDeadline(seconds: 10, "\(connects) Connect call(s) to reach bluetoothd") {
            while true {
                let reply = try await fake.fake("ConnectCalls", [.string(path)])
                let counts = (reply.first?.integer ?? -1, reply.dropFirst().first?.integer ?? -1)
                if counts.0 >= connects { return counts }
                await Task.yield()
            }
        }
    }

    func connected(_ fake: FakeBlueZ, _ path: String) async throws -> Bool? {
        try await fake.client.managedObjects().properties(path, BlueZ.device)?["Connected"]?.bool
    }

    /// `q` while the Connect waits for an absent strap: the sensor asks bluetoothd to Disconnect, which cancels the
    /// attempt, and is released at once (not after the Connect's 20 s); the strap that comes back afterwards is
    /// not connected by anyone.
    @Test func stoppingDuringAPendingConnectCancelsItAndNothingIsHeldWhenTheSensorReturns() async throws {
        let (fake, path, sensor, events) = try await absentStrap()
        defer { fake.stop() }
        var iterator = events.makeAsyncIterator()
        #expect(try await next(&iterator) == "connecting")
        #expect(try await calls(fake, path, once: 1) == (1, 0))
        let stopped = ContinuousClock.now
        sensor.stop()
        try await withDeadline(seconds: 5, "the sensor to release what it held") { await sensor.waitUntilReleased() }
        #expect(ContinuousClock.now - stopped < .seconds(2))
        #expect(try await calls(fake, path, once: 1) == (1, 1))
        try await fake.fake("SetPresent", [.string(path), .boolean(true)])
        #expect(try await connected(fake, path) == false)
        #expect(try await fake.count("ConnectCount", path) == 0)
    }

    /// A Connect bluetoothd is already carrying out (an earlier attempt, ours or another program's) is waited on:
    /// `InProgress` is never reported, and the sensor is connected when the strap comes.
    @Test func anAttemptAlreadyUnderWayIsWaitedOnNotReported() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        try await fake.addAdapter()
        let path = try await fake.addSensor(Self.strap, name: "Strap")
        try await fake.fake("SetPresent", [.string(path), .boolean(false)])
        // Another program's Connect, pending in bluetoothd.
        let other = Task { [client = fake.client] in try await client.call(path, BlueZ.device, "Connect") }
        #expect(try await calls(fake, path, once: 1) == (1, 0))
        let (sensor, events) = fake.startSensor()
        defer { sensor.stop() }
        var iterator = events.makeAsyncIterator()
        #expect(try await next(&iterator) == "connecting")
        // The sensor's own Connect was answered InProgress (not taken on): still one call taken on.
        try await withDeadline(seconds: 10, "the sensor's Connect to be answered InProgress") {
            while try await fake.fake("ConnectCalls", [.string(path)]).last?.integer != 1 { await Task.yield() }
        }
        #expect(try await calls(fake, path, once: 1) == (1, 0))
        try await fake.fake("SetPresent", [.string(path), .boolean(true)])
        _ = try await other.value
        #expect(try await next(&iterator) == "connected")
        try await fake.notify(path, [0x00, 70])
        #expect(try await next(&iterator) == "heart rate 70")
    }

    /// A strap that does not answer within the Connect's limit: one sentence about the strap and what to do (not
    /// "bluetoothd did not answer"), and the attempt bluetoothd would go on with is cancelled.
    @Test func aStrapThatDoesNotAnswerIsNamedAndItsAttemptCancelled() async throws {
        let (fake, path, sensor, events) = try await absentStrap(connectTimeout: .seconds(1))
        defer {
            sensor.stop()
            fake.stop()
        }
        var iterator = events.makeAsyncIterator()
        #expect(try await next(&iterator) == "connecting")
        #expect(
            try await next(&iterator)
                == "disconnected: \(Self.strap)/random did not connect within 1 s; wake it (wet a strap's contacts, turn the cranks) or bring it closer."
        )
        #expect(try await calls(fake, path, once: 1) == (1, 1))
        try await fake.fake("SetPresent", [.string(path), .boolean(true)])
        #expect(try await connected(fake, path) == false)
    }

    /// bluetoothd's errors for a Connect, each as the sensor's sentence: the kernel's abandoned attempt with advice,
    /// a cancelled one, and the rest as every other call's.
    @Test func connectErrorsAreSentencesAboutTheSensor() {
        let name = "\(Self.strap)/random"
        func sentence(_ error: String, _ message: String) -> String {
            DBusSensor.connectFailure(
                DBusError(name: error, message: message), name, within: .seconds(20), at: "/org/bluez/hci0/dev_X"
            ).message
        }
        #expect(
            sentence("org.bluez.Error.Failed", "le-connection-abort-by-local")
                == "\(name) did not answer the connection attempt (le-connection-abort-by-local); wake it or bring it closer."
        )
        #expect(
            sentence("org.bluez.Error.Failed", "br-connection-canceled")
                == "The link to \(name) dropped while it was being connected.")
        #expect(
            sentence("org.freedesktop.DBus.Error.NoReply", "Method call timed out").hasPrefix(
                "\(name) did not connect within 20 s"))
        #expect(
            sentence("org.bluez.Error.NotReady", "Resource Not Ready")
                == "The adapter is not ready (powered off?); run `bluetoothctl power on`.")
    }
}

extension ConnectLifeTests {
    /// Cancelling a task ends its wait for a reply at once, not the call: a call made by a cancelled task still
    /// reaches bluetoothd (how a stopped sensor's `Disconnect` gets there).
    @Test func cancellingEndsTheWaitNotTheCall() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        try await fake.addAdapter()
        let path = try await fake.addSensor(Self.strap, name: "Strap")
        try await fake.fake("SetPresent", [.string(path), .boolean(false)])
        let connection = fake.connection
        let waiting = Task {
            try await connection.call("org.bluez", path, BlueZ.device, "Connect", timeout: .seconds(30))
        }
        #expect(try await calls(fake, path, once: 1) == (1, 0))
        waiting.cancel()
        let outcome = try await withDeadline(seconds: 2, "the cancelled call to return") { await waiting.result }
        #expect(throws: DBusError.cancelled) { try outcome.get() }
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try? await connection.call("org.bluez", path, BlueZ.device, "Disconnect")
        }
        _ = await cancelled.value
        #expect(
            try await withDeadline(seconds: 10, "the Disconnect to reach bluetoothd") {
                while try await fake.fake("ConnectCalls", [.string(path)]).dropFirst().first?.integer != 1 {
                    await Task.yield()
                }
                return true
            })
    }
}

extension ConnectLifeTests {
    /// bluetoothd restarts mid-recording (`systemctl restart bluetooth`): the sensor says the link ended, keeps
    /// trying while bluetoothd is away, and records again once it is back and has the strap.
    @Test func aSensorResumesAfterBluetoothdRestarts() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        let clock = ManualClock()
        let (sensor, path, iteratorAtStart) = try await connectedSensor(fake, clock: clock)
        defer { sensor.stop() }
        var iterator = iteratorAtStart
        try await fake.notify(path, [0x00, 70])
        #expect(try await next(&iterator) == "heart rate 70")

        try await fake.restartBluetoothd()
        let ended = try await next(&iterator)
        #expect(ended.hasPrefix("disconnected: "), "\(ended)")
        try await expectResumes(fake, clock: clock, &iterator, failingWith: "disconnected: ")
    }

    /// bluetoothd restarts while the strap's measurement comes as `PropertiesChanged` (`StartNotify`: no socket that
    /// closes, and a killed bluetoothd sends no signal of its own): the bus's `NameOwnerChanged` says it left, the
    /// sensor says so in one sentence at once, and records again once it is back. Without the bus's signal the
    /// sensor would wait for a link nobody holds any more (this test's 10 s wait for the event fails).
    @Test func aSensorOnStartNotifyHearsBluetoothdLeaveAndResumes() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        let clock = ManualClock()
        let (sensor, path, iteratorAtStart) = try await connectedSensor(fake, clock: clock, acquireNotify: "refuse")
        defer { sensor.stop() }
        var iterator = iteratorAtStart
        try await fake.notify(path, [0x00, 70])
        #expect(try await next(&iterator) == "heart rate 70")

        try await fake.restartBluetoothd()
        #expect(
            try await next(&iterator)
                == "disconnected: bluetoothd stopped (restarted, or its service was stopped); the sensor is connected again once it is back."
        )
        try await expectResumes(fake, clock: clock, &iterator, failingWith: "disconnected: ")
    }

    /// A D-Bus sensor (default options, on `clock`) started on a strap the fake's hci0 has, once it is connected:
    /// the sensor, the strap's path and the events after "connected". `acquireNotify` is how the fake answers
    /// AcquireNotify (`refuse`: the sensor takes its measurement through StartNotify).
    func connectedSensor(
        _ fake: FakeBlueZ, clock: ManualClock, acquireNotify: String = "ok"
    ) async throws -> (DBusSensor, String, AsyncStream<SensorEvent>.Iterator) {
        try await fake.addAdapter()
        let path = try await fake.addSensor(Self.strap, name: "Strap")
        try await fake.fake("SetAcquireNotify", [.string(path), .string(acquireNotify)])
        let (sensor, events) = fake.startSensor(clock: clock)
        var iterator = events.makeAsyncIterator()
        #expect(try await next(&iterator) == "connecting")
        #expect(try await next(&iterator) == "connected")
        return (sensor, path, iterator)
    }

    /// After the sensor lost its strap: its next attempt fails (its reason starts with `failure`) while bluetoothd
    /// knows neither adapter nor strap; once both are back, it connects again and reads a heart rate.
    func expectResumes(
        _ fake: FakeBlueZ, clock: ManualClock, _ iterator: inout AsyncStream<SensorEvent>.Iterator,
        failingWith failure: String
    ) async throws {
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(250))
        #expect(try await next(&iterator) == "connecting")
        let failed = try await next(&iterator)
        #expect(failed.hasPrefix(failure), "\(failed)")
        try await fake.addAdapter()
        let path = try await fake.addSensor(Self.strap, name: "Strap")
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(500))
        #expect(try await next(&iterator) == "connecting")
        #expect(try await next(&iterator) == "connected")
        try await fake.notify(path, [0x00, 71])
        #expect(try await next(&iterator) == "heart rate 71")
    }
}

extension ConnectLifeTests {
    /// The adapter is unplugged mid-recording (bluetoothd removes it and its devices): the sensor says why the link
    /// ended, then that there is no adapter while it is away, and records again once it is plugged back in and the
    /// strap is heard.
    @Test func aSensorResumesAfterItsAdapterIsUnpluggedAndPluggedBackIn() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        let clock = ManualClock()
        let (sensor, _, iteratorAtStart) = try await connectedSensor(fake, clock: clock)
        defer { sensor.stop() }
        var iterator = iteratorAtStart
        try await fake.fake("RemoveAdapterWithDevices", [.string("hci0")], interface: "org.bluez.Mock")
        #expect(
            try await next(&iterator)
                == "disconnected: bluetoothd no longer knows the sensor (it was removed, or its adapter went away: unplugged or reset)."
        )
        try await expectResumes(
            fake, clock: clock, &iterator, failingWith: "disconnected: bluetoothd has no Bluetooth adapter")
    }
}

extension ConnectLifeTests {
    /// With two adapters, both listen at once: a strap both hear is listed once, with the adapter that heard it
    /// stronger first, and a power meter only the second hears is listed too (issue 36, item 3).
    @Test func everyAdapterListensAndEachDeviceSaysWhichHeardIt() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        try await fake.addAdapter("hci0")
        try await fake.addAdapter("hci1")
        let scan = Task { [client = fake.client] in
            try await DBusScanner.scan(["hci0", "hci1"], client: client, for: .seconds(30))
        }
        try await withDeadline(seconds: 10, "discovery to start on both adapters") {
            while true {
                let objects = try await fake.client.managedObjects()
                let discovering = ["hci0", "hci1"].filter {
                    objects.properties("/org/bluez/\($0)", BlueZ.adapter)?["Discovering"]?.bool == true
                }
                if discovering.count == 2 { return }
                await Task.yield()
            }
        }
        let near = try await fake.addSensor(Self.strap, name: "Strap", adapter: "hci0")
        let far = try await fake.addSensor(Self.strap, name: "Strap", adapter: "hci1")
        _ = try await fake.addSensor(
            "00:22:D0:11:22:33", name: "Meter", random: false, service: 0x1818, adapter: "hci1")
        try await fake.fake("SetRSSI", [.string(near), .int16(-80)])
        try await fake.fake("SetRSSI", [.string(far), .int16(-50)])
        _ = try await fake.fake("ConnectCount", [.string(far)])  // a round trip: the signals before it are out
        scan.cancel()
        let devices = try await scan.value
        #expect(devices.map(\.addressSpelling) == ["\(Self.strap)/random", "00:22:D0:11:22:33"])
        #expect(devices.map(\.adapters) == [["hci1", "hci0"], ["hci1"]])
        #expect(devices.map(\.rssi) == [-50, -58])
    }
}
