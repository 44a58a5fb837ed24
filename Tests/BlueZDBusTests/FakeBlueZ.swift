import BluetoothLE
import FitnessSensors
import Foundation
import TestSupport
import Testing

@testable import BlueZDBus

/// A private `dbus-daemon` with python-dbusmock's `bluez5` template and this suite's GATT additions
/// (`Fixtures/fitness_bluez.py`) on it, standing in for the system bus and bluetoothd: real processes, real
/// messages. Every wait has a deadline that fails the test.
final class FakeBlueZ: @unchecked Sendable {
    let address: String
    let connection: BusConnection
    let client: BlueZClient
    private let daemon: Process
    /// The python-dbusmock process playing bluetoothd (replaced by ``restartBluetoothd()``).
    private var mock: Process
    private let directory: URL

    static let template = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fitness_bluez.py").path

    /// Starts the daemon and the mock; when either fails to come up, whatever was started is ended (and its
    /// directory removed) before the error is thrown, so a failed setup leaves no process behind.
    init() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fake-bluez-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let socket = directory.appendingPathComponent("bus").path
        let address = "unix:path=\(socket)"
        var started: [Process] = []
        var bus: BusConnection?
        do {
            let daemon = Process()
            daemon.standardInput = FileHandle.nullDevice
            daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
            daemon.arguments = ["--session", "--nofork", "--nopidfile", "--address=\(address)"]
            daemon.standardOutput = FileHandle.nullDevice
            // What it says (a warning on every start where it may not raise its descriptor limit) goes to a file
            // beside its socket, shown when it fails to come up, not into the test run's output.
            let log = directory.appendingPathComponent("dbus-daemon.log").path
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            daemon.standardError = FileHandle(forWritingAtPath: log)
            try daemon.run()
            started.append(daemon)
            // The daemon listens once its socket exists; a connection made earlier fails, so try again until the
            // deadline.
            let deadline = Date().addingTimeInterval(10)
            while bus == nil {
                bus = try? BusConnection.connect(address: address)
                if bus == nil {
                    guard Date() < deadline else {
                        let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                        throw FakeBlueZError("dbus-daemon did not listen at \(socket) within 10 s; it said: \(said)")
                    }
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            let owned = try await Self.waitForOwner(bus!)
            let mock = try Self.startMock(address)
            started.append(mock)
            try await owned()
            (self.daemon, self.mock) = (daemon, mock)
        } catch {
            bus?.close()
            Self.end(started.reversed(), directory: directory)
            throw error
        }
        self.directory = directory
        self.address = address
        connection = bus!
        client = BlueZClient(connection: connection, callTimeout: .seconds(10))
    }

    /// Starts python-dbusmock with this suite's template on the bus at `address`.
    private static func startMock(_ address: String) throws -> Process {
        let mock = Process()
        mock.standardInput = FileHandle.nullDevice
        mock.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        mock.arguments = ["-m", "dbusmock", "--system", "--template", template]
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        mock.environment = environment
        mock.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try mock.run()
        return mock
    }

    /// bluetoothd stops (killed: it leaves the bus, and every socket it handed over closes) and starts again with
    /// nothing known (no adapter, no device), as after `systemctl restart bluetooth`; returns once it owns `org.bluez`.
    func restartBluetoothd() async throws {
        let gone = try await Self.waitForOwner(connection)  // (its owner changes: here, to none)
        mock.killGroup()
        _ = mock.waitUntilExit(within: 10)
        try await gone()
        let owned = try await Self.waitForOwner(connection)
        mock = try Self.startMock(address)
        try await owned()
    }

    /// Returns a wait for `org.bluez`'s owner to change, as when it gets one (subscribed before the mock starts, so it
    /// cannot be missed).
    private static func waitForOwner(_ connection: BusConnection) async throws -> () async throws -> Void {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        let subscription = try await connection.addMatch(
            "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.bluez'"
        ) { _ in
            continuation.yield()
        }
        return {
            defer { subscription.cancel() }
            try await withDeadline(seconds: 15, "python-dbusmock to own org.bluez") {
                for await _ in stream { return }
            }
        }
    }

    /// Kills the bus daemon, as when the system bus goes away under a client.
    func killDaemon() {
        daemon.killGroup()
        _ = daemon.waitUntilExit(within: 10)
    }

    func stop() {
        connection.close()
        Self.end([mock, daemon], directory: directory)
    }

    /// Ends the processes and removes the directory. SIGKILL to each group: dbus-daemon started by the test runner
    /// does not act on SIGTERM, and a daemon left running keeps the runner's output open after the last test.
    private static func end(_ processes: [Process], directory: URL) {
        for process in processes {
            process.killGroup()
            _ = process.waitUntilExit(within: 10)
        }
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: - Driving the fake

    @discardableResult
    func fake(
        _ member: String, _ arguments: [DBusValue] = [], path: String = "/",
        interface: String = "org.openhealthkit.FakeBlueZ"
    ) async throws -> [DBusValue] {
        try await connection.call("org.bluez", path, interface, member, arguments, timeout: .seconds(10))
    }

    func addAdapter(_ name: String = "hci0") async throws {
        try await fake("AddAdapter", [.string(name), .string("test host")], interface: "org.bluez.Mock")
    }

    /// Adds a sensor bluetoothd has heard; returns its object path.
    func addSensor(
        _ address: String, name: String, random: Bool = true, service: UInt16 = 0x180D,
        adapter: String = "hci0"
    ) async throws -> String {
        let reply = try await fake(
            "AddSensor",
            [
                .string(adapter), .string(address), .string(name),
                .string(random ? "random" : "public"), .uint16(service),
            ])
        return reply.first?.string ?? ""
    }

    /// Adds a sensor whose measurement needs an encrypted link: bluetoothd bonds for it through the default agent,
    /// or refuses the subscription. Returns its object path.
    func addProtectedSensor(_ address: String, name: String) async throws -> String {
        let path = try await addSensor(address, name: name)
        try await fake("RequireEncryption", [.string(path)])
        return path
    }

    /// A D-Bus sensor of the strap at `address` on this fake's bus, started, with its events in a stream.
    func startSensor(
        _ address: String = BlueZDBusTests.strap, options: DBusSensor.Options = DBusSensor.Options(),
        clock: ManualClock = ManualClock()
    ) -> (DBusSensor, AsyncStream<SensorEvent>) {
        let sensor = DBusSensor(
            address: BluetoothAddress(address, type: .random)!, options: options, clock: clock,
            wallClock: { Date(timeIntervalSinceReferenceDate: 0) },
            bus: { [connection] in connection })
        let (events, continuation) = AsyncStream.makeStream(of: SensorEvent.self)
        sensor.start { continuation.yield($0) }
        return (sensor, events)
    }

    func notify(_ path: String, _ bytes: [UInt8]) async throws {
        try await fake("Notify", [.string(path), .bytes(bytes)])
    }

    func count(_ member: String, _ path: String) async throws -> Int {
        try await fake(member, [.string(path)]).first?.integer ?? -1
    }
}

struct FakeBlueZError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `body`, failing when it takes longer than `seconds` of real time (a test's guard against hanging on another
/// process, not a way of waiting for anything).
func withDeadline<T: Sendable>(
    seconds: Double, _ what: String,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
            return nil
        }
        defer { group.cancelAll() }
        guard let result = try await group.next(), let value = result else {
            throw FakeBlueZError("waited more than \(seconds) s for \(what)")
        }
        return value
    }
}
