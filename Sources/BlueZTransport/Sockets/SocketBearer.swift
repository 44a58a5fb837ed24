import BluetoothLE
import Glibc
import SystemPackage

/// An ``ATTBearer`` over any `SOCK_SEQPACKET` socket: an L2CAP LE socket on the ATT channel, or an
/// `AF_UNIX` socket to a simulated peripheral. One ATT PDU per message, as on the air.
///
/// `receive()` waits in `poll()` and reads with `MSG_DONTWAIT` (a blocking `recv` on an L2CAP
/// socket can stall sends on some kernels); it throws ``BlueZError/Code/linkLost`` when the link
/// goes (an error such as ECONNRESET, ENOTCONN or ETIMEDOUT, or a hang-up) and
/// ``BlueZError/Code/closed`` after ``close()``. A zero-length message carries no ATT PDU and is
/// skipped. Cancelling a `receive()` closes the bearer.
///
/// Core 5.3 Vol 3 Part F §3.2.11 (ATT bearer) and Part A §2.1 (fixed channel 0x0004).
public final class SocketBearer: ATTBearer {
    /// The socket.
    public let socket: SocketDescriptor
    /// Who is at the other end, for messages (`AA:BB:CC:DD:EE:FF`, `unix:/path`).
    public let peer: String
    /// Raises the link's security one step (an L2CAP LE socket: `BT_SECURITY` medium, which makes
    /// the kernel pair or encrypt), returning once the link may carry requests again; `nil` where
    /// the link cannot be secured (`AF_UNIX`).
    public let securityUpgrade: (@Sendable () async throws -> Void)?

    /// Takes ownership of a connected `SOCK_SEQPACKET` descriptor.
    public init(
        taking fd: Int32, peer: String, securityUpgrade: (@Sendable () async throws -> Void)? = nil
    ) throws(Errno) {
        socket = try SocketDescriptor(taking: fd)
        self.peer = peer
        self.securityUpgrade = securityUpgrade
    }

    public init(socket: SocketDescriptor, peer: String, securityUpgrade: (@Sendable () async throws -> Void)? = nil) {
        self.socket = socket
        self.peer = peer
        self.securityUpgrade = securityUpgrade
    }

    public func send(_ pdu: [UInt8]) async throws {
        try await socket.sendMessage(pdu)
    }

    public func receive() async throws -> [UInt8] {
        while true {
            let message: [UInt8]
            do {
                message = try await socket.nextMessage()
            } catch let error as BlueZError where error.code == .closed && Task.isCancelled {
                socket.shutdown()
                throw CancellationError()
            }
            if !message.isEmpty { return message }
        }
    }

    /// Shuts the link down; the peer sees it end, and waiting receives throw.
    public func close() {
        socket.shutdown()
    }

    /// A connected pair of `AF_UNIX` `SOCK_SEQPACKET` bearers: message boundaries as on L2CAP.
    /// Closing one end is how tests simulate a link loss.
    public static func pair() throws -> (SocketBearer, SocketBearer) {
        let (a, b) = try Sys.socketpair(AF_UNIX, Sys.seqPacket)
        let first: SocketBearer
        do { first = try SocketBearer(taking: a, peer: "socketpair") } catch {
            Sys.close(b)
            throw error
        }
        return (first, try SocketBearer(taking: b, peer: "socketpair"))
    }

    /// Connects an `AF_UNIX` `SOCK_SEQPACKET` socket to a simulated peripheral listening at `path`.
    public static func connect(unixPath path: String) throws -> SocketBearer {
        let peer = "unix:\(path)"
        let fd: Int32
        do { fd = try Sys.socket(AF_UNIX, Sys.seqPacket, 0) } catch {
            throw BlueZError(.system, "Opening a Unix socket failed: \(error).", errno: error)
        }
        do {
            try Sys.connect(fd, unixPath: path)
        } catch {
            Sys.close(fd)
            throw BlueZError.connecting(to: peer, error)
        }
        return try SocketBearer(taking: fd, peer: peer)
    }
}

extension UnixListener {
    /// Waits for the next central of a simulated peripheral and returns its ATT bearer.
    public func acceptBearer() async throws -> SocketBearer {
        SocketBearer(socket: try await accept(), peer: "unix:\(path)")
    }
}
