import Foundation
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
}

/// The keys of a recording on a terminal: standard input switched out of canonical mode and echo (signals stay
/// on, so Ctrl-C is still SIGINT), read a byte at a time on a thread of its own, and put back as it was by
/// ``restore()``. Keys are ignored when standard input is not a terminal.
final class TerminalKeys: @unchecked Sendable {
    private var saved = termios()
    private var active = false
    private let stopped = NSLock()
    private var isStopped = false

    /// The command a key stands for, if any.
    static func command(for byte: UInt8) -> RecordingCommand? {
        switch byte {
        case UInt8(ascii: " "): return .togglePause
        case UInt8(ascii: "l"), UInt8(ascii: "L"): return .lap
        case UInt8(ascii: "q"), UInt8(ascii: "Q"): return .end
        default: return nil
        }
    }

    /// Starts reading keys into `send` if standard input is a terminal; does nothing otherwise.
    func start(_ send: @escaping @Sendable (RecordingCommand) -> Void) {
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &saved) == 0 else { return }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return }
        active = true
        let thread = Thread { [self] in
            var pollfd = Glibc.pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            while !stopped.withLock({ isStopped }) {
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
        stopped.withLock { isStopped = true }
        if active {
            _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved)
            active = false
        }
    }
}

/// Sends `.end` on the first SIGINT or SIGTERM. From then on those signals are back to their default: a second
/// Ctrl-C while the workout is being saved ends the process at once, and the store's journal keeps what was
/// recorded (`workout recover` offers it).
final class EndSignals: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []

    init(_ send: @escaping @Sendable (RecordingCommand) -> Void) {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber)
            source.setEventHandler {
                signal(SIGINT, SIG_DFL)
                signal(SIGTERM, SIG_DFL)
                send(.end)
            }
            source.resume()
            sources.append(source)
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        sources = []
    }
}
