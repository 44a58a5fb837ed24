import FitnessSensors
import Foundation

/// One connection to a sensor, as a transport makes it (the raw path over L2CAP and GATT, the D-Bus path through
/// bluetoothd); the ``SensorEngine`` runs one after another while the sensor is started.
package protocol SensorSession: Sendable {
    /// Connects, reads and subscribes, calls ``SessionLink/connected()`` once up, hands each value to the link,
    /// and serves the connection until it ends. Returns the sentence for an ending the transport heard of; throws
    /// why it failed otherwise.
    func run<C: Clock>(_ link: SessionLink<C>) async throws -> String where C.Duration == Duration

    /// One sentence for a failure ``run(_:)`` threw, for `.disconnected(reason:)`.
    func sentence(for error: any Error) -> String
}

extension SensorSession {
    /// A ``BlueZError``'s message; any other error as it describes itself.
    package func sentence(for error: any Error) -> String {
        (error as? BlueZError)?.message ?? "The connection failed: \(error)."
    }
}

/// A Bluetooth sensor that a ``SensorEngine`` keeps connected: what it reports and how it is stopped and controlled
/// come from its engine, the same on either transport. OpenHealthKit.
public protocol EngineSensor: ControllableSensor {
    /// The engine under this sensor.
    var engine: SensorEngine { get }
}

extension EngineSensor {
    public var identifier: String { engine.identifier }
    public var name: String { engine.name }
    public var capabilities: SensorCapabilities { engine.capabilities }
    public var deviceInformation: DeviceInformation { engine.information.withLock { $0 } }

    /// Notifications that did not decode, counted (and logged) and skipped.
    public var malformedNotifications: Int { engine.malformedNotifications }

    public func stop() { engine.stop() }

    /// Writes with response on the current connection (an ATT Write Request on the raw path, `WriteValue` with
    /// type `request` through bluetoothd) and returns once the sensor answered.
    ///
    /// - Throws: ``BlueZError`` when the sensor is not connected or does not offer the characteristic for writing;
    ///   the transport's errors for a refused write or a timeout.
    public func writeWithResponse(_ bytes: [UInt8], to characteristic: UInt16) async throws {
        try await engine.control.write(bytes, to: characteristic, name: name)
    }

    public func watchControlLink(_ handler: (@Sendable (ControlLinkEvent) -> Void)?) {
        engine.control.watch(handler)
    }
}

/// Tuning both Bluetooth transports share, declared once; each transport's options hold one and read its fields
/// through (`options.staleAfter`). OpenHealthKit.
public struct SensorLinkOptions: Sendable {
    /// Silence after which a connected sensor is reported stale.
    public var staleAfter: Duration = .seconds(3)
    /// First reconnection delay; it doubles per failed attempt up to ``maximumBackoff``.
    public var initialBackoff: Duration = .milliseconds(250)
    public var maximumBackoff: Duration = .seconds(30)
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

/// Options that hold the shared ``SensorLinkOptions`` and show its fields as their own. OpenHealthKit.
@dynamicMemberLookup
public protocol SensorLinkTuning {
    /// The tuning both transports share.
    var link: SensorLinkOptions { get set }
}

extension SensorLinkTuning {
    public subscript<Value>(dynamicMember field: WritableKeyPath<SensorLinkOptions, Value>) -> Value {
        get { link[keyPath: field] }
        set { link[keyPath: field] = newValue }
    }
}
