import BluetoothLE
import FitnessSensors
import Synchronization

/// A sensor's control link, whatever its transport: the current session's connection and the characteristics it
/// can write, and the one watcher of ``ControlLinkEvent``s. Both Bluetooth paths keep theirs in one of these (the
/// raw path's GATT client and value handles, bluetoothd's client and object paths), so the events a controller
/// hears are the same: `.connected` as a session comes up (and at once to a watcher set while it is up),
/// `.disconnected` as it ends, and the control point's and status's values as they are.
package final class ControlLink<Connection: Sendable, Handle: Sendable>: Sendable {
    private struct State {
        var connection: Connection?
        /// Where the current session writes each characteristic, by 16-bit UUID (those subscribed to).
        var handles: [UInt16: Handle] = [:]
        var watcher: (@Sendable (ControlLinkEvent) -> Void)?
        var hasControlPoint: Bool { handles[GATTAssignedNumbers.Characteristic.fitnessMachineControlPoint] != nil }
    }

    private let state = Mutex(State())

    package init() {}

    /// Sets (or removes) the watcher; it hears `.connected` at once when a session is up.
    package func watch(_ handler: (@Sendable (ControlLinkEvent) -> Void)?) {
        let current = state.withLock { state -> ControlLinkEvent? in
            state.watcher = handler
            return state.connection == nil ? nil : .connected(controlPoint: state.hasControlPoint)
        }
        if let current { handler?(current) }
    }

    /// A session is set up: `connection` can write `handles`.
    package func up(_ connection: Connection, handles: [UInt16: Handle]) {
        let (watcher, controlPoint) = state.withLock { state in
            state.connection = connection
            state.handles = handles
            return (state.watcher, state.hasControlPoint)
        }
        watcher?(.connected(controlPoint: controlPoint))
    }

    /// The session ended; the watcher hears it once.
    package func down() {
        let watcher = state.withLock { state -> (@Sendable (ControlLinkEvent) -> Void)? in
            let wasUp = state.connection != nil
            state.connection = nil
            state.handles = [:]
            return wasUp ? state.watcher : nil
        }
        watcher?(.disconnected)
    }

    /// Hands a control point or status value to the watcher.
    package func value(_ characteristic: UInt16, _ bytes: [UInt8]) {
        let watcher = state.withLock { $0.watcher }
        watcher?(.value(characteristic: characteristic, bytes: bytes))
    }

    /// Where to write `characteristic` in the current session.
    ///
    /// - Throws: ``BlueZError`` saying, in one sentence naming `sensor`, that it is not connected or does not offer
    ///   the characteristic.
    package func target(for characteristic: UInt16, of sensor: String) throws -> (Connection, Handle) {
        let (connection, handle) = state.withLock { ($0.connection, $0.handles[characteristic]) }
        guard let connection else { throw BlueZError(.connectionFailed, "\(sensor) is not connected.") }
        guard let handle else {
            throw BlueZError(
                .connectionFailed,
                "\(sensor) offers no characteristic 0x\(String(characteristic, radix: 16, uppercase: true)).")
        }
        return (connection, handle)
    }
}

extension ControlLinkEvent {
    /// The characteristics whose values a control link's watcher hears as they are (``ControlLinkEvent/value(characteristic:bytes:)``).
    package static let characteristics: Set<UInt16> = [
        GATTAssignedNumbers.Characteristic.fitnessMachineControlPoint,
        GATTAssignedNumbers.Characteristic.fitnessMachineStatus,
    ]
}
