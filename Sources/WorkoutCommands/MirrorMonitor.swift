import Foundation
import OpenHealthKit

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
final class MirrorMonitor: HKWorkoutSessionDelegate, LiveSource, @unchecked Sendable {
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
    private let lock = NSLock()
    private var figures: LiveWorkoutFigures?
    private var events = EventLines()
    private var lapsSeen = 0
    private var shownZone: Int?
    private var sawEnd = false
    /// The recording's clock minus this one, as of the last figures.
    private var offset: TimeInterval = 0
    private let localNow: @Sendable () -> Date

    private static let bpm = HKUnit.count().unitDivided(by: .minute())
    private static let heartRate = HKQuantityType(.heartRate)
    private static let power = HKQuantityType(.cyclingPower)

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
        if toState == .ended { lock.withLock { sawEnd = true } }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didGenerate event: HKWorkoutEvent) {
        let words: String
        switch event.type {
        case .pause: words = "paused"
        case .resume: words = "resumed"
        default: return
        }
        lock.withLock { events.note(words, at: event.dateInterval.start) }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {
        for item in data {
            guard let received = try? LiveWorkoutFigures(data: item) else { continue }
            let arrived = localNow()
            lock.withLock {
                offset = received.date.timeIntervalSince(arrived)
                if received.laps > lapsSeen {
                    lapsSeen = received.laps
                    events.note("lap \(received.laps)", at: received.date)
                }
                figures = received
            }
        }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?)
    {
        if let error {
            ending.yield(.lost((error as? HKError)?.message ?? "\(error)"))
        } else {
            ending.yield(lock.withLock { sawEnd } ? .ended : .stopped)
        }
    }

    // MARK: Reading

    /// `local`, on the recording's clock.
    private func recordingTime(_ local: Date) -> Date { local + lock.withLock { offset } }

    func snapshot(at local: Date) -> LiveSnapshot {
        let now = recordingTime(local)
        let figures = lock.withLock { self.figures }
        let paused = session.state == .paused
        let activity = session.workoutConfiguration.activityType.name
        let start = session.startDate ?? figures?.startDate ?? now
        guard let figures else {
            // Before the first figures this side does not know the recording's clock: nothing has elapsed yet.
            return LiveSnapshot(
                elapsed: 0, moving: 0, activity: activity, paused: paused,
                heartRate: nil, power: nil, power3s: nil, cadence: nil, speed: nil, showsPower: false,
                showsCadence: false, showsSpeed: false, zone: nil, zoneBoundaries: [], zoneTimes: [0],
                laps: 0, lapTime: 0, sensors: [])
        }
        func fresh(_ type: HKQuantityType, _ unit: HKUnit) -> Double? {
            guard let value = figures.mostRecent[type], now.timeIntervalSince(value.date) <= LiveMonitor.freshness
            else { return nil }
            return value.quantity.doubleValue(for: unit)
        }
        let power3s =
            now.timeIntervalSince(figures.date) <= LiveMonitor.freshness
            ? figures.threeSecondPower?.doubleValue(for: .watt()) : nil
        let running = session.state == .running
        let moving = figures.elapsedTime + (running ? max(0, now.timeIntervalSince(figures.date)) : 0)
        let zones = figures.heartRateZones ?? []
        let boundaries = zones.dropLast().compactMap { $0.zone.maximum?.doubleValue(for: Self.bpm) }
        let heartRate = fresh(Self.heartRate, Self.bpm)
        // The zone of the most recent heart rate, by the library's rule for zone boundaries.
        let configuration =
            zones.isEmpty
            ? nil
            : try? HKWorkoutZoneConfiguration(
                quantityType: Self.heartRate,
                zoneBoundaries: boundaries.map { HKQuantity(unit: Self.bpm, doubleValue: $0) })
        let zone = heartRate.flatMap {
            configuration?.zone(containing: HKQuantity(unit: Self.bpm, doubleValue: $0))?.index
        }
        let types = figures.collectedTypes
        let speedUnit = HKUnit.meter().unitDivided(by: .second())
        // A run's cadence, as the recording's live view shows it (`runningCadence(at:)`, carried in the figures).
        let runs =
            !types.contains(HKQuantityType(.cyclingCadence)) && figures.mostRecent[HKQuantityType(.stepCount)] != nil
        let runningCadence =
            now.timeIntervalSince(figures.date) <= LiveMonitor.freshness
            ? figures.runningCadence?.doubleValue(for: RunningCadence.unit) : nil
        return LiveSnapshot(
            elapsed: max(0, now.timeIntervalSince(start)), moving: moving, activity: activity, paused: paused,
            heartRate: heartRate, power: fresh(Self.power, .watt()), power3s: power3s,
            cadence: runs ? runningCadence : fresh(HKQuantityType(.cyclingCadence), Self.bpm),
            cadenceUnit: runs ? "steps/min" : "rpm",
            speed: fresh(HKQuantityType(.cyclingSpeed), speedUnit) ?? fresh(HKQuantityType(.runningSpeed), speedUnit),
            showsPower: types.contains(Self.power),
            showsCadence: types.contains(HKQuantityType(.cyclingCadence)) || runs,
            showsSpeed: types.contains(HKQuantityType(.cyclingSpeed)) || types.contains(HKQuantityType(.runningSpeed)),
            zone: zone, zoneBoundaries: boundaries,
            zoneTimes: zones.isEmpty ? [0] : zones.map(\.duration),
            laps: figures.laps, lapTime: max(0, moving - figures.elapsedTimeAtLastLap),
            sensors: figures.sensors.map { LiveView.sensorLine($0, at: now) })
    }

    func takeEventLines(at local: Date) -> [String] {
        let snapshot = snapshot(at: local)
        let now = recordingTime(local)
        let figures = lock.withLock { self.figures }
        let start = session.startDate ?? figures?.startDate ?? now
        return lock.withLock {
            // A zone is reported when the heart rate first enters it (the recording reports its zone updates).
            if let zone = snapshot.zone, zone != shownZone {
                events.note("zone Z\(zone + 1)", at: now)
                shownZone = zone
            }
            events.noteSensors(figures?.sensors ?? [], at: now)
            return events.take(since: start)
        }
    }
}
