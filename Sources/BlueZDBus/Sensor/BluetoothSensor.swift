import BlueZTransport
import BluetoothLE
import FitnessSensors
import Foundation
import Synchronization

/// A `ble:` sensor that takes the process's Bluetooth backend (``BluetoothBackend/current()``) when started: a
/// ``DBusSensor`` where bluetoothd runs, else the raw L2CAP ``BLESensor``. What ``makeBluetoothSensor`` returns,
/// so a paired sensor reaches a live workout without its caller deciding (or blocking to ask the bus).
///
/// It is a ``ControllableSensor`` for what it wraps: either path's sensor controls a fitness machine (through
/// bluetoothd, with `WriteValue` requests and the control point's indications).
public final class BluetoothSensor: ControllableSensor {
    public let identifier: String
    public let name: String
    public let capabilities: SensorCapabilities
    private let make: @Sendable (BluetoothBackend.Kind) throws -> any Sensor
    private let state = Mutex<(sensor: (any Sensor)?, task: Task<Void, Never>?, generation: Int)>((nil, nil, 0))
    private let controlHandler = Mutex<(@Sendable (ControlLinkEvent) -> Void)?>(nil)
    /// The D-Bus sensor the last ``stop()`` stopped, for ``waitUntilReleased()``.
    private let stopped = Mutex<DBusSensor?>(nil)

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
            guard current else { return }
            if let watch = controlHandler.withLock({ $0 }) { Self.watch(sensor, watch) }
            sensor.start(handler)
        }
        state.withLock { $0.task = task }
    }

    public func writeWithResponse(_ bytes: [UInt8], to characteristic: UInt16) async throws {
        switch state.withLock({ $0.sensor }) {
        case let controllable as any ControllableSensor:
            try await controllable.writeWithResponse(bytes, to: characteristic)
        case .some:
            throw BlueZError(.connectionFailed, "\(name) cannot be controlled on this path.")
        case nil:
            throw BlueZError(.connectionFailed, "\(name) is not connected.")
        }
    }

    public func watchControlLink(_ handler: (@Sendable (ControlLinkEvent) -> Void)?) {
        controlHandler.withLock { $0 = handler }
        if let sensor = state.withLock({ $0.sensor }) { Self.watch(sensor, handler) }
    }

    /// Hands the control link's handler to the sensor made; one that cannot be controlled is reported as a link
    /// without a control point.
    private static func watch(_ sensor: any Sensor, _ handler: (@Sendable (ControlLinkEvent) -> Void)?) {
        if let controllable = sensor as? any ControllableSensor {
            controllable.watchControlLink(handler)
        } else {
            handler?(.connected(controlPoint: false))
        }
    }

    public func stop() {
        let (sensor, task) = state.withLock { state in
            defer { state = (nil, nil, state.generation + 1) }
            return (state.sensor, state.task)
        }
        task?.cancel()
        sensor?.stop()
        if let sensor = sensor as? DBusSensor { stopped.withLock { $0 = sensor } }
    }

    /// Returns once what the last ``stop()`` ended is released (through bluetoothd: ``DBusSensor/waitUntilReleased()``; the
    /// raw path's socket is closed as it stops). OpenHealthKit.
    public func waitUntilReleased() async {
        await stopped.withLock { $0 }?.waitUntilReleased()
    }
}

/// Makes a ``Sensor`` for an identifier as `makeSensor(identifier:name:capabilities:options:clock:wallClock:logger:adapter:)`
/// does, with the same options, but reaches a `ble:` sensor through the process's Bluetooth path
/// (``BluetoothBackend``): bluetoothd's D-Bus API where it runs, else a raw L2CAP socket. `unix:` paths stay
/// simulated peripherals. The path is decided when the sensor starts, so making one never blocks. OpenHealthKit.
public func makeBluetoothSensor(
    identifier: String,
    name: String? = nil,
    capabilities: SensorCapabilities? = nil,
    options: BLESensor.Options = BLESensor.Options(),
    clock: any Clock<Duration> = ContinuousClock(),
    wallClock: @escaping @Sendable () -> Date = { Date() },
    adapter: String? = nil
) throws -> any Sensor {
    let address = try SensorAddress(parsing: identifier)
    guard case .bluetooth(let device) = address else {
        return try makeSensor(
            identifier: identifier, name: name, capabilities: capabilities, options: options, clock: clock,
            wallClock: wallClock, adapter: adapter)
    }
    var dbus = DBusSensor.Options()
    dbus.adapter = adapter
    dbus.link = options.link
    let capabilities = capabilities ?? SensorCapabilities.heartRateStrap.union(.powerMeter)
    return BluetoothSensor(
        identifier: address.identifier, name: name ?? address.description, capabilities: capabilities
    ) {
        [dbus] kind in
        switch kind {
        case .dbus:
            DBusSensor(
                address: device, name: name, capabilities: capabilities, options: dbus, clock: clock,
                wallClock: wallClock)
        case .raw:
            try makeSensor(
                identifier: identifier, name: name, capabilities: capabilities, options: options, clock: clock,
                wallClock: wallClock, adapter: adapter)
        }
    }
}
