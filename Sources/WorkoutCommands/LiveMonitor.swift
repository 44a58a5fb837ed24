import FitnessSensors
import Foundation
import OpenHealthKit

/// The live view's eyes: an `HKLiveWorkoutBuilderDelegate` (as a HealthKit app's workout screen is) that keeps
/// what the delegate calls tell it — the latest zone update, the events — and reads the rest when asked from the
/// builder (`statistics(for:)`, `elapsedTime(at:)`, `zoneGroup(for:)`, `workoutEvents`, and the 3-second power it
/// keeps, `threeSecondPower(at:)`), the session (state, current activity) and the data source (`sensorStatuses`).
final class LiveMonitor: HKLiveWorkoutBuilderDelegate, LiveSource, @unchecked Sendable {
    /// A value older than this shows as "–".
    static let freshness: TimeInterval = 3

    let session: HKWorkoutSession
    let builder: HKLiveWorkoutBuilder
    let dataSource: HKLiveWorkoutDataSource
    let start: Date
    /// Upper thresholds of the heart-rate zones the builder times, in count/min.
    var zoneBoundaries: [Double] = []
    /// Upper thresholds of the power zones the builder times, in W (none without an FTP or the person's zones).
    var powerZoneBoundaries: [Double] = []
    /// The trainers the recording controls, shown in the view; set before the display starts.
    var trainers: TrainerControls?

    private let lock = NSLock()
    private var zone: Int?
    private var powerZone: Int?
    private var collected = false
    private var events = EventLines()
    private var seenEvents: Set<String> = []
    private var lapsSeen = 0

    private static let bpm = HKUnit.count().unitDivided(by: .minute())
    private static let heartRate = HKQuantityType(.heartRate)
    private static let power = HKQuantityType(.cyclingPower)
    private static let steps = HKQuantityType(.stepCount)

    init(session: HKWorkoutSession, builder: HKLiveWorkoutBuilder, dataSource: HKLiveWorkoutDataSource, start: Date) {
        self.session = session
        self.builder = builder
        self.dataSource = dataSource
        self.start = start
    }

    /// Reads the zones the builder times heart rate and power in (call once collection has begun).
    func loadZones() async {
        let configuration = try? await builder.zoneConfiguration(for: Self.heartRate)
        let bounds = configuration?.zones.dropLast().compactMap { $0.maximum?.doubleValue(for: Self.bpm) } ?? []
        let power = try? await builder.zoneConfiguration(for: Self.power)
        let powerBounds = power?.zones.dropLast().compactMap { $0.maximum?.doubleValue(for: .watt()) } ?? []
        lock.withLock {
            zoneBoundaries = bounds
            powerZoneBoundaries = powerBounds
        }
    }

    /// Whether the builder ever collected anything.
    var collectedAnything: Bool { lock.withLock { collected } }

    // MARK: The delegate

    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {
        lock.withLock { collected = true }
    }

    func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {
        // The builder keeps its events in date order, and a lap spans back to the previous one: new events are
        // found by what they are, not by where they are in the list.
        let collected = workoutBuilder.workoutEvents
        lock.withLock {
            for event in collected {
                let key =
                    "\(event.type.rawValue) \(event.dateInterval.start.timeIntervalSinceReferenceDate) \(event.dateInterval.end.timeIntervalSinceReferenceDate)"
                guard seenEvents.insert(key).inserted else { continue }
                switch event.type {
                case .pause: events.note("paused", at: event.dateInterval.start)
                case .resume: events.note("resumed", at: event.dateInterval.start)
                case .lap:
                    lapsSeen += 1
                    events.note("lap \(lapsSeen)", at: event.dateInterval.end)
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
            lock.withLock { powerZone = zoneUpdate.currentZoneDuration?.zone.index }
            return
        }
        guard zoneUpdate.quantityType == Self.heartRate else { return }
        let current = zoneUpdate.currentZoneDuration?.zone.index
        let date = zoneUpdate.lastSampleProcessedDate ?? start
        lock.withLock {
            zone = current
            events.note("zone \(current.map { "Z\($0 + 1)" } ?? "–")", at: date)
        }
    }

    // MARK: Reading

    /// Everything the view shows, as of `now` (the store's wall clock).
    func snapshot(at now: Date) -> LiveSnapshot {
        func fresh(_ type: HKQuantityType, _ unit: HKUnit) -> Double? {
            guard let statistics = builder.statistics(for: type),
                let date = statistics.mostRecentQuantityDateInterval()?.start,
                now.timeIntervalSince(date) <= Self.freshness
            else { return nil }
            return statistics.mostRecentQuantity()?.doubleValue(for: unit)
        }
        let types = dataSource.typesToCollect
        // A run's cadence, once a foot pod has counted steps (`runningCadence(at:)`), when a ride's cadence is not
        // collected.
        let runs =
            !types.contains(HKQuantityType(.cyclingCadence)) && types.contains(Self.steps)
            && builder.statistics(for: Self.steps) != nil
        let laps = builder.workoutEvents.filter { $0.type == .lap }
        let moving = builder.elapsedTime(at: now)
        let lapStart = laps.last.map { builder.elapsedTime(at: $0.dateInterval.end) } ?? 0
        let zoneTimes = builder.zoneGroup(for: Self.heartRate)?.zoneDurations.map(\.duration)
        let power3s = builder.threeSecondPower(at: now)?.doubleValue(for: .watt())
        let (boundaries, zone, powerBoundaries, powerZone) = lock.withLock {
            (zoneBoundaries, self.zone, powerZoneBoundaries, self.powerZone)
        }
        return LiveSnapshot(
            elapsed: max(0, now.timeIntervalSince(start)), moving: moving,
            activity: session.currentActivity.workoutConfiguration.activityType.name,
            paused: session.state == .paused,
            heartRate: fresh(Self.heartRate, Self.bpm),
            power: fresh(Self.power, .watt()), power3s: power3s,
            cadence: runs
                ? builder.runningCadence(at: now)?.doubleValue(for: RunningCadence.unit)
                : fresh(HKQuantityType(.cyclingCadence), Self.bpm),
            cadenceUnit: runs ? "steps/min" : "rpm",
            speed: fresh(HKQuantityType(.cyclingSpeed), HKUnit.meter().unitDivided(by: .second()))
                ?? fresh(HKQuantityType(.runningSpeed), HKUnit.meter().unitDivided(by: .second())),
            showsPower: types.contains(Self.power),
            showsCadence: types.contains(HKQuantityType(.cyclingCadence)) || runs,
            showsSpeed: types.contains(HKQuantityType(.cyclingSpeed)) || types.contains(HKQuantityType(.runningSpeed)),
            zone: zone, zoneBoundaries: boundaries,
            zoneTimes: zoneTimes ?? Array(repeating: 0, count: boundaries.count + 1),
            powerZone: powerZone, powerZoneBoundaries: powerBoundaries,
            laps: laps.count, lapTime: max(0, moving - lapStart),
            sensors: dataSource.sensorStatuses.map { LiveView.sensorLine($0, at: now) },
            machines: trainers?.lines() ?? [], trainerNotice: trainers?.notice)
    }

    /// Notes an event line of the recording's own (a trainer's target taken or refused).
    func note(_ text: String, at date: Date) {
        lock.withLock { events.note(text, at: date) }
    }

    /// The events since the last call, as plain lines (`12:31  lap 3`): pauses, resumes, laps, zone changes, and
    /// sensors lost or back (found by comparing their statuses with the last call's).
    func takeEventLines(at now: Date) -> [String] {
        let statuses = dataSource.sensorStatuses
        return lock.withLock {
            events.noteSensors(statuses, at: now)
            return events.take(since: start)
        }
    }
}
