import Foundation
import Glibc
import Testing

// What every test that runs a child process uses to wait for it: a deadline that kills the child and fails the test,
// so that a hung child fails its test instead of hanging the suite (a suite's `.timeLimit` cannot interrupt a
// blocking call).

/// How long a test lets a child process run, in seconds of real time: far more than any child here needs on a loaded
/// machine. A limit for a broken or hung program, not a wait: what a test waits for is due as soon as the child gets
/// there.
public let childProcessTimeLimit: Double = 60

extension Process {
    /// Waits until the process has exited, for at most `seconds` of real time. Past that the process is killed with
    /// its process group (SIGKILL; Foundation starts every child as the leader of a group of its own), the test fails
    /// with `printed()` (what the child printed, when the caller has it), and this waits for the killed process's exit.
    /// Returns whether the process exited by itself in time.
    @discardableResult
    public func waitUntilExit(
        within seconds: Double, printed: () -> String = { "" },
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        if exits(within: seconds, sourceLocation: sourceLocation) { return true }
        killGroup()
        let message =
            "\(commandLine) did not exit within \(Int(seconds)) s, so it was killed (SIGKILL, with its process "
            + "group). It printed:\n\(printed())"
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        // SIGKILL cannot be caught or ignored: the exit follows at once. Bounded all the same.
        _ = exits(within: 10, sourceLocation: sourceLocation)
        return false
    }

    /// Waits until the process has exited, for at most `seconds` of real time; returns whether it has. Nothing is
    /// killed and no test fails here.
    public func exits(within seconds: Double, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        expectMayBlock("Waiting for \(commandLine) to exit", sourceLocation: sourceLocation)
        let exited = DispatchSemaphore(value: 0)
        let previous = terminationHandler
        // Foundation clears `isRunning` before it reads the handler: either the handler set here is called, or the
        // check below sees the process has already ended.
        terminationHandler = { process in
            previous?(process)
            exited.signal()
        }
        guard isRunning else { return true }
        return exited.wait(timeout: .now() + max(0, seconds)) == .success
    }

    /// Kills the process and every process in its group at once (SIGKILL), if it is still running.
    public func killGroup() {
        let identifier = processIdentifier
        guard identifier > 0, isRunning else { return }
        // The group only when the child leads it (as Foundation starts it): never this test's own group.
        if getpgid(identifier) == identifier, identifier != getpgrp() {
            kill(-identifier, SIGKILL)
        } else {
            kill(identifier, SIGKILL)
        }
    }

    /// The executable's name and its arguments, as a person would type them.
    public var commandLine: String {
        ([executableURL?.lastPathComponent ?? "?"] + (arguments ?? [])).joined(separator: " ")
    }
}

/// Reads the reading ends of `pipes` together (so that none fills while another is read) until each has ended or
/// `seconds` of real time have passed. Returns what was read from each, and whether every one ended.
public func readToEnd(
    _ pipes: [Pipe], within seconds: Double = childProcessTimeLimit, sourceLocation: SourceLocation = #_sourceLocation
) -> (data: [Data], ended: Bool) {
    expectMayBlock("Reading a child's pipes", sourceLocation: sourceLocation)
    let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(seconds * 1000)))
    var data = [Data](repeating: Data(), count: pipes.count)
    var open = Array(pipes.indices)
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while !open.isEmpty {
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else { return (data, false) }
        let milliseconds = Int32(
            clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
        var descriptors = open.map {
            pollfd(fd: pipes[$0].fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
        }
        let ready = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
        if ready < 0, errno == EINTR { continue }
        guard ready > 0 else { continue }
        var ended: Set<Int> = []
        for (slot, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
            let count = read(descriptor.fd, &buffer, buffer.count)
            if count > 0 {
                data[open[slot]].append(contentsOf: buffer[0 ..< count])
            } else if count == 0 || errno != EINTR {
                ended.insert(open[slot])
            }
        }
        open.removeAll { ended.contains($0) }
    }
    return (data, true)
}

/// The lines a child writes to `pipe`, as they come; the stream ends when the pipe does (the child exited, or was
/// killed by its test's deadline). A thread of its own reads the pipe with blocking reads until it ends, where
/// `FileHandle.readabilityHandler` on Linux sometimes never reports the end of a pipe whose last line and end arrive
/// together (swiftlang/swift-corelibs-foundation#3275): a test then waited for an end that had come, until its time
/// limit. A last line without a newline is delivered too.
public func lines(of pipe: Pipe) -> AsyncStream<String> {
    let (lines, sink) = AsyncStream.makeStream(of: String.self)
    let thread = Thread {
        // The pipe is kept (and its descriptor open) until the reading ends.
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            pending.append(contentsOf: buffer[0 ..< count])
            while let newline = pending.firstIndex(of: 0x0A) {
                sink.yield(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
        }
        if !pending.isEmpty { sink.yield(String(decoding: pending, as: UTF8.self)) }
        sink.finish()
    }
    thread.name = "child output"
    thread.start()
    return lines
}
