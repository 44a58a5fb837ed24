/// bluetoothd answered with something other than what its API documents: a reply or signal of the wrong shape, a
/// property of the wrong type. One sentence that names what and where; the caller turns it into a clear error
/// (a scan or a sensor's session ends with it), never a crash.
public struct BlueZReplyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was expected and what came ("GetManagedObjects replied with signature 's', not 'a{oa{sa{sv}}}'").
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { "bluetoothd sent an unexpected reply: \(message)." }
}
