import Glibc
import SystemPackage

/// A listening `AF_UNIX` `SOCK_STREAM` socket whose file only its owner may use (mode 0600).
///
/// A socket file left by a listener that is gone (its process killed) is replaced; one that a live listener still
/// answers on is not: the initializer throws ``SocketError/Code/busy``, so two listeners never steal each other's path.
public final class UnixStreamListener: Sendable {
    public let path: String
    private let socket: SocketDescriptor
    private let file: SocketFile?

    /// Binds and listens at `path`, with the socket file's mode set to `mode` before any peer can connect.
    public init(path: String, mode: mode_t = 0o600) throws {
        self.path = path
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw SocketError(.system, "\(path) exists and is not a socket.")
            }
            if let live = try? UnixStreamConnection.connect(path: path) {
                live.close()
                throw SocketError(.busy, "Another process is already listening at \(path).")
            }
            Sys.unlink(path)
        }
        socket = try .listeningUnix(type: Sys.stream, path: path, mode: mode)
        file = SocketFile(path)
    }

    /// Waits for the next peer.
    public func accept() async throws -> UnixStreamConnection {
        while true {
            let accepted: Result<Int32, Errno>
            do throws(Errno) { accepted = .success(try Sys.accept(socket.rawValue)) } catch {
                accepted = .failure(error)
            }
            switch accepted {
            case .success(let fd):
                do { return try UnixStreamConnection(taking: fd, peer: "unix:\(path)") } catch {
                    throw SocketError(.system, "Preparing a Unix socket failed: \(error).", errno: error)
                }
            case .failure(.resourceTemporarilyUnavailable):
                _ = try await socket.wait(for: Int16(POLLIN))
            case .failure(let error):
                throw SocketError(.system, "Accepting a connection at \(path) failed: \(error).", errno: error)
            }
        }
    }

    /// Stops listening and removes the socket file, once, and only while it is still this listener's.
    public func close() {
        if socket.shutdown() { file?.remove() }
    }
}
