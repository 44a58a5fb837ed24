import CUdev
import Glibc
import Synchronization

/// An adapter appearing or disappearing.
public enum AdapterEvent: Hashable, Sendable {
    case added(BluetoothAdapter)
    case removed(name: String)

    /// Interprets a udev event: adapters only (not links), `add` and `remove` only.
    static func from(action: String, sysname: String, devtype: String?, adapter: () -> BluetoothAdapter?) -> AdapterEvent? {
        guard BluetoothAdapter.isAdapter(sysname: sysname, devtype: devtype) else { return nil }
        switch action {
        case "add": return adapter().map(AdapterEvent.added)
        case "remove": return .removed(name: sysname)
        default: return nil
        }
    }
}

/// Watches Bluetooth adapters come and go (USB dongles plugged in, `rfkill`, driver reloads)
/// through a udev monitor: a netlink socket filtered to `bluetooth`/`host`, polled without blocking
/// a Swift concurrency thread.
public final class AdapterMonitor: Sendable {
    private struct Handles: @unchecked Sendable {
        var udev: OpaquePointer
        var monitor: OpaquePointer
    }

    private let handles: Mutex<Handles>
    private let socket: SocketDescriptor

    /// Starts listening for udev events.
    public init() throws {
        guard let udev = udev_new() else { throw BlueZError(.system, "libudev could not be initialised.") }
        guard let monitor = udev_monitor_new_from_netlink(udev, "udev") else {
            udev_unref(udev)
            throw BlueZError(.system, "libudev could not open a monitor (is udevd running?).")
        }
        udev_monitor_filter_add_match_subsystem_devtype(monitor, "bluetooth", "host")
        guard udev_monitor_enable_receiving(monitor) >= 0 else {
            udev_monitor_unref(monitor)
            udev_unref(udev)
            throw BlueZError(.system, "libudev could not start receiving events.")
        }
        let fd = dup(udev_monitor_get_fd(monitor))
        do {
            socket = try SocketDescriptor(taking: fd)
        } catch {
            udev_monitor_unref(monitor)
            udev_unref(udev)
            throw BlueZError(.system, "Watching udev failed: \(error).", errno: error)
        }
        handles = Mutex(Handles(udev: udev, monitor: monitor))
    }

    deinit {
        handles.withLock {
            udev_monitor_unref($0.monitor)
            udev_unref($0.udev)
        }
    }

    /// The next adapter event; waits as long as it takes. Cancelling the task ends the monitor.
    public func next() async throws -> AdapterEvent {
        while true {
            if let event = receive() { return event }
            _ = try await socket.wait(for: Int16(POLLIN))
        }
    }

    /// Stops waiting.
    public func close() { socket.interrupt() }

    private func receive() -> AdapterEvent? {
        handles.withLock { handles in
            while let device = udev_monitor_receive_device(handles.monitor) {
                defer { udev_device_unref(device) }
                guard let action = BluetoothAdapters.string(udev_device_get_action(device)),
                      let sysname = BluetoothAdapters.string(udev_device_get_sysname(device)) else { continue }
                let event = AdapterEvent.from(action: action, sysname: sysname,
                                              devtype: BluetoothAdapters.string(udev_device_get_devtype(device))) {
                    BluetoothAdapters.adapter(from: device)
                }
                if let event { return event }
            }
            return nil
        }
    }
}
