import Foundation
import OpenHealthKit
import Synchronization

/// What a live display draws from: the recording's own builder (``LiveMonitor``) or, in `watch`, the figures a
/// mirrored session receives (``MirrorMonitor``).
protocol LiveSource: AnyObject, Sendable {
    /// Everything the view shows, as of `now`.
    func snapshot(at now: Date) -> LiveSnapshot
    /// The events since the last call, as plain lines (`12:31  lap 3`).
    func takeEventLines(at now: Date) -> [String]
}

/// Shows a live workout while it runs, for `record`, `replay` and `watch` alike: on a terminal the ``LiveView`` block
/// redrawn in place; piped, plain lines — one a minute, and one per event (pause, resume, lap, zone change, a
/// sensor lost or back).
final class LiveDisplay: Sendable {
    let monitor: any LiveSource
    let terminal: Bool
    /// The workout's clock: the store's `wallClock`.
    let now: @Sendable () -> Date

    private struct State {
        var write: @Sendable (String) -> Void = { text in FileHandle.standardOutput.write(Data(text.utf8)) }
        var quiet = false
        var columns: @Sendable () -> Int? = { LiveDisplay.terminalColumns() }
        var drawnLines = 0
        var printedMinute = 0
        var publish: @Sendable (LiveSnapshot) -> Void = { _ in }
    }
    private let state = Mutex(State())

    init(monitor: any LiveSource, terminal: Bool, now: @escaping @Sendable () -> Date) {
        self.monitor = monitor
        self.terminal = terminal
        self.now = now
    }

    /// Where the text goes (standard output; a buffer in tests).
    var write: @Sendable (String) -> Void {
        get { state.withLock { $0.write } }
        set { state.withLock { $0.write = newValue } }
    }
    /// Ticks to skip drawing (instant replays draw only their last frame).
    var quiet: Bool {
        get { state.withLock { $0.quiet } }
        set { state.withLock { $0.quiet = newValue } }
    }
    /// The terminal's width in columns, read at every frame (a window can be resized); nil when unknown.
    var columns: @Sendable () -> Int? {
        get { state.withLock { $0.columns } }
        set { state.withLock { $0.columns = newValue } }
    }

    /// Who else is shown every frame's snapshot, the very value the terminal draws (the page `--serve` serves).
    var publish: @Sendable (LiveSnapshot) -> Void {
        get { state.withLock { $0.publish } }
        set { state.withLock { $0.publish = newValue } }
    }

    /// Draws every `interval` of `clock` until cancelled.
    func run(every interval: Duration = .milliseconds(250), clock: any Clock<Duration> = ContinuousClock()) async {
        while !Task.isCancelled {
            tick(at: now())
            do { try await clock.sleep(for: interval) } catch { return }
        }
    }

    /// One frame (terminal) or the lines due (piped), as of `date`.
    func tick(at date: Date) {
        state.withLock { state in
            guard !state.quiet else { return }
            let events = monitor.takeEventLines(at: date)
            let snapshot = monitor.snapshot(at: date)
            state.publish(snapshot)
            if terminal {
                draw(LiveView.lines(snapshot), in: &state)
            } else {
                var text = events.map { $0 + "\n" }.joined()
                let minute = Int(snapshot.elapsed / 60)
                if minute > state.printedMinute {
                    state.printedMinute = minute
                    text += LiveView.minuteLine(snapshot) + "\n"
                }
                if !text.isEmpty { state.write(text) }
            }
        }
    }

    /// The last frame, at the workout's end (terminal only), then a line break so what follows starts clean.
    func finish(at end: Date) {
        state.withLock { state in
            state.quiet = false
            let snapshot = monitor.snapshot(at: end)
            state.publish(snapshot)
            if terminal {
                draw(LiveView.lines(snapshot), in: &state)
            } else {
                let events = monitor.takeEventLines(at: end)
                if !events.isEmpty { state.write(events.map { $0 + "\n" }.joined()) }
            }
        }
    }

    /// Redraws the frame in place: the cursor goes up one row per line drawn last time. So no line may be wider
    /// than the terminal (the terminal would wrap it onto a row the next frame does not go back over, and the view
    /// would leave a trail of old rows): a long line is folded to the width here, with an indented continuation.
    private func draw(_ lines: [String], in state: inout State) {
        let rows = Self.folded(lines, columns: state.columns())
        var output = state.drawnLines > 0 ? "\u{1B}[\(state.drawnLines)A" : ""
        for row in rows { output += "\r\u{1B}[2K" + row + "\n" }
        output += "\u{1B}[J"
        state.drawnLines = rows.count
        state.write(output)
    }

    /// Lines folded to `columns` (unchanged when nil): at the last space that fits, else at the width, each
    /// continuation indented by two spaces.
    static func folded(_ lines: [String], columns: Int?) -> [String] {
        guard let columns, columns > 8 else { return lines }
        var rows: [String] = []
        for line in lines {
            var rest = Substring(line)
            var continuation = false
            while true {
                let row = (continuation ? "  " : "") + rest
                if row.count <= columns {
                    rows.append(row)
                    break
                }
                let room = columns - (continuation ? 2 : 0)
                let head = rest.prefix(room)
                var cut = head.endIndex
                if let space = head.lastIndex(of: " "), space > rest.startIndex { cut = space }
                rows.append((continuation ? "  " : "") + Format.trimmed(String(rest[..<cut])))
                rest = rest[cut...].drop { $0 == " " }
                continuation = true
                if rest.isEmpty { break }
            }
        }
        return rows
    }

    /// The width of the terminal on standard output, if it is one.
    static func terminalColumns() -> Int? {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
