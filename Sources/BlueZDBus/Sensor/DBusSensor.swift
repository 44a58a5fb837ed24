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
public final class DBusSensor: EngineSensor {
    /// Tuning, with defaults that suit straps and power meters: the shared ``SensorLinkOptions`` (read through,
    /// `options.staleAfter`) and the D-Bus path's own.
    public struct Options: SensorLinkTuning, Sendable {
        public var link = SensorLinkOptions()
        /// The adapter (`hciN`); nil: `$OPENHEALTHKIT_ADAPTER`, else the first powered one.
        public var adapter: String?
        /// How long connecting (and finding the device first, if bluetoothd has not seen it) may take.
        public var connectTimeout: Duration = .seconds(20)
        /// How long bluetoothd may take to resolve the services once connected.
        public var servicesTimeout: Duration = .seconds(20)

        public init() {}
    }

    /// The bus to reach bluetoothd on, asked once per connection (so a restarted bus is found again).
    public typealias BusProvider = @Sendable () throws -> BusConnection

    public let engine: SensorEngine
    let address: BluetoothAddress
    let options: Options
    let bus: BusProvider
    /// Whether this sensor made the link it uses (decided at the first session after it starts): a link it made is
    /// disconnected when it stops.
    let madeLink = Mutex(false)
    var logger: Logger { engine.logger }

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
        let sensor = SensorAddress.bluetooth(address)
        engine = SensorEngine(
            identifier: sensor.identifier, name: name ?? sensor.description, capabilities: capabilities,
            options: options.link, clock: clock, wallClock: wallClock, logger: logger)
        self.address = address
        self.options = options
        self.bus = bus
    }

    public func start(_ handler: @escaping @Sendable (SensorEvent) -> Void) { engine.start(handler, session: self) }

    /// Returns once what the last ``stop()`` ended has been released in bluetoothd: the notification sessions
    /// closed, and a link this sensor made disconnected (each call there has its own time limit). A program that
    /// exits right after stopping would otherwise leave bluetoothd holding a link it made. OpenHealthKit.
    public func waitUntilReleased() async { await engine.waitUntilReleased() }
}
