import Foundation

/// What a sensor can measure, so a workout knows which quantities it can collect from it.
public struct SensorCapabilities: OptionSet, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let heartRate = SensorCapabilities(rawValue: 1 << 0)
    public static let rrIntervals = SensorCapabilities(rawValue: 1 << 1)
    public static let power = SensorCapabilities(rawValue: 1 << 2)
    public static let cadence = SensorCapabilities(rawValue: 1 << 3)
    public static let speed = SensorCapabilities(rawValue: 1 << 4)
    public static let distance = SensorCapabilities(rawValue: 1 << 5)
    public static let energy = SensorCapabilities(rawValue: 1 << 6)
    public static let battery = SensorCapabilities(rawValue: 1 << 7)
    /// Step cadence and stride length (a foot pod).
    public static let steps = SensorCapabilities(rawValue: 1 << 8)
    /// A fitness machine whose control point accepts targets (OpenHealthKit: trainer control).
    public static let control = SensorCapabilities(rawValue: 1 << 9)

    /// A heart-rate strap: rate, RR intervals, energy expended, battery.
    public static let heartRateStrap: SensorCapabilities = [.heartRate, .rrIntervals, .energy, .battery]
    /// A power meter with crank and wheel data.
    public static let powerMeter: SensorCapabilities = [.power, .cadence, .speed, .distance, .energy, .battery]
    /// A foot pod: speed, step cadence, stride length, distance.
    public static let footPod: SensorCapabilities = [.speed, .steps, .distance, .battery]
    /// A fitness machine (trainer, treadmill, rower): what its data characteristic carries, and control.
    public static let fitnessMachine: SensorCapabilities = [.power, .cadence, .speed, .distance, .energy, .control]
}

/// Whether a sensor is delivering.
public enum SensorConnectionState: Hashable, Sendable {
    case connecting
    case connected
    /// The link is gone; the reason is one sentence when known.
    case disconnected(reason: String?)
}

/// One thing a sensor reports, stamped with the wall-clock time it arrived.
public struct SensorEvent: Sendable {
    public enum Kind: Sendable {
        case reading(SensorReadingValue)
        case connection(SensorConnectionState)
    }

    public var timestamp: Date
    public var kind: Kind

    public init(timestamp: Date, kind: Kind) {
        self.timestamp = timestamp
        self.kind = kind
    }

    public static func reading(_ value: SensorReadingValue, at timestamp: Date) -> SensorEvent {
        SensorEvent(timestamp: timestamp, kind: .reading(value))
    }

    public static func connection(_ state: SensorConnectionState, at timestamp: Date) -> SensorEvent {
        SensorEvent(timestamp: timestamp, kind: .connection(state))
    }
}

/// A source of timestamped readings: a BLE strap or power meter, a fixture being replayed, a script in a test.
///
/// A sensor pushes its events to one handler, in order, from whatever thread it runs on, between `start` and
/// `stop`. It never repeats an old value to fill silence: a sensor that goes quiet or disconnects simply sends
/// nothing (and a `.disconnected` event when it knows), so a workout records a gap, not a frozen value.
public protocol Sensor: AnyObject, Sendable {
    /// A stable identifier: `ble:AA:BB:CC:DD:EE:FF`, `unix:/tmp/strap.sock`, `fixture:strap`, …
    var identifier: String { get }
    /// A name for people: the advertised name or the fixture's.
    var name: String { get }
    /// What the sensor measures.
    var capabilities: SensorCapabilities { get }
    /// Manufacturer, model and versions, as far as known.
    var deviceInformation: DeviceInformation { get }
    /// Begins delivering events to `handler`. Calling it again replaces the handler.
    func start(_ handler: @escaping @Sendable (SensorEvent) -> Void)
    /// Begins delivering events to `handler`, whose owner raises `backPressure` when it falls behind: a sensor
    /// whose producer can wait (a fixture being replayed, a script) waits for it after sending, outside its lock. A
    /// sensor that cannot wait ignores it (the default). OpenHealthKit.
    func start(_ handler: @escaping @Sendable (SensorEvent) -> Void, backPressure: SensorBackPressure)
    /// Stops delivering events; no event reaches the handler after this returns.
    func stop()
    /// Notifications that did not decode, counted and skipped (0 unless the sensor counts them).
    var malformedNotifications: Int { get }
}

extension Sensor {
    public var malformedNotifications: Int { 0 }

    public func start(_ handler: @escaping @Sendable (SensorEvent) -> Void, backPressure: SensorBackPressure) {
        start(handler)
    }
}
