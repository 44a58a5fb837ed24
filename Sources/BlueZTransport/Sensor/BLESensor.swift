import BluetoothLE
import FitnessSensors
import Foundation
import Logging

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
public final class BLESensor: EngineSensor {
    /// Tuning, with defaults that suit straps and power meters: the shared ``SensorLinkOptions`` (read through,
    /// `options.staleAfter`) and the raw path's own.
    public struct Options: SensorLinkTuning, Sendable {
        public var link = SensorLinkOptions()
        /// The ATT transaction timeout (Core 5.3 Vol 3 Part F §3.3.3).
        public var transactionTimeout: Duration = .seconds(30)

        public init() {}
    }

    /// Opens a fresh ATT bearer to the device (an L2CAP socket, or a Unix socket to a simulation).
    public typealias Connector = @Sendable () async throws -> SocketBearer

    public let engine: SensorEngine
    let options: Options
    private let connect: Connector

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
        engine = SensorEngine(
            identifier: identifier, name: name, capabilities: capabilities, options: options.link, clock: clock,
            wallClock: wallClock, logger: logger)
        self.options = options
        self.connect = connect
    }

    public func start(_ handler: @escaping @Sendable (SensorEvent) -> Void) { engine.start(handler, session: self) }
}

extension BLESensor: SensorSession {
    /// One connection: a fresh bearer, served until it closes.
    package func run<C: Clock>(_ link: SessionLink<C>) async throws -> String where C.Duration == Duration {
        let bearer = try await connect()
        defer { bearer.close() }
        try await runSession(over: bearer, link)
        return "The sensor closed the link."
    }

    package func sentence(for error: any Error) -> String { Self.sentence(for: error) }

    /// One sentence for a failure, for `.disconnected(reason:)`: a GATT client's error says the sensor stopped
    /// answering, with the socket's own sentence where the link failed under it.
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
