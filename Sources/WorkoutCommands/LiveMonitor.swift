import FitnessSensors
import Foundation
import OpenHealthKit
import Synchronization

/// The live view's eyes: an `HKLiveWorkoutBuilderDelegate` (as a HealthKit app's workout screen is) that keeps
/// what the delegate calls tell it — the latest zone updates, the events — and reads the figures when asked from the
/// library's live-figures model (``LiveWorkoutFigures``, the same the recording mirrors), with the session's state.
final class LiveMonitor: HKLiveWorkoutBuilderDelegate, LiveSource, Sendable {
    let session: HKWorkoutSession
    let builder: HKLiveWorkoutBuilder
    let dataSource: HKLiveWorkoutDataSource
    let start: Date

    private struct State {
        /// Upper thresholds of the heart-rate zones the builder times, in count/min.
        var zoneBoundaries: [Double] = []
        /// Upper thresholds of the power zones the builder times, in W (none without an FTP or the person's zones).
        var powerZoneBoundaries: [Double] = []
        var trainers: TrainerTargets?
        var planStatus: (@Sendable (Date) -> PlanRunner.Status?)?
        var zone: Int?
        var powerZone: Int?
        var events = EventLines()
        var seenEvents: Set<String> = []
        var lapsSeen = 0
    }
    private let state = Mutex(State())

    private static let bpm = HKUnit.count().unitDivided(by: .minute())
    private static let heartRate = HKQuantityType(.heartRate)
    private static let power = HKQuantityType(.cyclingPower)

    init(session: HKWorkoutSession, builder: HKLiveWorkoutBuilder, dataSource: HKLiveWorkoutDataSource, start: Date) {
        self.session = session
        self.builder = builder
        self.dataSource = dataSource
        self.start = start
    }

    /// The trainers the recording controls, shown in the view; set before the display starts.
    var trainers: TrainerTargets? {
        get { state.withLock { $0.trainers } }
        set { state.withLock { $0.trainers = newValue } }
    }

    /// The running plan's figures at a date, shown in the view; set before the display starts.
    var planStatus: (@Sendable (Date) -> PlanRunner.Status?)? {
        get { state.withLock { $0.planStatus } }
        set { state.withLock { $0.planStatus = newValue } }
    }

    /// Reads the zones the builder times heart rate and power in (call once collection has begun).
    func loadZones() async {
        let configuration = try? await builder.zoneConfiguration(for: Self.heartRate)
        let bounds = configuration?.zones.dropLast().compactMap { $0.maximum?.doubleValue(for: Self.bpm) } ?? []
        let power = try? await builder.zoneConfiguration(for: Self.power)
        let powerBounds = power?.zones.dropLast().compactMap { $0.maximum?.doubleValue(for: .watt()) } ?? []
        state.withLock {
            $0.zoneBoundaries = bounds
            $0.powerZoneBoundaries = powerBounds
        }
    }

    // MARK: The delegate

    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {}

    func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {
        // The builder keeps its events in date order, and a lap spans back to the previous one: new events are
        // found by what they are, not by where they are in the list.
        let collected = workoutBuilder.workoutEvents
        state.withLock { state in
            for event in collected {
                let key =
                    "\(event.type.rawValue) \(event.dateInterval.start.timeIntervalSinceReferenceDate) \(event.dateInterval.end.timeIntervalSinceReferenceDate)"
                guard state.seenEvents.insert(key).inserted else { continue }
                switch event.type {
                case .pause: state.events.note("paused", at: event.dateInterval.start)
                case .resume: state.events.note("resumed", at: event.dateInterval.start)
                case .lap:
                    state.lapsSeen += 1
                    state.events.note("lap \(state.lapsSeen)", at: event.dateInterval.end)
                default: continue
                }
            }
        }
    }

    func workoutBuilder(
        _ workoutBuilder: HKLiveWorkoutBuilder, didUpdateWorkoutZone zoneUpdate: HKLiveWorkoutZoneUpdate
    ) {
        if zoneUpdate.quantityType == Self.power {
            // Shown in the view; not an event line (power changes zone every few seconds).
            state.withLock { $0.powerZone = zoneUpdate.currentZoneDuration?.zone.index }
            return
        }
        guard zoneUpdate.quantityType == Self.heartRate else { return }
        let current = zoneUpdate.currentZoneDuration?.zone.index
        let date = zoneUpdate.lastSampleProcessedDate ?? start
        state.withLock {
            $0.zone = current
            $0.events.note("zone \(current.map { "Z\($0 + 1)" } ?? "–")", at: date)
        }
    }

    // MARK: Reading

    /// Everything the view shows, as of `now` (the store's wall clock): the builder's figures, the zones its updates
    /// said, the trainers.
    func snapshot(at now: Date) -> LiveSnapshot {
        let figures = LiveWorkoutFigures(builder: builder, at: now)
        let (boundaries, zone, powerBoundaries, powerZone, trainers, planStatus) = state.withLock {
            ($0.zoneBoundaries, $0.zone, $0.powerZoneBoundaries, $0.powerZone, $0.trainers, $0.planStatus)
        }
        var snapshot = LiveSnapshot(
            figures: figures, at: now, elapsed: max(0, now.timeIntervalSince(start)),
            activity: session.currentActivity.workoutConfiguration.activityType.name,
            paused: session.state == .paused, running: session.state == .running, zone: zone,
            zoneBoundaries: boundaries)
        snapshot.powerZone = powerZone
        snapshot.powerZoneBoundaries = powerBoundaries
        snapshot.machines = trainers?.controlled.map { LiveSnapshot.MachineLine(name: $0.name, state: $0.state) } ?? []
        snapshot.trainerNotice = trainers?.notice
        snapshot.plan = planStatus?(now)
        return snapshot
    }

    /// Notes an event line of the recording's own (a trainer's target taken or refused).
    func note(_ text: String, at date: Date) {
        state.withLock { $0.events.note(text, at: date) }
    }

    /// The events since the last call, as plain lines (`12:31  lap 3`): pauses, resumes, laps, zone changes, and
    /// sensors lost or back (found by comparing their statuses with the last call's).
    func takeEventLines(at now: Date) -> [String] {
        let statuses = dataSource.sensorStatuses
        return state.withLock { state in
            state.events.noteSensors(statuses, at: now)
            return state.events.take(since: start)
        }
    }
}
