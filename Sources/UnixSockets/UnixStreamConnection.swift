import Glibc
import SystemPackage

/// A connected `AF_UNIX` `SOCK_STREAM` socket: an ordered byte stream to one peer, with no message boundaries.
///
/// Workout mirroring (OpenHealthKit) frames its messages over it. ``read()`` returns whatever bytes have arrived,
/// and an empty array once the peer has closed its end cleanly; it throws ``SocketError/Code/linkLost`` when the
/// connection breaks (ECONNRESET, a peer killed mid-write) and ``SocketError/Code/closed`` after ``close()``.
/// ``write(_:)`` sends every byte, waiting for room when the socket buffer is full, and never raises SIGPIPE.
public final class UnixStreamConnection: Sendable {
    /// The socket.
    public let socket: SocketDescriptor
    /// Who is at the other end, for messages (`unix:/path`).
    public let peer: String

    /// Takes ownership of a connected `SOCK_STREAM` descriptor.
    public init(taking fd: Int32, peer: String) throws(Errno) {
        socket = try SocketDescriptor(taking: fd)
        self.peer = peer
    }

    /// Connects to a ``UnixStreamListener`` at `path`.
    ///
    /// - Throws: ``SocketError/Code/connectionFailed`` when nothing listens there (the file is missing, or a stale
    ///   socket file whose listener is gone: ENOENT, ECONNREFUSED), with the system error underneath.
    public static func connect(path: String) throws -> UnixStreamConnection {
        let peer = "unix:\(path)"
        let fd: Int32
        do { fd = try Sys.socket(AF_UNIX, Sys.stream, 0) } catch {
            throw SocketError(.system, "Opening a Unix socket failed: \(error).", errno: error)
        }
        do {
            try Sys.connect(fd, unixPath: path)
        } catch {
            Sys.close(fd)
            throw SocketError(.connectionFailed, "Nothing is listening at \(path) (\(error)).", errno: error)
        }
        do { return try UnixStreamConnection(taking: fd, peer: peer) } catch {
            throw SocketError(.system, "Preparing a Unix socket failed: \(error).", errno: error)
        }
    }

    /// A connected pair, for tests: what one end writes the other reads.
    public static func pair() throws -> (UnixStreamConnection, UnixStreamConnection) {
        let (a, b) = try Sys.socketpair(AF_UNIX, Sys.stream)
        let first: UnixStreamConnection
        do { first = try UnixStreamConnection(taking: a, peer: "socketpair") } catch {
            Sys.close(b)
            throw error
        }
        return (first, try UnixStreamConnection(taking: b, peer: "socketpair"))
    }

    /// Sends all of `bytes`, in order.
    public func write(_ bytes: [UInt8]) async throws {
        var rest = bytes[...]
        while !rest.isEmpty {
            do throws(Errno) {
                let sent = try Sys.send(socket.rawValue, Array(rest))
                rest = rest.dropFirst(sent)
            } catch .resourceTemporarilyUnavailable {
                _ = try await socket.wait(for: Int16(POLLOUT))
            } catch {
                if socket.wasShutDown { throw SocketError(.closed, "The socket was closed.", errno: error) }
                throw SocketDescriptor.linkError(error)
            }
        }
    }

    /// Waits for bytes and returns those that have arrived; an empty array means the peer closed its end.
    public func read(capacity: Int = 65_536) async throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: capacity)
        while true {
            let result: Result<Int, Errno> = buffer.withUnsafeMutableBytes { raw in
                do throws(Errno) { return .success(try Sys.receive(socket.rawValue, into: raw)) } catch {
                    return .failure(error)
                }
            }
            switch result {
            case .success(let count):
                if count == 0 && socket.wasShutDown { throw SocketError(.closed, "The socket was closed.") }
                return Array(buffer[0 ..< count])
            case .failure(.resourceTemporarilyUnavailable):
                _ = try await socket.wait(for: Int16(POLLIN))
            case .failure(let error):
                if socket.wasShutDown { throw SocketError(.closed, "The socket was closed.", errno: error) }
                throw SocketDescriptor.linkError(error)
            }
        }
    }

    /// Shuts the connection down: the peer reads the end of the stream, and waits here end.
    public func close() {
        socket.shutdown()
    }
}
