import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What a person can ask of a running recording.
enum RecordingCommand: Sendable, Equatable {
    /// Space: pause, or resume when paused.
    case togglePause
    /// `l`: mark a lap.
    case lap
    /// `q`, Ctrl-C (SIGINT), SIGTERM or the end of `--duration`: end and save.
    case end
    /// `+` (or `=`, the same key unshifted): raise a trainer's target power by ``TrainerTargets/step`` watts.
    case raiseTarget
    /// `-` (or `_`): lower it.
    case lowerTarget
    /// `n`: skip to a running plan's next step.
    case skipStep
}

/// The keys of a recording on a terminal: standard input switched out of canonical mode and echo (signals stay
/// on, so Ctrl-C is still SIGINT), read a byte at a time on a thread of its own, and put back as it was by
/// ``restore()``. Keys are ignored when standard input is not a terminal.
final class TerminalKeys: Sendable {
    private struct State {
        /// The terminal's settings before ``start(_:)``, while they are changed.
        var saved: termios?
        var isStopped = false
    }
    private let state = Mutex(State())

    /// The command a key stands for, if any.
    static func command(for byte: UInt8) -> RecordingCommand? {
        switch byte {
        case UInt8(ascii: " "): return .togglePause
        case UInt8(ascii: "l"), UInt8(ascii: "L"): return .lap
        case UInt8(ascii: "q"), UInt8(ascii: "Q"): return .end
        case UInt8(ascii: "+"), UInt8(ascii: "="): return .raiseTarget
        case UInt8(ascii: "-"), UInt8(ascii: "_"): return .lowerTarget
        case UInt8(ascii: "n"), UInt8(ascii: "N"): return .skipStep
        default: return nil
        }
    }

    /// Starts reading keys into `send` if standard input is a terminal; does nothing otherwise.
    func start(_ send: @escaping @Sendable (RecordingCommand) -> Void) {
        var saved = termios()
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &saved) == 0 else { return }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return }
        state.withLock { $0.saved = saved }
        let thread = Thread { [self] in
            var pollfd = Glibc.pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            while !state.withLock({ $0.isStopped }) {
                // A short poll so that restore() ends the thread promptly.
                guard poll(&pollfd, 1, 100) > 0 else { continue }
                var byte: UInt8 = 0
                let count = read(STDIN_FILENO, &byte, 1)
                if count <= 0 { return }
                if let command = Self.command(for: byte) { send(command) }
            }
        }
        thread.start()
    }

    /// Puts the terminal back as it was and stops reading.
    func restore() {
        let saved = state.withLock { state in
            defer { (state.isStopped, state.saved) = (true, nil) }
            return state.saved
        }
        if var saved { _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
    }
}

/// Sends `.end` on the first SIGINT or SIGTERM. From then on those signals are back to their default: a second
/// Ctrl-C while the workout is being saved ends the process at once, and the store's journal keeps what was
/// recorded (`workout recover` offers it).
///
/// The handler is installed with `sigaction` before `init` returns, so no signal is lost: a `SIG_IGN` followed by
/// a dispatch signal source, as this used to be, leaves a window (the source is armed asynchronously after
/// `resume()`) in which a Ctrl-C is ignored; a test that sent one right after the banner hung about once in 40
/// runs under load. The handler only writes a byte to a pipe (async-signal-safe) and resets itself
/// (`SA_RESETHAND`); a thread of its own reads the pipe and calls `send`.
final class EndSignals: Sendable {
    private let pipe: (read: Int32, write: Int32)
    private let cancelled = Mutex(false)

    init(_ send: @escaping @Sendable (RecordingCommand) -> Void) {
        var fds: [Int32] = [-1, -1]
        if Glibc.pipe(&fds) != 0 { fds = [-1, -1] }
        pipe = (fds[0], fds[1])
        endSignalsPipe.store(fds[1], ordering: .sequentiallyConsistent)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            var byte: UInt8 = 1
            _ = write(endSignalsPipe.load(ordering: .sequentiallyConsistent), &byte, 1)
        }
        action.sa_flags = Int32(truncatingIfNeeded: Int(SA_RESETHAND) | Int(SA_RESTART))
        sigemptyset(&action.sa_mask)
        for signalNumber in [SIGINT, SIGTERM] { sigaction(signalNumber, &action, nil) }
        let readEnd = pipe.read
        let thread = Thread {
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                guard count == 1, byte == 1 else { break }
                send(.end)
            }
            close(readEnd)
        }
        thread.name = "workout.signals"
        thread.start()
    }

    /// Puts SIGINT and SIGTERM back to their default and stops the reading thread.
    func cancel() {
        let first = cancelled.withLock { cancelled in
            defer { cancelled = true }
            return !cancelled
        }
        guard first else { return }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        var stop: UInt8 = 0
        _ = write(pipe.write, &stop, 1)
        close(pipe.write)
    }
}

/// The write end of the pipe the SIGINT and SIGTERM handler writes to (a C function pointer captures nothing): an
/// atomic, which a signal handler may read (it is lock-free).
private let endSignalsPipe = Atomic<Int32>(-1)
