import BlueZTransport
import BluetoothLE
import FitnessSensors
import Foundation
import Synchronization

/// A `ble:` sensor that takes the process's Bluetooth backend (``BluetoothBackend/current()``) when started: a
/// ``DBusSensor`` where bluetoothd runs, else the raw L2CAP ``BLESensor``. What ``makeBluetoothSensor`` returns,
/// so a paired sensor reaches a live workout without its caller deciding (or blocking to ask the bus).
public final class BluetoothSensor: Sensor {
    public let identifier: String
    public let name: String
    public let capabilities: SensorCapabilities
    private let make: @Sendable (BluetoothBackend.Kind) throws -> any Sensor
    private let state = Mutex<(sensor: (any Sensor)?, task: Task<Void, Never>?, generation: Int)>((nil, nil, 0))

    init(
        identifier: String, name: String, capabilities: SensorCapabilities,
        make: @escaping @Sendable (BluetoothBackend.Kind) throws -> any Sensor
    ) {
        self.identifier = identifier
        self.name = name
        self.capabilities = capabilities
        self.make = make
    }

    public var deviceInformation: DeviceInformation {
        state.withLock { $0.sensor?.deviceInformation } ?? DeviceInformation()
    }
    public var malformedNotifications: Int { state.withLock { $0.sensor?.malformedNotifications } ?? 0 }

    public func start(_ handler: @escaping @Sendable (SensorEvent) -> Void) {
        if let running = state.withLock({ $0.sensor }) { return running.start(handler) }
        let generation = state.withLock { state in
            state.generation += 1
            return state.generation
        }
        let task = Task {
            let sensor: any Sensor
            do {
                sensor = try make(try await BluetoothBackend.current().kind)
            } catch {
                handler(.connection(.disconnected(reason: "\(error)"), at: Date()))
                return
            }
            let current = state.withLock { state -> Bool in
                guard state.generation == generation, !Task.isCancelled else { return false }
                state.sensor = sensor
                return true
            }
            if current { sensor.start(handler) }
        }
        state.withLock { $0.task = task }
    }

    public func stop() {
        let (sensor, task) = state.withLock { state in
            defer { state = (nil, nil, state.generation + 1) }
            return (state.sensor, state.task)
        }
        task?.cancel()
        sensor?.stop()
    }
}

/// Makes a ``Sensor`` for an identifier as ``makeSensor(identifier:name:capabilities:options:clock:wallClock:logger:adapter:)``
/// does, but a `ble:` one through bluetoothd when it runs (``BluetoothBackend``): `unix:` paths stay simulated
/// peripherals. OpenHealthKit.
public func makeBluetoothSensor(
    identifier: String, name: String? = nil, capabilities: SensorCapabilities? = nil,
    tap: (any NotificationTap)? = nil
) throws -> any Sensor {
    let address = try SensorAddress(parsing: identifier)
    var raw = BLESensor.Options()
    raw.tap = tap
    guard case .bluetooth(let device) = address else {
        return try makeSensor(identifier: identifier, name: name, capabilities: capabilities, options: raw)
    }
    var options = DBusSensor.Options()
    options.tap = tap
    let capabilities = capabilities ?? SensorCapabilities.heartRateStrap.union(.powerMeter)
    return BluetoothSensor(
        identifier: address.identifier, name: name ?? address.description, capabilities: capabilities
    ) {
        [raw, options] kind in
        switch kind {
        case .dbus: DBusSensor(address: device, name: name, capabilities: capabilities, options: options)
        case .raw: try makeSensor(identifier: identifier, name: name, capabilities: capabilities, options: raw)
        }
    }
}
