import ArgumentParser
import Foundation
import OpenHealthKit
import Synchronization
import WorkoutWeb

extension Workout {
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Watch a recording running in another terminal (workout record --mirror) on the same store; space pauses or resumes it, q leaves.",
            discussion: """
                The watch is the recording's companion: it receives the recording's mirrored workout session and shows the live view `workout record` shows, from the figures the recording sends. Space pauses or resumes the recording itself; q or Ctrl-C leaves the watch and the recording goes on. When the recording ends, the watch ends too. One watch waits per store.

                Example (two terminals):
                  workout watch
                  workout record --activity cycling --mirror
                """
        )

        @OptionGroup var options: StoreOptions
        @OptionGroup var serving: ServeOptions
        @Flag(help: "Print the library's log messages to standard error.")
        var verbose = false

        func validate() throws { _ = try serving.address() }

        enum Event: Sendable {
            case key(RecordingCommand)
            case arrived(MirrorMonitor)
            case ended(MirrorMonitor.Ending)
        }

        func run() async throws {
            CommandLog.bootstrap(verbose: verbose)
            try await reportingErrors {
                let store = try await options.open()
                let (events, send) = AsyncStream.makeStream(of: Event.self)
                store.workoutSessionMirroringStartHandler = { session in
                    let monitor = MirrorMonitor(session: session, now: { [store] in store.wallClock() })
                    session.delegate = monitor
                    send.yield(.arrived(monitor))
                }
                defer { store.workoutSessionMirroringStartHandler = nil }
                if let error = store.workoutSessionMirroringError { throw CommandFailure(error.message) }
                // The page shows the recording watched (its frames, as the terminal's) and pauses or resumes it.
                let watched = Mutex<MirrorMonitor?>(nil)
                let display = LiveDisplay(
                    monitor: WaitingSource(), terminal: false, now: { [store] in store.wallClock() })
                let server = try await serving.start(display) { action in
                    Self.control(action, session: watched.withLock { $0?.session })
                }
                let keys = isatty(STDIN_FILENO) == 1 ? "q or Ctrl-C leaves" : "Ctrl-C leaves"
                print("Waiting for `workout record --mirror` on \(store.databasePath ?? "the store"); \(keys).")
                fflush(nil)
                let signals = EndSignals { send.yield(.key($0)) }
                defer { signals.cancel() }
                let terminalKeys = TerminalKeys()
                terminalKeys.start { send.yield(.key($0)) }
                defer { terminalKeys.restore() }
                var view = View(store: store, terminal: isatty(STDOUT_FILENO) == 1)
                view.publish = display.publish
                try await Self.follow(events, view: &view, send: send) { monitor in watched.withLock { $0 = monitor } }
                await server?.stop()
            }
        }

        /// A page's request: the recording watched paused or resumed; its laps and targets are its own.
        private static func control(_ action: LiveControl, session: HKWorkoutSession?) -> LiveControlOutcome {
            guard let session else { return .unavailable("No recording is watched yet.") }
            switch action {
            case .pause: if session.state == .running { session.pause() }
            case .resume: if session.state == .paused { session.resume() }
            case .lap, .raiseTarget, .lowerTarget:
                return .unavailable("A watch can pause and resume the recording; laps and targets are the recording's.")
            }
            return .done
        }

        /// Shows the first recording that arrives (`watching` hears of it) until a key leaves or the recording ends.
        private static func follow(
            _ events: AsyncStream<Event>, view: inout View, send: AsyncStream<Event>.Continuation,
            watching: (MirrorMonitor) -> Void
        ) async throws {
            for await event in events {
                switch event {
                case .arrived(let monitor):
                    guard view.show(monitor) else { continue }
                    watching(monitor)
                    Task { for await ending in monitor.endings { send.yield(.ended(ending)) } }
                case .key(.togglePause):
                    view.watching?.monitor.session.togglePause()
                case .key(.lap), .key(.raiseTarget), .key(.lowerTarget), .key(.skipStep):
                    continue
                case .key(.end):
                    print(await view.stop() ? "Left the watch; the recording goes on." : "Stopped waiting.")
                    return
                case .ended(let ending):
                    await view.stop()
                    switch ending {
                    case .ended: print("The recording ended.")
                    case .stopped: print("The recording stopped mirroring.")
                    case .lost:
                        throw CommandFailure(
                            "The recording went away without ending (its process stopped or its connection closed).")
                    }
                    return
                }
            }
        }

        /// The live view of the one recording watched.
        private struct View {
            let store: HKHealthStore
            let terminal: Bool
            /// Who else is shown each frame (the page `--serve` serves).
            var publish: @Sendable (LiveSnapshot) -> Void = { _ in }
            var watching: (monitor: MirrorMonitor, display: LiveDisplay, drawing: Task<Void, Never>)?

            /// Says what is watched and starts drawing it; false when a recording is watched already.
            mutating func show(_ monitor: MirrorMonitor) -> Bool {
                guard watching == nil else { return false }
                // Said before the view draws its first frame or line.
                let activity = monitor.session.workoutConfiguration.activityType.name
                let how =
                    isatty(STDIN_FILENO) == 1
                    ? "space pauses or resumes it, q leaves (the recording goes on)" : "Ctrl-C leaves"
                print("Watching a \(activity) workout recorded in another terminal; \(how).")
                fflush(nil)
                let display = LiveDisplay(monitor: monitor, terminal: terminal, now: { [store] in store.wallClock() })
                display.publish = publish
                watching = (monitor, display, Task { await display.run() })
                return true
            }

            /// Draws the last frame and stops drawing; returns whether a recording was watched.
            @discardableResult
            func stop() async -> Bool {
                guard let watching else { return false }
                watching.drawing.cancel()
                _ = await watching.drawing.value
                watching.display.finish(at: store.wallClock())
                if terminal { print("") }
                return true
            }
        }
    }
}

/// What a watch's page shows before a recording arrives: nothing yet.
private final class WaitingSource: LiveSource {
    func snapshot(at now: Date) -> LiveSnapshot { .waiting(activity: "–", paused: false) }
    func takeEventLines(at now: Date) -> [String] { [] }
}
