import Foundation
import OpenHealthKit
import Synchronization

/// `workout watch`'s eyes: the delegate of the mirrored session a companion receives. It keeps the latest
/// ``LiveWorkoutFigures`` the primary sent (`didReceiveDataFromRemoteWorkoutSession`) and the session's own state and
/// events, and makes the same ``LiveSnapshot`` the recording's view shows.
///
/// Between two figures the moving time runs on while the mirrored session is running. The zone shown is the zone
/// of the most recent heart rate; the 3 s power is the recording builder's, as the figures carried it.
///
/// Times are read on the recording's clock: each figures' date, against when they arrived here, gives the offset
/// between its clock and this one (the link's delay, a few milliseconds on a Unix socket, counts as part of it). So
/// a companion whose clock differs from the recording's — on another machine, or a test's stepped time — still
/// shows the recording's elapsed time and the freshness of its values.
final class MirrorMonitor: HKWorkoutSessionDelegate, LiveSource, Sendable {
    /// How mirroring ended.
    enum Ending: Sendable, Equatable {
        /// The recording ended its session (or stopped mirroring): the watch is over.
        case ended
        case stopped
        /// The recording went away without a word (its process killed, its socket closed).
        case lost(String)
    }

    let session: HKWorkoutSession
    let endings: AsyncStream<Ending>
    private let ending: AsyncStream<Ending>.Continuation
    private struct State {
        var figures: LiveWorkoutFigures?
        var events = EventLines()
        var lapsSeen = 0
        var shownZone: Int?
        var sawEnd = false
        /// The recording's clock minus this one, as of the last figures.
        var offset: TimeInterval = 0
    }
    private let state = Mutex(State())
    private let localNow: @Sendable () -> Date

    init(session: HKWorkoutSession, now: @escaping @Sendable () -> Date) {
        self.session = session
        localNow = now
        (endings, ending) = AsyncStream.makeStream(of: Ending.self)
    }

    // MARK: The delegate

    func workoutSession(
        _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
        from fromState: HKWorkoutSessionState, date: Date
    ) {
        if toState == .ended { state.withLock { $0.sawEnd = true } }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didGenerate event: HKWorkoutEvent) {
        let words: String
        switch event.type {
        case .pause: words = "paused"
        case .resume: words = "resumed"
        default: return
        }
        state.withLock { $0.events.note(words, at: event.dateInterval.start) }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {
        for item in data {
            guard let received = try? LiveWorkoutFigures(data: item) else { continue }
            let arrived = localNow()
            state.withLock { state in
                state.offset = received.date.timeIntervalSince(arrived)
                if received.laps > state.lapsSeen {
                    state.lapsSeen = received.laps
                    state.events.note("lap \(received.laps)", at: received.date)
                }
                state.figures = received
            }
        }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?)
    {
        if let error {
            ending.yield(.lost((error as? HKError)?.message ?? "\(error)"))
        } else {
            ending.yield(state.withLock { $0.sawEnd } ? .ended : .stopped)
        }
    }

    // MARK: Reading

    /// `local`, on the recording's clock.
    private func recordingTime(_ local: Date) -> Date { local + state.withLock { $0.offset } }

    func snapshot(at local: Date) -> LiveSnapshot {
        let now = recordingTime(local)
        let figures = state.withLock { $0.figures }
        let paused = session.state == .paused
        let activity = session.workoutConfiguration.activityType.name
        let start = session.startDate ?? figures?.startDate ?? now
        guard let figures else {
            // Before the first figures this side does not know the recording's clock: nothing has elapsed yet.
            return LiveSnapshot.waiting(activity: activity, paused: paused)
        }
        // The zone of the most recent heart rate, by the library's rule for zone boundaries.
        return LiveSnapshot(
            figures: figures, at: now, elapsed: max(0, now.timeIntervalSince(start)), activity: activity,
            paused: paused, running: session.state == .running,
            zone: figures.heartRateZone(at: now, maximumAge: LiveSnapshot.freshness),
            zoneBoundaries: figures.heartRateZoneBoundaries)
    }

    func takeEventLines(at local: Date) -> [String] {
        let snapshot = snapshot(at: local)
        let now = recordingTime(local)
        let figures = state.withLock { $0.figures }
        let start = session.startDate ?? figures?.startDate ?? now
        return state.withLock { state in
            // A zone is reported when the heart rate first enters it (the recording reports its zone updates).
            if let zone = snapshot.zone, zone != state.shownZone {
                state.events.note("zone Z\(zone + 1)", at: now)
                state.shownZone = zone
            }
            state.events.noteSensors(figures?.sensors ?? [], at: now)
            return state.events.take(since: start)
        }
    }
}
