import BluetoothLE
import FitnessSensors
import Foundation
import Logging
import Synchronization

/// A Bluetooth LE fitness sensor — heart-rate strap, power meter, speed and cadence sensor — as a
/// ``Sensor``: it connects, discovers, reads Device Information and battery, subscribes to the
/// measurements (0x2A37, 0x2A63, 0x2A5B, 0x2A19), decodes every notification through
/// ``SensorPayload`` and ``SensorReadingInterpreter``, and pushes ``SensorEvent``s.
///
/// It keeps the sensor connected for as long as it is started:
/// * A lost link (the peer closed, ECONNRESET, ENOTCONN, a hang-up, an ATT transaction timeout) is
///   reported as `.disconnected(reason:)`; the sensor then reconnects with exponential backoff and
///   subscribes again, once per connection (unbonded peripherals forget CCCDs).
/// * Notifications delivered twice — including the value a sensor re-sends on re-subscription —
///   are dropped (``NotificationDeduplicator``).
/// * A sensor that stays silent for `staleAfter` (3 s by default) while connected is reported as
///   `.disconnected(reason:)` with a "no data" reason, and `.connected` again when data resumes;
///   old values are never repeated to fill the gap.
/// * Malformed PDUs and payloads are logged and skipped.
///
/// Time comes from two injected seams: `clock` for backoff, timeouts, staleness and the arrival
/// times the rate calculators use; `wallClock` for event timestamps.
///
/// Bluetooth HRS 1.0, CPS 1.1, CSCS 1.0, BAS 1.0, DIS 1.1; Core 5.3 Vol 3 Part G §4.
public final class BLESensor: Sensor {
    /// Tuning, with defaults that suit straps and power meters.
    public struct Options: Sendable {
        /// Silence after which a connected sensor is reported stale.
        public var staleAfter: Duration = .seconds(3)
        /// First reconnection delay; it doubles per failed attempt up to ``maximumBackoff``.
        public var initialBackoff: Duration = .milliseconds(250)
        public var maximumBackoff: Duration = .seconds(30)
        /// The ATT transaction timeout (Core 5.3 Vol 3 Part F §3.3.3).
        public var transactionTimeout: Duration = .seconds(30)
        /// Metres per wheel revolution, for speed and distance.
        public var wheelCircumference: Double = WheelSpeedCalculator.defaultWheelCircumference
        /// Seconds within which identical notifications are one re-delivered notification.
        public var duplicateWindow: TimeInterval = 0.1
        /// Hears the raw bytes of every value delivered (after duplicates are dropped; malformed ones too, stamped
        /// when they arrived, once their readings have been delivered) and every connection change: how
        /// `workout record --save-fixture` records a fixture.
        public var tap: (any NotificationTap)?

        public init() {}
    }

    /// Opens a fresh ATT bearer to the device (an L2CAP socket, or a Unix socket to a simulation).
    public typealias Connector = @Sendable () async throws -> SocketBearer

    public let identifier: String
    public let name: String
    public let capabilities: SensorCapabilities
    public var deviceInformation: DeviceInformation { information.withLock { $0 } }

    let options: Options
    let clock: any Clock<Duration>
    let wallClock: @Sendable () -> Date
    let logger: Logger
    private let connect: Connector
    let information = Mutex(DeviceInformation())
    /// Started or not: the events' outlet and the connection loop.
    let run: SensorRun
    let malformed = Atomic<Int>(0)
    /// The current connection as far as control needs it (``ControllableSensor``).
    let control = ControlLinkHub()

    /// Notifications that did not decode, counted (and logged) and skipped.
    public var malformedNotifications: Int { malformed.load(ordering: .relaxed) }

    /// Creates a sensor; nothing happens until ``start(_:)``.
    public init(
        identifier: String,
        name: String,
        capabilities: SensorCapabilities,
        options: Options = Options(),
        clock: any Clock<Duration> = ContinuousClock(),
        wallClock: @escaping @Sendable () -> Date = { Date() },
        logger: Logger = Logger(label: "org.openhealthkit.ble-sensor"),
        connect: @escaping Connector
    ) {
        self.identifier = identifier
        self.name = name
        self.capabilities = capabilities
        self.options = options
        self.clock = clock
        self.wallClock = wallClock
        run = SensorRun(identifier: self.identifier, tap: options.tap, wallClock: wallClock)
        self.logger = logger
        self.connect = connect
    }

    public func start(_ handler: @escaping @Sendable (SensorEvent) -> Void) {
        run.start(handler) { await self.maintainConnection(clock: self.clock) }
    }

    public func stop() { run.stop() }

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
        var continuity = Continuity(
            interpreter: SensorReadingInterpreter(wheelCircumference: options.wheelCircumference),
            deduplicator: NotificationDeduplicator(window: options.duplicateWindow),
            backoff: ReconnectBackoff(initial: options.initialBackoff, maximum: options.maximumBackoff))
        while !Task.isCancelled {
            emit(.connection(.connecting))
            let reason: String
            do {
                let bearer = try await connect()
                defer { bearer.close() }
                try await runSession(over: bearer, clock: clock, origin: origin, continuity: &continuity)
                reason = "The sensor closed the link."
            } catch {
                if Task.isCancelled { return }
                reason = Self.sentence(for: error)
            }
            logger.info("\(identifier) disconnected: \(reason)")
            emit(.connection(.disconnected(reason: reason)))
            continuity.interpreter.reset()
            continuity.deduplicator.linkRestarted()
            do { try await clock.sleep(for: continuity.backoff.next()) } catch { return }
        }
    }

    /// One sentence for a failure, for `.disconnected(reason:)`.
    static func sentence(for error: any Error) -> String {
        switch error {
        case let error as BlueZError: return error.message
        case let error as GATTClientError:
            if let underlying = error.underlying as? BlueZError { return underlying.message }
            return "The sensor stopped answering: \(error.message)."
        default: return "The connection failed: \(error)."
        }
    }
}
