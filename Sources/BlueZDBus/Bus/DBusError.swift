import Glibc

/// A D-Bus call that failed: the error the other side replied with (`org.bluez.Error.Failed`, …), or what went
/// wrong on this side (no bus, a message sd-bus could not read or write, a timeout).
public struct DBusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The D-Bus error name (`org.bluez.Error.NotReady`, `org.freedesktop.DBus.Error.NoReply`, …), or one of
    /// this side's (`org.openhealthkit.Error.Malformed`, `.Disconnected`).
    public var name: String
    /// The message that came with it, as sent.
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { message.isEmpty ? name : "\(message) (\(name))" }

    /// Whether the other side answered with this error name.
    public func `is`(_ name: String) -> Bool { self.name == name }

    static let malformedName = "org.openhealthkit.Error.Malformed"
    static let disconnectedName = "org.openhealthkit.Error.Disconnected"
    static let cancelledName = "org.openhealthkit.Error.Cancelled"

    static func malformed(_ what: String, errno: Int32? = nil) -> DBusError {
        DBusError(name: malformedName, message: errno.map { "\(what): \(String(cString: strerror($0)))" } ?? what)
    }

    static func system(_ what: String, _ errno: Int32) -> DBusError {
        DBusError(name: "org.openhealthkit.Error.System", message: "\(what): \(String(cString: strerror(errno)))")
    }

    static let disconnected = DBusError(name: disconnectedName, message: "The connection to the system bus was lost")

    /// The calling task was cancelled while it waited for the reply (the call itself was sent).
    public static let cancelled = DBusError(name: cancelledName, message: "The wait for the reply was cancelled")
}
