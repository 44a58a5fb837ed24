import FitnessSensors
import Synchronization

/// What a Bluetooth sensor keeps of its control link, the same on either path (the raw L2CAP ``BLESensor``, and the
/// D-Bus sensor through bluetoothd): how to write to the current connection, whether it offers a Fitness Machine
/// Control Point, and the one watcher of ``ControlLinkEvent``s. A session calls ``up(controlPoint:write:)`` once
/// it is subscribed, ``value(_:_:)`` for each control point or status value, and ``down()`` as it ends.
public final class ControlLinkHub: Sendable {
    /// Writes bytes to a characteristic (a 16-bit assigned number) of the current connection with response.
    public typealias Write = @Sendable (_ bytes: [UInt8], _ characteristic: UInt16) async throws -> Void

    /// The characteristics whose values go to the watcher as they are: the control point and Fitness Machine Status.
    public static let characteristics: Set<UInt16> = [
        GATTAssignedNumbers.Characteristic.fitnessMachineControlPoint,
        GATTAssignedNumbers.Characteristic.fitnessMachineStatus,
    ]

    /// The characteristics read at connection whose values also go to the watcher: the Supported Power Range, so that
    /// a target is kept within what the machine takes.
    public static let reads: Set<UInt16> = [GATTAssignedNumbers.Characteristic.supportedPowerRange]

    private struct State {
        var write: Write?
        var hasControlPoint = false
        var watcher: (@Sendable (ControlLinkEvent) -> Void)?
    }

    private let state = Mutex(State())

    public init() {}

    /// Writes through the current connection. Throws ``BlueZError`` when there is none (`name`: the sensor's), and
    /// whatever the connection's write throws.
    public func write(_ bytes: [UInt8], to characteristic: UInt16, name: String) async throws {
        guard let write = state.withLock({ $0.write }) else {
            throw BlueZError(.connectionFailed, "\(name) is not connected.")
        }
        try await write(bytes, characteristic)
    }

    /// Sets (or removes) the watcher; it hears `.connected` at once when a connection is up.
    public func watch(_ handler: (@Sendable (ControlLinkEvent) -> Void)?) {
        let current = state.withLock { state -> ControlLinkEvent? in
            state.watcher = handler
            return state.write == nil ? nil : .connected(controlPoint: state.hasControlPoint)
        }
        if let current { handler?(current) }
    }

    /// A session is set up and subscribed: `write` reaches its characteristics.
    public func up(controlPoint: Bool, write: @escaping Write) {
        let watcher = state.withLock { state in
            state.write = write
            state.hasControlPoint = controlPoint
            return state.watcher
        }
        watcher?(.connected(controlPoint: controlPoint))
    }

    /// The session ended (the watcher hears it once, and only if one was up).
    public func down() {
        let watcher = state.withLock { state -> (@Sendable (ControlLinkEvent) -> Void)? in
            let wasUp = state.write != nil
            state.write = nil
            state.hasControlPoint = false
            return wasUp ? state.watcher : nil
        }
        watcher?(.disconnected)
    }

    /// A control point or status value, or a read of ``reads``, unchanged, to the watcher.
    public func value(_ characteristic: UInt16, _ bytes: [UInt8]) {
        let watcher = state.withLock { $0.watcher }
        watcher?(.value(characteristic: characteristic, bytes: bytes))
    }
}
