import Foundation

/// A sensor driven by its owner: tests and benchmarks send readings and connection changes, which reach the
/// handler synchronously on the caller's thread. Nothing is delivered before `start` or after `stop`.
public final class ScriptedSensor: Sensor {
    public let identifier: String
    public let name: String
    public let capabilities: SensorCapabilities
    public let deviceInformation: DeviceInformation
    private let outlet = SensorOutlet()

    public init(
        identifier: String, name: String, capabilities: SensorCapabilities,
        deviceInformation: DeviceInformation = DeviceInformation()
    ) {
        self.identifier = identifier
        self.name = name
        self.capabilities = capabilities
        self.deviceInformation = deviceInformation
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

    /// Returns once the handler's owner has caught up; a script that sends faster than its consumer takes awaits it
    /// between sends (``SensorOutlet/waitForDemand()``). OpenHealthKit.
    nonisolated(nonsending) public func waitForDemand() async {
        await outlet.waitForDemand()
    }

    /// Whether a handler is attached.
    public var isStarted: Bool { outlet.isStarted }

    /// Delivers an event now; returns false when the sensor is not started (the event is dropped).
    @discardableResult
    public func send(_ event: SensorEvent) -> Bool {
        outlet.send(event)
    }

    @discardableResult
    public func send(_ value: SensorReadingValue, at timestamp: Date) -> Bool {
        send(.reading(value, at: timestamp))
    }
}
