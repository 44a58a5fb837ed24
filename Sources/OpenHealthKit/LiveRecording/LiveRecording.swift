import FitnessSensors
import Foundation
import Synchronization

#if BlueZ
import BlueZDBus
import BlueZTransport
#endif

/// Records a live workout from sensors, as `workout record` does: the sensors (those paired with the store and any
/// given by address), an ``HKWorkoutSession`` with its ``HKLiveWorkoutBuilder`` and ``HKLiveWorkoutDataSource``, laps,
/// pause and resume, a smart trainer's target power or a plan that drives it (``Options/plan``), mirroring to a
/// companion, the raw notifications as a fixture, and at the end the workout saved or discarded. OpenHealthKit.
///
/// Time comes from the store: its `wallClock` dates everything, its monotonic clock paces mirroring; the sensors and
/// the trainers' requests sleep on ``Options/clock``. Nothing starts until ``start(trainerEvents:trainerChanged:planEvents:)``; an app sets
/// the builder's delegate before that to hear what is collected.
///
/// ```swift
/// var options = LiveRecording.Options()
/// options.activityType = .cycling
/// let recording = try await LiveRecording(healthStore: store, options: options)
/// try await recording.start()
/// // … recording.markLap(), recording.togglePause(), recording.changeTargetPower(by: 1) …
/// try await recording.end()
/// let workout = try await recording.save()
/// ```
public final class LiveRecording: Sendable {
    /// What to record, and how.
    public struct Options: Sendable {
        /// The workout's activity.
        public var activityType: HKWorkoutActivityType = .cycling
        /// Sensors to read besides the paired ones, by identifier (`ble:AA:BB:…`, `unix:/path`); one that is paired
        /// too keeps the name and measures it was paired with, and stands for its pairing.
        public var sensors: [String] = []
        /// Where to write what the sensors send, raw, as a fixture; nil writes none.
        public var fixturePath: String?
        /// The power to hold on a smart trainer from the start (ERG), in watts.
        public var targetPower: Int?
        /// A plan to run (its steps set the trainers' target; ``targetPower`` is then unused); nil runs none.
        public var plan: Plan?
        /// What the sensors and the trainers' requests sleep on.
        public var clock: any Clock<Duration> = ContinuousClock()
        /// The tap the sensors are given, made from the fixture's recorder (nil without a fixture): by default that
        /// recorder itself. A caller that also listens wraps it, passing everything on.
        public var tap: @Sendable ((any NotificationTap)?) -> (any NotificationTap)? = { $0 }

        public init() {}
    }

    /// How mirroring started.
    public enum MirroringStart: Sendable, Equatable {
        /// A companion is mirrored to.
        case mirroring
        /// No companion waits yet; one that comes later is mirrored to.
        case noCompanion
        /// Mirroring cannot work (the reason); the recording goes on.
        case failed(String)
    }

    public let healthStore: HKHealthStore
    public let session: HKWorkoutSession
    public let builder: HKLiveWorkoutBuilder
    public let dataSource: HKLiveWorkoutDataSource
    /// When the session starts (the store's wall clock when the recording was made).
    public let startDate: Date
    /// The names of the sensors read: those given by address first, then the other paired ones.
    public let sensorNames: [String]
    /// Where the fixture is written, if one is.
    public var fixturePath: String? { fixture?.path }

    private let options: Options
    private let fixture: FixtureRecorder?
    private struct State {
        var lastLap: Date
        var trainers: TrainerTargets?
        var mirroring: Task<Void, Never>?
        var sensorStatuses: [HKSensorStatus] = []
        var plan: PlanSession?
    }
    private let state: Mutex<State>

    /// Makes the sensors, the session, its builder and the data source; nothing starts yet.
    ///
    /// - Throws: `HKError` when there is no sensor to record from, an address does not parse, or the session cannot
    ///   be made; `FixtureError` when the fixture cannot be written.
    public init(healthStore: HKHealthStore, options: Options) async throws {
        self.healthStore = healthStore
        self.options = options
        let paired = try await healthStore.pairedSensors()
        guard !options.sensors.isEmpty || !paired.isEmpty else {
            throw HKError(.errorInvalidArgument, "There is no sensor to record from: none is paired and none given.")
        }
        let start = healthStore.wallClock()
        startDate = start
        fixture = try options.fixturePath.map { try FixtureRecorder(path: $0, start: start) }
        let attached = try Self.makeSensors(options, paired: paired, tap: options.tap(fixture), store: healthStore)
        // The paired sensors the data source connects: not those an address already reaches (it stands for them).
        let alsoPaired = paired.filter { record in !attached.contains { $0.identifier == record.identifier } }
        // Fixture ids: the sensors' identifiers, as they are unique.
        for identifier in attached.map(\.identifier) + alsoPaired.map(\.identifier) {
            fixture?.register(identifier: identifier, as: identifier)
        }
        sensorNames = attached.map(\.name) + alsoPaired.map(\.name)
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = options.activityType
        session = try HKWorkoutSession(healthStore: healthStore, configuration: configuration)
        builder = session.associatedWorkoutBuilder()
        dataSource = HKLiveWorkoutDataSource(healthStore: healthStore, workoutConfiguration: configuration)
        for sensor in attached { dataSource.attach(sensor) }
        builder.dataSource = dataSource
        state = Mutex(State(lastLap: start))
    }

    /// The sensors given by address, made with the tap on the recording's clocks; with a tap, the store's connector
    /// becomes BlueZ's with it, so that the paired sensors pass their notifications to it too.
    private static func makeSensors(
        _ options: Options, paired: [PairedSensor], tap: (any NotificationTap)?, store: HKHealthStore
    ) throws -> [any Sensor] {
        #if BlueZ
        var sensorOptions = BLESensor.Options()
        sensorOptions.tap = tap
        let clock = options.clock
        let wallClock = store.wallClock
        if tap != nil {
            store.sensorConnector = SensorConnector(schemes: ["ble", "unix"]) { [sensorOptions] paired in
                try makeBluetoothSensor(
                    identifier: paired.identifier, name: paired.name, capabilities: paired.capabilities,
                    options: sensorOptions, clock: clock, wallClock: wallClock)
            }
        }
        return try options.sensors.map { address in
            let identifier = try SensorAddress(parsing: address).identifier
            let record = paired.first { $0.identifier == identifier }
            return try makeBluetoothSensor(
                identifier: identifier, name: record?.name, capabilities: record?.capabilities,
                options: sensorOptions, clock: clock, wallClock: wallClock)
        }
        #else
        return try options.sensors.map { identifier in
            let record = paired.first { $0.identifier == identifier }
            return try store.sensorConnector.connect(
                record ?? PairedSensor(identifier: identifier, name: identifier, capabilities: []))
        }
        #endif
    }

    /// The trainers under control, once ``start(trainerEvents:trainerChanged:planEvents:)`` found them.
    public var trainers: TrainerTargets? { state.withLock { $0.trainers } }

    /// Starts the session and the builder at ``startDate``, then the trainers' control (with
    /// ``Options/targetPower``): `trainerEvents` hears what happens to them, `trainerChanged` that one changed.
    /// With ``Options/plan``, the plan starts too (its first step at ``startDate``) and `planEvents` hears it.
    public func start(
        trainerEvents: @escaping @Sendable (TrainerTargets.Event) -> Void = { _ in },
        trainerChanged: @escaping @Sendable () -> Void = {},
        planEvents: @escaping @Sendable (PlanEvent) -> Void = { _ in }
    ) async throws {
        session.startActivity(with: startDate)
        try await builder.beginCollection(at: startDate)
        let trainers = TrainerTargets(sensors: dataSource.sensors, clock: options.clock)
        state.withLock { $0.trainers = trainers }
        trainers.start(
            target: options.plan == nil ? options.targetPower : nil, events: trainerEvents, changed: trainerChanged)
        if let plan = options.plan { try await startPlan(plan, trainers: trainers, events: planEvents) }
    }

    /// Attaches the plan to the workout, reads the workout's zones for zone targets, turns power match on when asked
    /// (``Plan/powerMatch``), and starts the runner.
    private func startPlan(
        _ plan: Plan, trainers: TrainerTargets, events: @escaping @Sendable (PlanEvent) -> Void
    ) async throws {
        if let data = plan.workoutPlanData { builder.attachWorkoutPlanData(data) }
        var settings = plan.settings
        let bpm = HKUnit.count().unitDivided(by: .minute())
        if settings.powerZoneBoundaries.isEmpty {
            let zones = try? await builder.zoneConfiguration(for: HKQuantityType(.cyclingPower))
            settings.powerZoneBoundaries =
                zones?.zones.dropLast().compactMap { $0.maximum?.doubleValue(for: .watt()) } ?? []
        }
        if settings.heartRateZoneBoundaries.isEmpty {
            let zones = try? await builder.zoneConfiguration(for: HKQuantityType(.heartRate))
            settings.heartRateZoneBoundaries =
                zones?.zones.dropLast().compactMap { $0.maximum?.doubleValue(for: bpm) } ?? []
        }
        settings.powerMatch = settings.powerMatch || plan.powerMatch
        let running = PlanSession(
            plan: plan, settings: settings, start: startDate, builder: builder, trainers: trainers,
            wallClock: healthStore.wallClock,
            events: events)
        state.withLock { $0.plan = running }
        await running.start(at: startDate, clock: options.clock)
    }

    /// The running plan's figures now (the step, its target, what is left, the next), nil without a plan.
    public func planStatus(at now: Date) -> PlanRunner.Status? { state.withLock { $0.plan }?.status(at: now) }

    /// The power the running plan holds for the step under way, in watts: the step's target (shifted), within the
    /// trainers' Supported Power Range; not a point of a ramp or power match's correction. Nil without a plan or a
    /// target.
    public var planHeldTarget: Int? { state.withLock { $0.plan }?.heldTarget }

    /// Why the running plan only guides (no trainer under control), when it does.
    public var planNotice: String? { state.withLock { $0.plan }?.notice(at: healthStore.wallClock()) }

    /// Ends the plan's step under way now and begins the next. Returns now.
    @discardableResult
    public func skipStep() async -> Date {
        let now = healthStore.wallClock()
        await state.withLock { $0.plan }?.skip(at: now)
        return now
    }

    /// Pauses the session when it runs, resumes it when paused.
    public func togglePause() { session.togglePause() }

    /// Marks a lap now: a lap event from the previous lap's end (or the start) to now. Returns now.
    @discardableResult
    public func markLap() async throws -> Date {
        let now = healthStore.wallClock()
        let from = state.withLock { $0.lastLap }
        try await builder.addWorkoutEvents([HKWorkoutEvent.lap(from: from, to: now)])
        let plan = state.withLock { state in
            state.lastLap = now
            return state.plan
        }
        await plan?.lap(at: now)
        return now
    }

    /// Raises (positive) or lowers the trainers' target power by `steps` steps of ``TrainerTargets/step`` watts,
    /// from the target or, with none yet, from the 3-second power now; with a plan running, shifts the plan's power
    /// by `steps` × ``planShiftStep`` percent instead. Returns now.
    @discardableResult
    public func changeTargetPower(by steps: Int) async -> Date {
        let now = healthStore.wallClock()
        if let plan = state.withLock({ $0.plan }) {
            await plan.shift(by: steps * Self.planShiftStep, at: now)
            return now
        }
        let power = builder.threeSecondPower(at: now)?.doubleValue(for: .watt())
        trainers?.change(by: steps, from: power)
        return now
    }

    /// Whether anything was collected (a sample of any type).
    public var collectedAnything: Bool { !builder.allStatistics.isEmpty }

    /// Ends the recording now: the mirroring and the trainers' control stop, the fixture notes the end, the session
    /// ends, collection ends, the sensors are released. Returns the end date.
    @discardableResult
    public func end() async throws -> Date {
        let (mirroring, trainers, plan) = state.withLock { ($0.mirroring, $0.trainers, $0.plan) }
        mirroring?.cancel()
        let end = healthStore.wallClock()
        await plan?.end(at: end)
        trainers?.close()
        fixture?.record(.end, at: end)
        session.end()
        try await builder.endCollection(at: end)
        await Self.release(dataSource.sensors, clock: options.clock)
        // The companion hears the end and the clean stop before this program may exit (a `stop` cut off by the
        // process's exit reads as a lost recording).
        await Self.waitAtMost(Self.releaseLimit, on: options.clock) { [session] in await session.mirroringDrained() }
        await builder.waitForDelegateCalls()
        let statuses = dataSource.sensorStatuses
        state.withLock { $0.sensorStatuses = statuses }
        return end
    }

    /// The sensors' statuses when the recording ended.
    public var sensorStatuses: [HKSensorStatus] { state.withLock { $0.sensorStatuses } }

    /// Saves the ended workout and finishes the fixture (its header naming each sensor as it was read). A PostgreSQL
    /// store that does not answer is waited for (``StoreOutage``), the workout kept in memory: `waiting` hears the
    /// store's error when the wait begins.
    ///
    /// - Throws: `HKError` from the builder or when the workout could not be saved; `FixtureError` when the fixture
    ///   cannot be finished.
    public func save(
        whileTheStoreDoesNotAnswer waiting: @Sendable (HKError) -> Void = { _ in }
    ) async throws -> HKWorkout {
        guard let workout = try await builder.finishWorkoutWaitingForTheStore(waiting) else {
            throw HKError(.errorInvalidArgument, "The workout could not be saved.")
        }
        if let fixture {
            let described = dataSource.sensors.map { sensor in
                FixtureHeader.SensorDescription(
                    id: sensor.identifier, name: sensor.name, services: [], capabilities: sensor.capabilities.names,
                    deviceInformation: .init(sensor.deviceInformation))
            }
            try fixture.finish(session: .init(activity: options.activityType.name, location: nil), sensors: described)
        }
        return workout
    }

    /// Discards the ended workout.
    public func discard() { builder.discardWorkout() }

    /// How long ending a recording waits for its sensors to release what they held.
    static let releaseLimit: Duration = .seconds(10)

    /// Waits until the stopped sensors released what they held through bluetoothd (notification sessions, a link
    /// this recording made), so that a process that exits next does not leave bluetoothd holding a strap; at most
    /// ``releaseLimit`` on `clock`, whatever bluetoothd does (each of its calls has a limit of its own, too).
    private static func release(_ sensors: [any Sensor], clock: any Clock<Duration>) async {
        #if BlueZ
        let held = sensors.compactMap { $0 as? BluetoothSensor }
        guard !held.isEmpty else { return }
        await waitAtMost(releaseLimit, on: clock) {
            await withTaskGroup(of: Void.self) { group in
                for sensor in held { group.addTask { await sensor.waitUntilReleased() } }
            }
        }
        #endif
    }

    /// Runs `work`, returning when it ends or once `limit` of `clock` has passed, whichever comes first. (A wait for
    /// a task's end cannot be cancelled: whichever of the two ends first resumes this.)
    static func waitAtMost(
        _ limit: Duration, on clock: any Clock<Duration>, for work: @escaping @Sendable () async -> Void
    ) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = Mutex<CheckedContinuation<Void, Never>?>(continuation)
            let resume: @Sendable () -> Void = {
                waiting.withLock { waiting in
                    defer { waiting = nil }
                    return waiting
                }?.resume()
            }
            let timer = Task {
                guard (try? await clock.sleep(for: limit)) != nil else { return }
                resume()
            }
            Task {
                await work()
                timer.cancel()
                resume()
            }
        }
    }

    func setMirroring(_ task: Task<Void, Never>) { state.withLock { $0.mirroring = task } }
}

extension HKWorkoutEvent {
    /// A lap from `start` to `end`: a lap spans back to the previous one's end (or the workout's start).
    static func lap(from start: Date, to end: Date) -> HKWorkoutEvent {
        HKWorkoutEvent(type: .lap, dateInterval: DateInterval(start: start, end: end), metadata: nil)
    }
}

extension HKWorkoutSession {
    /// Pauses the session when it runs, resumes it when paused; does nothing in another state. OpenHealthKit.
    public func togglePause() {
        if state == .paused {
            resume()
        } else if state == .running {
            pause()
        }
    }
}
