import FitnessSensors
import Foundation
import HealthKitModel
import Synchronization
import WorkoutEngine

/// Replays a fixture as a live workout: an ``HKWorkoutSession`` with its ``HKLiveWorkoutBuilder`` and an
/// ``HKLiveWorkoutDataSource`` reading `FixtureSensor`s, which decode the recorded bytes as a strap's are
/// decoded. Session actions in the file (activities, pause, resume, laps, markers, end) are carried out on the
/// session and builder as an app would. OpenHealthKit.
///
/// Fixture time is re-based onto the session start. At ``Pace/speed(_:)`` the replay sleeps on the store's
/// `clock` (1 is real time) and the store's `wallClock` runs at that speed from the start; ``Pace/instant``
/// never sleeps and sets the store's `wallClock` to fixture time (a virtual clock), starting by default at the
/// time the fixture was recorded. The store's `wallClock` is restored when the replay ends.
///
/// ```swift
/// let replay = try WorkoutReplay(fixtureAt: "fixtures/run-45min.jsonl", healthStore: store)  // checks every line
/// let workout = try await replay.run(pace: .instant)
/// ```
///
/// `@unchecked`: where a stepped replay is (`step()`) is plain state, driven by one task at a time (its `run`, or a
/// test stepping it); the rest is immutable or atomic. Not for two tasks stepping one replay at once.
public final class WorkoutReplay: @unchecked Sendable {
    public enum Pace: Sendable, Hashable {
        case instant
        /// Fixture seconds per real second.
        case speed(Double)
    }

    public let path: String
    public let summary: FixtureSummary
    public let healthStore: HKHealthStore
    public let session: HKWorkoutSession
    public let builder: HKLiveWorkoutBuilder
    public let dataSource: HKLiveWorkoutDataSource
    /// The sensors of the fixture, in header order.
    public let sensors: [FixtureSensor]
    private let progress = Atomic<Int64>(0)
    private let readingCount = Atomic<Int>(0)
    private let startDate: Date

    /// Checks the whole fixture (streaming, nothing written anywhere) and sets up the session, builder and data
    /// source. Nothing reaches the store until ``run(pace:whileTheStoreDoesNotAnswer:)``.
    ///
    /// - Parameters:
    ///   - path: The fixture file.
    ///   - healthStore: The store the workout is saved to.
    ///   - start: When the session starts; by default now, or for instant replays the recording's start.
    ///   - instant: Whether the replay runs as fast as it can (true) or at the recording's pace.
    /// - Throws: `FixtureError` for a fixture that cannot be read to its end; `HKError` from the session.
    public init(fixtureAt path: String, healthStore: HKHealthStore, start: Date? = nil, instant: Bool = true) throws {
        self.path = path
        summary = try FixtureSummary.scan(path: path)
        self.healthStore = healthStore
        let header = summary.header
        let recorded = header.startDate ?? Date(timeIntervalSince1970: 0)
        startDate = start ?? (instant ? recorded : healthStore.wallClock())
        let configuration = HKWorkoutConfiguration.fixture(header.session)!
        session = try HKWorkoutSession(healthStore: healthStore, configuration: configuration)
        builder = session.associatedWorkoutBuilder()
        dataSource = HKLiveWorkoutDataSource(healthStore: healthStore, workoutConfiguration: configuration)
        sensors = header.sensors.map { FixtureSensor($0, origin: recorded) }
        // The fixture's sensors alone: not the sensors the store has paired.
        dataSource.connectsPairedSensors = false
        for sensor in sensors { dataSource.attach(sensor) }
        builder.dataSource = dataSource
        stepping = Stepping(reader: nil, next: nil, end: startDate, lastLap: startDate)
    }

    /// Where the replay is, in fixture seconds.
    public var position: TimeInterval { Double(progress.load(ordering: .relaxed)) / 1000 }
    /// The readings the sensors have pushed so far.
    public var readings: Int { readingCount.load(ordering: .relaxed) }
    /// Notifications that did not decode and were skipped, over all sensors.
    public var malformedNotifications: Int { sensors.reduce(0) { $0 + $1.malformedNotifications } }
    /// When the session started (fixture time 0).
    public var sessionStart: Date { startDate }

    /// Replays the fixture to its end, then ends the session and saves the workout (waiting for a PostgreSQL store
    /// that does not answer, as ``finish(whileTheStoreDoesNotAnswer:)`` does).
    ///
    /// - Returns: The saved workout.
    /// - Throws: `FixtureError` if the file changed since it was checked; `HKError` from the builder.
    public func run(
        pace: Pace, whileTheStoreDoesNotAnswer waiting: @Sendable (HKError) -> Void = { _ in }
    ) async throws -> HKWorkout {
        let origin = startDate
        let previousWallClock = healthStore.wallClock
        let virtual = VirtualTime(origin)
        /// The event being taken, once its time has come.
        let reached = VirtualTime(origin)
        let clock = healthStore.clock
        let speed: Double? = if case .speed(let speed) = pace { speed } else { nil }
        if let speed {
            // Wall time runs at `speed` on the pacing clock (not the machine's: a test clock paces it too), but never
            // past the next event (a replay that falls behind, on a loaded machine or a test clock moved in large
            // steps, takes each reading at its own time, not at a later "now" that would find it stale) and never
            // before the event being taken (the pacer lets one through up to a millisecond early; the zone engine
            // asked at an earlier time than the latest reading would answer "no zone").
            let elapsed = MonotonicTime(clock)
            healthStore.wallClock = { max(min(origin + Self.seconds(elapsed.now()) * speed, virtual.now), reached.now) }
        } else {
            healthStore.wallClock = { virtual.now }
        }
        defer { healthStore.wallClock = previousWallClock }
        try await begin()
        let pacer = speed.map { Pacer(clock: clock, speed: $0) }
        var count = 0
        while let date = nextEventDate {
            virtual.set(date)
            if let pacer { try await pacer.wait(until: date.timeIntervalSince(origin)) }
            reached.set(date)
            count += 1
            if count & 2047 == 0 { await Task.yield() }
            try await step()
        }
        let endDate = stepping.end
        virtual.set(endDate)
        if speed != nil { healthStore.wallClock = { endDate } }
        return try await finish(whileTheStoreDoesNotAnswer: waiting)
    }

    // MARK: Stepping (OpenHealthKit)

    /// Where a stepped replay is.
    private struct Stepping {
        var reader: FixtureReader?
        var next: FixtureEvent?
        var end: Date
        var lastLap: Date
    }
    private var stepping: Stepping

    /// Starts the session and the builder at ``sessionStart`` and opens the fixture, for a replay driven one event
    /// at a time (a test clock moves the store's clocks between events: see `OpenHealthKitTesting`). ``run(pace:whileTheStoreDoesNotAnswer:)``
    /// does the same to the end.
    public func begin() async throws {
        session.startActivity(with: startDate)
        try await builder.beginCollection(at: startDate)
        let reader = try FixtureReader(path: path)
        stepping = Stepping(reader: reader, next: try reader.next(), end: startDate, lastLap: startDate)
    }

    /// When the next event happens, or nil when the fixture is done (or ``begin()`` was not called).
    public var nextEventDate: Date? { stepping.next.map { startDate + $0.seconds } }

    /// What the next event is, or nil at the end.
    public var nextEvent: FixtureEvent? { stepping.next }

    /// Carries out the next event — a notification decoded by its sensor, a connection change, a session action — as
    /// an app and its sensors would, at its own time. Returns false at the end of the fixture.
    @discardableResult
    public func step() async throws -> Bool {
        guard let event = stepping.next, let reader = stepping.reader else { return false }
        let date = startDate + event.seconds
        stepping.end = date
        progress.store(event.time, ordering: .relaxed)
        switch event.kind {
        case let .notification(sensor, characteristic, bytes):
            let readings = sensors[sensor].deliver(bytes, characteristic: characteristic, at: date)
            readingCount.add(readings, ordering: .relaxed)
            // A replay faster than the store waits for the journal's writer here, suspended, not blocked.
            await sensors[sensor].waitForDemand()
        case let .connection(sensor, state):
            sensors[sensor].deliver(state, at: date)
        case .action(let action):
            switch action {
            case let .beginActivity(activity, location):
                if let configuration = HKWorkoutConfiguration.fixture(activity: activity, location: location) {
                    session.beginNewActivity(configuration: configuration, date: date, metadata: nil)
                }
            case .endActivity: session.endCurrentActivity(on: date)
            case .pause: session.pause()
            case .resume: session.resume()
            case .lap:
                try await builder.addWorkoutEvents([HKWorkoutEvent.lap(from: stepping.lastLap, to: date)])
                stepping.lastLap = date
            case .marker:
                try await builder.addWorkoutEvents([
                    HKWorkoutEvent(type: .marker, dateInterval: DateInterval(start: date, duration: 0), metadata: nil)
                ])
            case .end: break
            }
        }
        stepping.next = try reader.next()
        return true
    }

    /// Ends the session at the last event's time and saves the workout. A PostgreSQL store that does not answer is
    /// waited for (``StoreOutage``), the workout kept in memory: `waiting` hears the store's error when the wait
    /// begins.
    public func finish(
        whileTheStoreDoesNotAnswer waiting: @Sendable (HKError) -> Void = { _ in }
    ) async throws -> HKWorkout {
        let end = stepping.end
        session.end()
        try await builder.endCollection(at: end)
        guard let workout = try await builder.finishWorkoutWaitingForTheStore(waiting) else {
            throw HKError(.errorInvalidArgument, "The replayed workout could not be saved.")
        }
        await session.waitForDelegateCalls()
        return workout
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// The instant replay's wall clock: fixture time, moved forward event by event.
private final class VirtualTime: Sendable {
    private let time: Mutex<Date>
    init(_ start: Date) { time = Mutex(start) }
    var now: Date { time.withLock { $0 } }
    func set(_ date: Date) { time.withLock { $0 = date } }
}

/// Sleeps on a clock so that fixture second `s` happens `s / speed` after the first call.
private final class Pacer: Sendable {
    private let sleepUntil: @Sendable (Double) async throws -> Void

    init(clock: any Clock<Duration>, speed: Double) {
        sleepUntil = Self.make(clock, speed: speed)
    }

    private static func make<C: Clock>(_ clock: C, speed: Double) -> @Sendable (Double) async throws -> Void
    where C.Duration == Duration {
        let start = clock.now
        return { seconds in
            let target = start.advanced(by: .milliseconds(Int64((seconds / speed * 1000).rounded())))
            if clock.now.duration(to: target) > .milliseconds(1) {
                try await clock.sleep(until: target, tolerance: nil)
            }
        }
    }

    func wait(until seconds: Double) async throws { try await sleepUntil(seconds) }
}
