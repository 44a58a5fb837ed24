import CUnixSockets
import Glibc
import SystemPackage

// The one choke point for socket system calls in OpenHealthKit (after swift-nio's SystemCallHelpers and
// swift-system's `valueOrErrno`): every libc call on a socket that can fail goes through `valueOrErrno`, which
// retries EINTR and turns -1 into an `Errno`. `BlueZTransport` uses it too (`package` access).

/// Runs a system call, retrying while it fails with EINTR.
///
/// - Returns: the call's non-negative result.
/// - Throws: `Errno` from `errno` when the call returns -1.
@inline(__always)
package func valueOrErrno<Result: FixedWidthInteger>(_ call: () -> Result) throws(Errno) -> Result {
    while true {
        let result = call()
        if result != -1 { return result }
        let error = Errno(rawValue: errno)
        if error == .interrupted { continue }
        throw error
    }
}

package enum Sys {
    package static let pollRDHUP: Int16 = 0x2000  // POLLRDHUP (needs _GNU_SOURCE in C)
    package static let seqPacket = Int32(SOCK_SEQPACKET.rawValue)
    package static let stream = Int32(SOCK_STREAM.rawValue)

    package static func socket(_ domain: Int32, _ type: Int32, _ proto: Int32) throws(Errno) -> Int32 {
        try valueOrErrno { Glibc.socket(domain, type | Int32(SOCK_CLOEXEC.rawValue), proto) }
    }

    package static func socketpair(_ domain: Int32, _ type: Int32) throws(Errno) -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        _ = try valueOrErrno { Glibc.socketpair(domain, type | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) }
        return (fds[0], fds[1])
    }

    package static func close(_ fd: Int32) {
        // Linux releases the descriptor even when close fails with EINTR: never retry.
        _ = Glibc.close(fd)
    }

    package static func shutdown(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    package static func setNonBlocking(_ fd: Int32) throws(Errno) {
        let flags = try valueOrErrno { fcntl(fd, F_GETFL) }
        _ = try valueOrErrno { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// `send(MSG_DONTWAIT | MSG_NOSIGNAL)`: one message, never SIGPIPE.
    package static func send(_ fd: Int32, _ bytes: [UInt8]) throws(Errno) -> Int {
        try valueOrErrno {
            bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
            }
        }
    }

    /// `recv(MSG_DONTWAIT)` of one message into `buffer`.
    package static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try valueOrErrno { Glibc.recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT)) }
    }

    package static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try valueOrErrno { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    package static func write(_ fd: Int32, _ bytes: [UInt8]) throws(Errno) -> Int {
        try valueOrErrno { bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } }
    }

    /// Polls; a negative timeout waits forever.
    package static func poll(_ fds: inout [pollfd], timeoutMilliseconds: Int32) throws(Errno) -> Int32 {
        let count = nfds_t(fds.count)
        return try valueOrErrno { Glibc.poll(&fds, count, timeoutMilliseconds) }
    }

    package static func eventfd() throws(Errno) -> Int32 {
        try valueOrErrno { CUnixSockets_eventfd() }
    }

    /// The pending error of a socket (`SO_ERROR`), cleared by reading it.
    package static func socketError(_ fd: Int32) -> Errno? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) == 0, value != 0 else { return nil }
        return Errno(rawValue: value)
    }

    /// Connects an AF_UNIX socket to a filesystem path.
    package static func connect(_ fd: Int32, unixPath path: String) throws(Errno) {
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
    package static func bind(_ fd: Int32, unixPath path: String) throws(Errno) {
        var address = try unixAddress(path)
        _ = try valueOrErrno {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
    }

    package static func listen(_ fd: Int32, backlog: Int32) throws(Errno) {
        _ = try valueOrErrno { Glibc.listen(fd, backlog) }
    }

    package static func accept(_ fd: Int32) throws(Errno) -> Int32 {
        let client = try valueOrErrno { Glibc.accept(fd, nil, nil) }
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        return client
    }

    package static func chmod(_ path: String, _ mode: mode_t) throws(Errno) {
        _ = try valueOrErrno { Glibc.chmod(path, mode) }
    }

    package static func unlink(_ path: String) {
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
