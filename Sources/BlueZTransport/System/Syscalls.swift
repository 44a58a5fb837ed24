import CBlueZ
import Glibc
import SystemPackage

// The choke point for this target's socket and descriptor calls (after swift-nio's SystemCallHelpers and
// swift-system's `valueOrErrno`): they go through `syscall`, which retries EINTR and turns -1 into an
// `Errno`. A few calls elsewhere do not: `hci_get_route` (AdapterSelection reads `errno` itself), the store's
// file checks (StoreLocation), `uname` for the local device (HKDevice) and the CLI's terminal settings.

/// Runs a system call, retrying while it fails with EINTR.
///
/// - Returns: the call's non-negative result.
/// - Throws: `Errno` from `errno` when the call returns -1.
@inline(__always)
func valueOrErrno<Result: FixedWidthInteger>(_ call: () -> Result) throws(Errno) -> Result {
    while true {
        let result = call()
        if result != -1 { return result }
        let error = Errno(rawValue: errno)
        if error == .interrupted { continue }
        throw error
    }
}

enum Sys {
    static let pollRDHUP: Int16 = 0x2000  // POLLRDHUP (needs _GNU_SOURCE in C)
    static let seqPacket = Int32(SOCK_SEQPACKET.rawValue)
    static let stream = Int32(SOCK_STREAM.rawValue)

    static func socket(_ domain: Int32, _ type: Int32, _ proto: Int32) throws(Errno) -> Int32 {
        try valueOrErrno { Glibc.socket(domain, type | Int32(SOCK_CLOEXEC.rawValue), proto) }
    }

    static func socketpair(_ domain: Int32, _ type: Int32) throws(Errno) -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        _ = try valueOrErrno { Glibc.socketpair(domain, type | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) }
        return (fds[0], fds[1])
    }

    static func close(_ fd: Int32) {
        // Linux releases the descriptor even when close fails with EINTR: never retry.
        _ = Glibc.close(fd)
    }

    static func shutdown(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    static func setNonBlocking(_ fd: Int32) throws(Errno) {
        let flags = try valueOrErrno { fcntl(fd, F_GETFL) }
        _ = try valueOrErrno { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// `send(MSG_DONTWAIT | MSG_NOSIGNAL)`: one message, never SIGPIPE.
    static func send(_ fd: Int32, _ bytes: [UInt8]) throws(Errno) -> Int {
        try valueOrErrno {
            bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL)) }
        }
    }

    /// `recv(MSG_DONTWAIT)` of one message into `buffer`.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try valueOrErrno { Glibc.recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT)) }
    }

    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try valueOrErrno { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    static func write(_ fd: Int32, _ bytes: [UInt8]) throws(Errno) -> Int {
        try valueOrErrno { bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } }
    }

    /// Polls; a negative timeout waits forever.
    static func poll(_ fds: inout [pollfd], timeoutMilliseconds: Int32) throws(Errno) -> Int32 {
        let count = nfds_t(fds.count)
        return try valueOrErrno { Glibc.poll(&fds, count, timeoutMilliseconds) }
    }

    static func eventfd() throws(Errno) -> Int32 {
        try valueOrErrno { CBlueZ_eventfd() }
    }

    /// The pending error of a socket (`SO_ERROR`), cleared by reading it.
    static func socketError(_ fd: Int32) -> Errno? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) == 0, value != 0 else { return nil }
        return Errno(rawValue: value)
    }

    /// Connects an AF_UNIX socket to a filesystem path.
    static func connect(_ fd: Int32, unixPath path: String) throws(Errno) {
        var address = try unixAddress(path)
        _ = try valueOrErrno {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
    }

    /// Binds an AF_UNIX socket to a filesystem path.
    static func bind(_ fd: Int32, unixPath path: String) throws(Errno) {
        var address = try unixAddress(path)
        _ = try valueOrErrno {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
    }

    static func listen(_ fd: Int32, backlog: Int32) throws(Errno) {
        _ = try valueOrErrno { Glibc.listen(fd, backlog) }
    }

    static func accept(_ fd: Int32) throws(Errno) -> Int32 {
        let client = try valueOrErrno { Glibc.accept(fd, nil, nil) }
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        return client
    }

    static func chmod(_ path: String, _ mode: mode_t) throws(Errno) {
        _ = try valueOrErrno { Glibc.chmod(path, mode) }
    }

    static func unlink(_ path: String) {
        _ = Glibc.unlink(path)
    }

    private static func unixAddress(_ path: String) throws(Errno) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else { throw Errno.fileNameTooLong }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }
}
