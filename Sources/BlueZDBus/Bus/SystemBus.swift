import Synchronization

/// The process's one connection to the system bus, opened on first use and again after it was lost.
public enum SystemBus {
    private static let connection = Mutex<BusConnection?>(nil)

    /// The shared system bus connection.
    public static func shared() throws(DBusError) -> BusConnection {
        try connection.withLock { (current: inout BusConnection?) throws(DBusError) -> BusConnection in
            if let current, !current.isClosed { return current }
            let opened = try BusConnection.system()
            current = opened
            return opened
        }
    }
}
