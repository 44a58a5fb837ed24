import BlueZTransport
import BluetoothLE
import FitnessSensors
import Foundation
import Logging
import Synchronization

/// A Bluetooth LE fitness sensor reached through bluetoothd, as a ``Sensor``: bluetoothd connects
/// (`Device1.Connect`, or the link it already holds), resolves the services and hands each measurement's
/// notifications over on a socket (`AcquireNotify`, one value per datagram), or as `PropertiesChanged` after
/// `StartNotify` where it cannot. Every value goes through the same decoding as the raw L2CAP sensor's
/// (``SensorReadingInterpreter/readings(fromValue:of:at:)``), with the same duplicate filter.
///
/// While started it keeps the sensor connected: when bluetoothd reports the link gone (`Connected` false, the
/// device removed, the notification socket closed) the sensor reports `.disconnected` with bluetoothd's reason
/// where its version gives one (the `Disconnected` signal), never a guessed code, then connects again with
/// exponential backoff. Battery (`Battery1`) and Device Information are optional: a failure there never ends
/// the session. On ``stop()`` it releases the notifications and, if it made the connection, disconnects.
///
/// BlueZ `doc/org.bluez.Device.rst`, `org.bluez.GattCharacteristic.rst` (AcquireNotify, StartNotify).
public final class DBusSensor: Sensor {
    /// Tuning, with defaults that suit straps and power meters.
    public struct Options: Sendable {
        /// The adapter (`hciN`); nil: `$OPENHEALTHKIT_ADAPTER`, else the first powered one.
        public var adapter: String?
        /// How long connecting (and finding the device first, if bluetoothd has not seen it) may take.
        public var connectTimeout: Duration = .seconds(20)
        /// How long bluetoothd may take to resolve the services once connected.
        public var servicesTimeout: Duration = .seconds(20)
        public var initialBackoff: Duration = .milliseconds(250)
        public var maximumBackoff: Duration = .seconds(30)
        public var wheelCircumference: Double = WheelSpeedCalculator.defaultWheelCircumference
        public var duplicateWindow: TimeInterval = 0.1
        /// How long a connected sensor may stay silent before it is reported stale (as ``BLESensor``'s).
        public var staleAfter: Duration = BLESensor.Options().staleAfter
        /// Hears every value received and every connection change (`workout record --save-fixture`).
        public var tap: (any NotificationTap)?

        public init() {}
    }

    /// The bus to reach bluetoothd on, asked once per connection (so a restarted bus is found again).
    public typealias BusProvider = @Sendable () throws -> BusConnection

    public let identifier: String
    public let name: String
    public let capabilities: SensorCapabilities
    public var deviceInformation: DeviceInformation { information.withLock { $0 } }
    public var malformedNotifications: Int { malformed.load(ordering: .relaxed) }

    let address: BluetoothAddress
    let options: Options
    let clock: any Clock<Duration>
    let wallClock: @Sendable () -> Date
    let logger: Logger
    let bus: BusProvider
    let information = Mutex(DeviceInformation())
    let malformed = Atomic<Int>(0)
    /// Started or not: the events' outlet and the connection loop.
    let run: SensorRun
    /// The current connection as far as control needs it (``ControllableSensor``).
    let control = ControlLinkHub()

    /// Creates a sensor; nothing happens until ``start(_:)``.
    public init(
        address: BluetoothAddress,
        name: String? = nil,
        capabilities: SensorCapabilities = SensorCapabilities.heartRateStrap.union(.powerMeter),
        options: Options = Options(),
        clock: any Clock<Duration> = ContinuousClock(),
        wallClock: @escaping @Sendable () -> Date = { Date() },
        logger: Logger = Logger(label: "org.openhealthkit.dbus-sensor"),
        bus: @escaping BusProvider = { try SystemBus.shared() }
    ) {
        self.address = address
        self.identifier = SensorAddress.bluetooth(address).identifier
        self.name = name ?? SensorAddress.bluetooth(address).description
        self.capabilities = capabilities
        self.options = options
        self.clock = clock
        self.wallClock = wallClock
        run = SensorRun(identifier: self.identifier, tap: options.tap, wallClock: wallClock)
        self.logger = logger
        self.bus = bus
    }

    public func start(_ handler: @escaping @Sendable (SensorEvent) -> Void) {
        run.start(handler) { await self.maintainConnection(clock: self.clock) }
    }

    public func stop() { run.stop() }

    /// Returns once what the last ``stop()`` ended has been released in bluetoothd: the notification sessions
    /// closed, and a link this sensor made disconnected (each call there has its own time limit). A program that
    /// exits right after stopping would otherwise leave bluetoothd holding a link it made. OpenHealthKit.
    public func waitUntilReleased() async { await run.waitUntilReleased() }

    /// Delivers one event, stamped now, unless the sensor was stopped.
    func emit(_ kind: SensorEvent.Kind) { run.emit(kind) }

    /// Per-sensor state that outlives a connection.
    struct Continuity {
        var interpreter: SensorReadingInterpreter
        var deduplicator: NotificationDeduplicator
        var backoff: ReconnectBackoff
    }

    private func maintainConnection<C: Clock>(clock: C) async where C.Duration == Duration {
        let origin = clock.now
        let continuity = Locked(
            Continuity(
                interpreter: SensorReadingInterpreter(wheelCircumference: options.wheelCircumference),
                deduplicator: NotificationDeduplicator(window: options.duplicateWindow),
                backoff: ReconnectBackoff(initial: options.initialBackoff, maximum: options.maximumBackoff)))
        while !Task.isCancelled {
            emit(.connection(.connecting))
            let reason: String
            do {
                reason = try await runSession(clock: clock, origin: origin, continuity: continuity)
            } catch {
                if Task.isCancelled { return }
                reason = (error as? BlueZError)?.message ?? "The connection failed: \(error)."
            }
            if Task.isCancelled { return }
            logger.info("\(identifier) disconnected: \(reason)")
            emit(.connection(.disconnected(reason: reason)))
            let delay = continuity.withLock { state in
                state.interpreter.reset()
                state.deduplicator.linkRestarted()
                return state.backoff.next()
            }
            do { try await clock.sleep(for: delay) } catch { return }
        }
    }

    /// Decodes a value and pushes its readings through the one decode-and-interpret path; a malformed value is
    /// counted, logged and skipped. The tap hears the bytes once their readings are delivered.
    func deliver(
        _ characteristic: UInt16, _ bytes: [UInt8], at arrival: TimeInterval, continuity: Locked<Continuity>,
        checkingDuplicates: Bool = true
    ) {
        let arrivedAt = wallClock()
        let result: Result<[SensorReadingValue], any Error>? = continuity.withLock { state in
            if checkingDuplicates,
                state.deduplicator.isDuplicate(characteristic: characteristic, bytes: bytes, at: arrival)
            {
                return nil
            }
            return Result { try state.interpreter.readings(fromValue: bytes, of: characteristic, at: arrival) }
        }
        guard let result else {
            logger.debug("\(identifier): duplicate 0x\(String(characteristic, radix: 16)) value; dropped")
            return
        }
        defer { options.tap?.sensor(identifier, received: bytes, characteristic: characteristic, at: arrivedAt) }
        switch result {
        case .success(let readings):
            for reading in readings { emit(.reading(reading)) }
        case .failure(let error):
            malformed.add(1, ordering: .relaxed)
            logger.warning(
                "\(identifier): malformed 0x\(String(characteristic, radix: 16, uppercase: true)) value [\(bytes.map { String(format: "%02X", $0) }.joined(separator: " "))]: \(error); skipped"
            )
        }
    }
}
