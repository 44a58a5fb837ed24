import Glibc
import SystemPackage

/// A listening `AF_UNIX` `SOCK_SEQPACKET` socket, where a simulated peripheral waits for centrals
/// the way a real one advertises.
public final class UnixListener: Sendable {
    public let path: String
    private let socket: SocketDescriptor
    private let file: SocketFile?

    /// Binds and listens at `path`, replacing a stale socket file left by an earlier run.
    public init(path: String) throws {
        self.path = path
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK { Sys.unlink(path) }
        socket = try .listeningUnix(type: Sys.seqPacket, path: path)
        file = SocketFile(path)
    }

    /// Waits for the next connection (a simulated peripheral's next central) and returns its socket.
    public func accept() async throws -> SocketDescriptor {
        while true {
            switch acceptNow() {
            case .success(let fd):
                return try SocketDescriptor(taking: fd)
            case .failure(.resourceTemporarilyUnavailable):
                _ = try await socket.wait(for: Int16(POLLIN))
            case .failure(let error):
                throw SocketError(.system, "Accepting a connection at \(path) failed: \(error).", errno: error)
            }
        }
    }

    private func acceptNow() -> Result<Int32, Errno> {
        do throws(Errno) { return .success(try Sys.accept(socket.rawValue)) } catch { return .failure(error) }
    }

    /// Stops listening and removes the socket file, once, and only while it is still this listener's.
    public func close() {
        if socket.shutdown() { file?.remove() }
    }
}

/// The socket file a listener bound (its device and inode): what ``remove()`` unlinks only while the path still names
/// it, so a listener closed late never removes the file of another that has since taken its path.
struct SocketFile: Sendable {
    let path: String
    let device: UInt
    let inode: UInt

    init?(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        (self.path, device, inode) = (path, UInt(info.st_dev), UInt(info.st_ino))
    }

    func remove() {
        guard let now = SocketFile(path), now.device == device, now.inode == inode else { return }
        Sys.unlink(path)
    }
}

extension SocketDescriptor {
    /// An `AF_UNIX` socket of `type` bound to `path` and listening; with `mode`, the socket file's mode is set
    /// before any peer can connect. What is at `path` is the caller's to clear first.
    package static func listeningUnix(type: Int32, path: String, mode: mode_t? = nil) throws -> SocketDescriptor {
        let fd: Int32
        do { fd = try Sys.socket(AF_UNIX, type, 0) } catch {
            throw SocketError(.system, "Opening a Unix socket failed: \(error).", errno: error)
        }
        let socket: SocketDescriptor
        do {
            socket = try SocketDescriptor(taking: fd)
        } catch {
            throw SocketError(.system, "Preparing a Unix socket failed: \(error).", errno: error)
        }
        do {
            try Sys.bind(fd, unixPath: path)
            if let mode { try Sys.chmod(path, mode) }
            try Sys.listen(fd, backlog: 8)
        } catch {
            throw SocketError(.system, "Cannot listen at \(path): \(error).", errno: error)
        }
        return socket
    }
}
