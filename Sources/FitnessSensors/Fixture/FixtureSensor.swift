import Foundation
import Synchronization

/// A sensor from a fixture: it is fed the raw bytes recorded from a strap or power meter and decodes them
/// exactly as a live sensor does, through ``SensorPayload`` and a ``SensorReadingInterpreter``.
///
/// A replayer (see `WorkoutReplay` in OpenHealthKit) reads the fixture and calls ``deliver(_:characteristic:at:)``
/// and ``deliver(_:at:)`` in file order; the sensor pushes the resulting ``SensorEvent``s to its handler, on the
/// caller's thread. A notification that does not decode is counted (``malformedNotifications``) and skipped, as
/// a live sensor logs and skips it. A disconnection resets the revolution counters, as a reconnect does live. Its
/// events leave through a ``SensorOutlet``, so `start` and `stop` mean what they mean for a live sensor.
public final class FixtureSensor: Sensor {
    public let identifier: String
    public let name: String
    public let capabilities: SensorCapabilities
    public let deviceInformation: DeviceInformation

    private struct State {
        var interpreter: SensorReadingInterpreter
        var malformed = 0
        var lastProblem: String?
    }

    private let state: Mutex<State>
    private let outlet = SensorOutlet()
    /// When the recording started: arrival times for the rate calculators count from here.
    private let origin: Date

    /// A sensor described by a fixture header.
    public init(
        _ description: FixtureHeader.SensorDescription, origin: Date,
        wheelCircumference: Double = WheelSpeedCalculator.defaultWheelCircumference
    ) {
        identifier = "fixture:" + description.id
        name = description.name
        capabilities = SensorCapabilities(names: description.capabilities) ?? []
        deviceInformation = description.deviceInformation?.deviceInformation ?? DeviceInformation()
        self.origin = origin
        state = Mutex(State(interpreter: SensorReadingInterpreter(wheelCircumference: wheelCircumference)))
    }

    public func start(_ handler: @escaping @Sendable (SensorEvent) -> Void) {
        outlet.start(handler)
    }

    public func start(_ handler: @escaping @Sendable (SensorEvent) -> Void, backPressure: SensorBackPressure) {
        outlet.start(handler, backPressure: backPressure)
    }

    public func stop() {
        outlet.stop()
    }

    /// Returns once the handler's owner has caught up: a replay awaits it after each notification, so a replay
    /// faster than the store waits for the store (``SensorOutlet/waitForDemand()``). OpenHealthKit.
    nonisolated(nonsending) public func waitForDemand() async {
        await outlet.waitForDemand()
    }

    /// Notifications that did not decode and were skipped.
    public var malformedNotifications: Int { state.withLock { $0.malformed } }

    /// Why the last malformed notification did not decode.
    public var lastMalformedReason: String? { state.withLock { $0.lastProblem } }

    /// Decodes bytes of `characteristic` that arrived at `date` and pushes the readings they yield, through the same
    /// path as a live sensor (``SensorReadingInterpreter/readings(fromValue:of:at:)``).
    ///
    /// - Returns: The number of readings pushed.
    @discardableResult
    public func deliver(_ bytes: [UInt8], characteristic: UInt16, at date: Date) -> Int {
        let arrival = date.timeIntervalSince(origin)
        let readings = state.withLock { state -> [SensorReadingValue] in
            do { return try state.interpreter.readings(fromValue: bytes, of: characteristic, at: arrival) } catch {
                state.malformed += 1
                state.lastProblem = "0x\(Hex.uuid(characteristic)) [\(Hex.string(bytes))]: \(error)"
                return []
            }
        }
        var pushed = 0
        for reading in readings where outlet.send(.reading(reading, at: date)) { pushed += 1 }
        return pushed
    }

    /// Pushes a connection change; a disconnection forgets the revolution counters.
    public func deliver(_ connection: SensorConnectionState, at date: Date) {
        if case .disconnected = connection { state.withLock { $0.interpreter.reset() } }
        outlet.send(.connection(connection, at: date))
    }
}
