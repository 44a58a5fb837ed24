import SystemPackage

/// Why a socket operation (Unix or Bluetooth) failed, as one sentence that says what is wrong and how to
/// fix it, with the system error underneath.
///
/// An open set of codes, after swift-service-lifecycle's `ServiceGroupError`: new codes can be
/// added without breaking callers that match the known ones.
public struct SocketError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The operation needs a capability the process lacks (CAP_NET_ADMIN, for the management channel).
        public static let permissionDenied = Code(rawValue: "permissionDenied")
        /// Another owner (usually bluetoothd) holds the device or the controller.
        public static let busy = Code(rawValue: "busy")
        /// The peer refused or could not be reached.
        public static let connectionFailed = Code(rawValue: "connectionFailed")
        /// A connection attempt took longer than its timeout.
        public static let timedOut = Code(rawValue: "timedOut")
        /// An established link went away (reset, supervision timeout, peer closed).
        public static let linkLost = Code(rawValue: "linkLost")
        /// The socket was closed by this process.
        public static let closed = Code(rawValue: "closed")
        /// Any other system call failure.
        public static let system = Code(rawValue: "system")

        public var description: String { rawValue }
    }

    public var code: Code
    /// One sentence for people, ending with a full stop.
    public var message: String
    /// The system error underneath, when there is one.
    public var errno: Errno?

    public init(_ code: Code, _ message: String, errno: Errno? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
    }

    public var description: String { message }

    /// The error for a link that broke while in use (a Unix socket's peer gone, or an L2CAP link lost).
    public static func linkLost(_ errno: Errno?) -> SocketError {
        if let errno, errno == .noFunction {
            // Linux passes a disconnection's HCI reason to the socket through bt_to_errno
            // (net/bluetooth/lib.c), which answers ENOSYS for every reason it has no case for; among
            // them the ones that end LE links: 0x22 (LL response timeout), 0x28 (instant passed), 0x3B
            // (unacceptable connection parameters), 0x3D (MIC failure) and 0x3E (failed to be established).
            return SocketError(
                .linkLost,
                "The link to the sensor ended with a reason Linux has no errno for and reports as \(errno), for a dropped link one of 0x3B (connection parameters rejected), 0x3E (the connection failed to be established), 0x22 (link-layer response timeout), 0x28 (instant passed) or 0x3D (MIC failure); the kernel does not say which. If it recurs about a minute after each connection, it is 0x3B: `workout doctor` checks /etc/bluetooth/main.conf for it.",
                errno: errno)
        }
        if let errno {
            return SocketError(.linkLost, "The link to the sensor was lost (\(errno)).", errno: errno)
        }
        return SocketError(.linkLost, "The sensor closed the link.")
    }
}
