import Dispatch
import Glibc
import Synchronization
import SystemPackage

/// An owned, non-blocking socket descriptor that can be waited on, and woken.
///
/// Each descriptor has a companion `eventfd`: ``interrupt()`` makes it readable, which ends every
/// current and future wait with ``SocketError/Code/closed``. That is how a cancelled task, a
/// timeout or ``shutdown()`` gets a thread out of `poll()` without closing a descriptor another
/// thread is using. The descriptors are closed in `deinit`, once nobody can be polling them.
///
/// Blocking waits run on the descriptor's own Dispatch queues, so awaiting one never blocks a
/// Swift concurrency thread.
public final class SocketDescriptor: Sendable {
    /// The socket.
    public let rawValue: Int32
    private let wake: Int32
    private let isShutDown = Atomic<Bool>(false)
    private let simulatedError = Mutex<Errno?>(nil)
    // Serial queues are overcommitting: each gets a thread of its own when it has work, so a wait
    // blocked in poll() never starves Dispatch's width-limited global pool (which on Linux cannot
    // see blocked threads). One for input waits, one for output waits, so neither queues behind the other.
    private let inputQueue = DispatchQueue(label: "org.openhealthkit.socket.input")
    private let outputQueue = DispatchQueue(label: "org.openhealthkit.socket.output")

    /// Takes ownership of `fd` and makes it non-blocking.
    public init(taking fd: Int32) throws(Errno) {
        let wake: Int32
        do {
            try Sys.setNonBlocking(fd)
            wake = try Sys.eventfd()
        } catch {
            Sys.close(fd)
            throw error
        }
        self.rawValue = fd
        self.wake = wake
    }

    deinit {
        Sys.close(rawValue)
        Sys.close(wake)
    }

    /// Ends every current and future wait on this descriptor with ``SocketError/Code/closed``.
    public func interrupt() {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { Glibc.write(wake, $0.baseAddress, 8) }
    }

    /// Shuts the socket down in both directions (the peer sees the link end) and interrupts waits. Returns whether
    /// this call did it (false when it was already shut down).
    @discardableResult
    public func shutdown() -> Bool {
        if isShutDown.exchange(true, ordering: .acquiringAndReleasing) { return false }
        Sys.shutdown(rawValue)
        interrupt()
        return true
    }

    /// Whether ``shutdown()`` was called.
    public var wasShutDown: Bool { isShutDown.load(ordering: .acquiring) }

    /// What a wait saw.
    public enum Readiness: Equatable, Sendable {
        /// The socket's returned events (`POLLIN`, `POLLOUT`, `POLLHUP`, `POLLERR`, …).
        case ready(Int16)
        case timedOut
    }

    /// Waits on the calling thread for `events` (plus errors and hang-ups) or the timeout.
    ///
    /// - Parameter timeoutMilliseconds: negative waits forever.
    /// - Throws: ``SocketError/Code/closed`` once interrupted; `Errno` if `poll` fails.
    public func poll(_ events: Int16, timeoutMilliseconds: Int32) throws -> Readiness {
        var fds = [
            pollfd(fd: rawValue, events: events | Sys.pollRDHUP, revents: 0),
            pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
        ]
        let count = try Sys.poll(&fds, timeoutMilliseconds: timeoutMilliseconds)
        if fds[1].revents != 0 { throw SocketError(.closed, "The socket was closed.") }
        return count == 0 ? .timedOut : .ready(fds[0].revents)
    }

    /// Waits, off the Swift concurrency threads, for `events` (plus errors and hang-ups).
    /// Cancelling the task interrupts the descriptor (see ``interrupt()``).
    public func wait(for events: Int16) async throws -> Int16 {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int16, any Error>) in
                let queue = events & Int16(POLLIN) != 0 ? self.inputQueue : self.outputQueue
                queue.async {
                    continuation.resume(
                        with: Result {
                            while true {
                                if case .ready(let revents) = try self.poll(events, timeoutMilliseconds: -1) {
                                    return revents
                                }
                            }
                        })
                }
            }
        } onCancel: {
            self.interrupt()
        }
    }

    // MARK: - Messages

    /// Sends one message without blocking; waits for room when the socket buffer is full.
    public func sendMessage(_ bytes: [UInt8]) async throws {
        while true {
            let sent: Int
            do throws(Errno) {
                sent = try Sys.send(rawValue, bytes)
            } catch .resourceTemporarilyUnavailable {
                _ = try await wait(for: Int16(POLLOUT))
                continue
            } catch {
                if wasShutDown { throw SocketError(.closed, "The socket was closed.", errno: error) }
                throw Self.linkError(error)
            }
            guard sent == bytes.count else {
                throw SocketError(.system, "Only \(sent) of \(bytes.count) bytes of a message were sent.")
            }
            return
        }
    }

    /// Receives one message if one is queued.
    ///
    /// - Returns: the message, `nil` if none is waiting, or an empty array for a zero-length message.
    /// - Throws: ``SocketError/Code/linkLost`` when the peer is gone: an error on the socket, or a
    ///   zero-length read together with a hang-up (a zero-length message alone is legal on L2CAP).
    public func receiveMessage(capacity: Int = 2048) throws -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: capacity)
        let result: Result<Int, Errno> = buffer.withUnsafeMutableBytes { raw in
            do throws(Errno) { return .success(try Sys.receive(rawValue, into: raw)) } catch { return .failure(error) }
        }
        let count: Int
        do throws(Errno) {
            count = try result.get()
        } catch .resourceTemporarilyUnavailable {
            return nil
        } catch {
            if wasShutDown { throw SocketError(.closed, "The socket was closed.", errno: error) }
            throw Self.linkError(error)
        }
        if count == 0 {
            if wasShutDown { throw SocketError(.closed, "The socket was closed.") }
            if case .ready(let revents) = try poll(0, timeoutMilliseconds: 0),
                revents & (Int16(POLLHUP) | Int16(POLLERR) | Sys.pollRDHUP) != 0
            {
                throw SocketError.linkLost(pendingError())
            }
            return []
        }
        return Array(buffer[0 ..< count])
    }

    /// Waits for and receives the next message.
    public func nextMessage() async throws -> [UInt8] {
        while true {
            if let message = try receiveMessage() { return message }
            let revents = try await wait(for: Int16(POLLIN))
            if revents & Int16(POLLERR) != 0, let error = pendingError() {
                throw Self.linkError(error)
            }
        }
    }

    /// The socket's pending error (`SO_ERROR`, cleared by reading it), or the one a test set.
    package func pendingError() -> Errno? {
        simulatedError.withLock { error in
            defer { error = nil }
            return error
        } ?? Sys.socketError(rawValue)
    }

    /// Makes the next hang-up report `errno` as the socket's pending error: how a test stands in,
    /// on an `AF_UNIX` pair, for the kernel reporting a disconnection reason on an L2CAP socket
    /// (`l2cap_conn_del(hcon, bt_to_errno(reason))` sets `sk_err`).
    package func simulatePendingError(_ errno: Errno) {
        simulatedError.withLock { $0 = errno }
    }

    package static func linkError(_ errno: Errno) -> SocketError {
        switch errno {
        case .connectionReset, .socketNotConnected, .timedOut, .brokenPipe, .connectionAbort, .hostIsDown,
            .noFunction, .protocolError, .permissionDenied:
            SocketError.linkLost(errno)
        default:
            SocketError(.system, "A socket operation failed: \(errno).", errno: errno)
        }
    }
}
