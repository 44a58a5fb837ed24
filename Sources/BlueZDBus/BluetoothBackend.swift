import Foundation
import Synchronization

/// Which way this process reaches Bluetooth: through bluetoothd's D-Bus API, or around it with raw sockets.
///
/// D-Bus whenever bluetoothd is running (`org.bluez` has an owner on the system bus): it scans without
/// capabilities, shares a sensor bluetoothd already holds, and pairs through bluetoothd. The raw path (HCI scan
/// commands, an L2CAP ATT socket) only where no bluetoothd runs. `OPENHEALTHKIT_BLUETOOTH=dbus` or `=raw` forces
/// either. OpenHealthKit.
public struct BluetoothBackend: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case dbus, raw
    }

    public var kind: Kind
    /// Why this one, as a sentence's clause: "bluetoothd owns org.bluez on the system bus".
    public var reason: String

    public init(kind: Kind, reason: String) {
        self.kind = kind
        self.reason = reason
    }

    /// The variable that forces a backend: `dbus` or `raw`.
    public static let environmentVariable = "OPENHEALTHKIT_BLUETOOTH"

    public var description: String {
        switch kind {
        case .dbus: "bluetoothd's D-Bus API (\(reason))"
        case .raw: "the kernel's sockets, management and L2CAP (\(reason))"
        }
    }

    /// Decides from the environment, else by asking the bus whether `org.bluez` has an owner.
    ///
    /// - Throws: ``BlueZError/Code/invalidAddress``-free: only a `OPENHEALTHKIT_BLUETOOTH` that is neither `dbus`
    ///   nor `raw` fails (as `BluetoothBackendError`).
    public static func resolve(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        bus: @Sendable () throws -> BusConnection = { try SystemBus.shared() }
    ) async throws(BluetoothBackendError) -> BluetoothBackend {
        if let forced = environment[environmentVariable], !forced.isEmpty {
            guard let kind = Kind(rawValue: forced.lowercased()) else {
                throw BluetoothBackendError(
                    message:
                        "\(environmentVariable) must be 'dbus' or 'raw', not '\(forced)'; unset it to choose by whether bluetoothd runs."
                )
            }
            return BluetoothBackend(kind: kind, reason: "\(environmentVariable)=\(kind.rawValue)")
        }
        do {
            let reply = try await bus().call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                "NameHasOwner", [.string(BlueZ.service)], timeout: .seconds(2))
            if reply.first?.bool == true {
                return BluetoothBackend(kind: .dbus, reason: "bluetoothd owns org.bluez on the system bus")
            }
            return BluetoothBackend(kind: .raw, reason: "no bluetoothd on the system bus (nothing owns org.bluez)")
        } catch {
            return BluetoothBackend(kind: .raw, reason: "no system bus to find bluetoothd on")
        }
    }

    private static let cached = Mutex<Task<Result<BluetoothBackend, BluetoothBackendError>, Never>?>(nil)

    /// The process's backend, decided once (``resolve(environment:bus:)``) and kept.
    public static func current() async throws(BluetoothBackendError) -> BluetoothBackend {
        let task = cached.withLock { task in
            if let task { return task }
            let new = Task { () -> Result<BluetoothBackend, BluetoothBackendError> in
                do throws(BluetoothBackendError) { return .success(try await resolve()) } catch {
                    return .failure(error)
                }
            }
            task = new
            return new
        }
        return try await task.value.get()
    }
}

/// `OPENHEALTHKIT_BLUETOOTH` holds something other than `dbus` or `raw`.
public struct BluetoothBackendError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
