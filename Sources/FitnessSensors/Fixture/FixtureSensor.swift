import Foundation
import Synchronization

/// A sensor from a fixture: it is fed the raw bytes recorded from a strap or power meter and decodes them
/// exactly as a live sensor does, through ``SensorPayload`` and a ``SensorReadingInterpreter``.
///
/// A replayer (see `WorkoutReplay` in OpenHealthKit) reads the fixture and calls ``deliver(_:characteristic:at:)``
/// and ``deliver(_:at:)`` in file order; the sensor pushes the resulting ``SensorEvent``s to its handler, on the
/// caller's thread. A notification that does not decode is counted (``malformedNotifications``) and skipped, as
/// a live sensor logs and skips it. A disconnection resets the revolution counters, as a reconnect does live.
public final class FixtureSensor: Sensor {
    public let identifier: String
    public let name: String
    public let capabilities: SensorCapabilities
    public let deviceInformation: DeviceInformation

    private struct State {
        var handler: SensorHandlerBox?
        var interpreter: SensorReadingInterpreter
        var malformed = 0
        var lastProblem: String?
    }

    private let state: Mutex<State>
    /// When the recording started: arrival times for the rate calculators count from here.
    private let origin: Date

    /// A sensor described by a fixture header.
    public init(_ description: FixtureHeader.SensorDescription, origin: Date,
                wheelCircumference: Double = WheelSpeedCalculator.defaultWheelCircumference) {
        identifier = "fixture:" + description.id
        name = description.name
        capabilities = SensorCapabilities(names: description.capabilities) ?? []
        deviceInformation = description.deviceInformation?.deviceInformation ?? DeviceInformation()
        self.origin = origin
        state = Mutex(State(interpreter: SensorReadingInterpreter(wheelCircumference: wheelCircumference)))
    }

    public func start(_ handler: @escaping @Sendable (SensorEvent) -> Void) {
        let box = SensorHandlerBox(handler)
        state.withLock { $0.handler = box }
    }

    public func stop() {
        state.withLock { $0.handler = nil }
    }

    /// Notifications that did not decode and were skipped.
    public var malformedNotifications: Int { state.withLock { $0.malformed } }

    /// Why the last malformed notification did not decode.
    public var lastMalformedReason: String? { state.withLock { $0.lastProblem } }

    /// Decodes bytes of `characteristic` that arrived at `date` and pushes the readings they yield.
    ///
    /// - Returns: The number of readings pushed.
    @discardableResult
    public func deliver(_ bytes: [UInt8], characteristic: UInt16, at date: Date) -> Int {
        let payload: SensorPayload
        do {
            payload = try SensorPayload.decode(characteristic: characteristic, bytes: bytes)
        } catch {
            state.withLock {
                $0.malformed += 1
                $0.lastProblem = "0x\(Hex.uuid(characteristic)) [\(Hex.string(bytes))]: \(error)"
            }
            return 0
        }
        let arrival = date.timeIntervalSince(origin)
        let (handler, readings) = state.withLock { state in
            (state.handler, state.interpreter.readings(from: payload, at: arrival))
        }
        guard let handler else { return 0 }
        for reading in readings { handler.call(.reading(reading, at: date)) }
        return readings.count
    }

    /// Pushes a connection change; a disconnection forgets the revolution counters.
    public func deliver(_ connection: SensorConnectionState, at date: Date) {
        let handler = state.withLock { state in
            if case .disconnected = connection { state.interpreter.reset() }
            return state.handler
        }
        handler?.call(.connection(connection, at: date))
    }
}
