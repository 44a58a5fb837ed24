import FitnessSensors
import Foundation
import Synchronization

extension LiveRecording {
    /// A plan to run while recording: its steps, how targets are made, how often the runner looks. OpenHealthKit.
    ///
    /// OpenWorkoutKit's `LiveRecording.Options.setWorkoutPlan(_:)` makes one from a `WorkoutPlan`.
    public struct Plan: Sendable {
        public var steps: [PlanRunner.Step]
        /// Ramps, the trainer's power range, power match; the zones are the workout's, read when it starts.
        public var settings = PlanRunner.Settings()
        /// Power match: the trainers' target corrected so that the workout's power reads the target. Turn it on when a
        /// power meter is recorded from besides the trainer: one device per measurement takes power from the meter
        /// then (a trainer's estimate ranks after it), which is what power match holds on target. Off by default: a
        /// sensor's kind is known only once it sends, and a trainer's own power needs no match.
        public var powerMatch = false
        /// How often the runner takes the workout's progress (and the trainer's target moves during a ramp).
        public var updateInterval: Duration = .milliseconds(500)
        /// The plan as a `.workout` file, saved with the workout (`HKWorkout.workoutPlan`).
        package var workoutPlanData: Data?

        public init(steps: [PlanRunner.Step]) { self.steps = steps }
    }

    /// What a running plan tells the app. OpenHealthKit.
    public enum PlanEvent: Sendable, Equatable, CustomStringConvertible {
        /// The runner's own event (a step began or ended, a target clamped, an alert, the plan done).
        case runner(PlanRunner.Event, steps: [PlanRunner.Step])
        /// Whether a trainer holds the plan's power now; without one the plan runs as guidance.
        case control(Bool)

        /// When it happened, for the runner's events that say (a step's start or end, an alert, the plan's end).
        public var date: Date? {
            guard case .runner(let event, _) = self else { return nil }
            switch event {
            case .stepStarted(_, let at), .finished(let at), .alert(_, _, _, _, let at): return at
            case .stepEnded(_, _, let end, _): return end
            case .targetClamped, .noSuchZone: return nil
            }
        }

        /// The event as one sentence.
        public var description: String {
            switch self {
            case .control(true): return "A trainer is under control: the plan sets its power."
            case .control(false): return PlanSession.guidanceNotice
            case .runner(let event, let steps):
                let name = { (index: Int) in steps.indices.contains(index) ? steps[index].name : "step \(index + 1)" }
                switch event {
                case .stepStarted(let index, _):
                    return "step \(index + 1)/\(steps.count) \(name(index)): \(steps[index].goalDescription)"
                case .stepEnded(let index, _, _, let reason):
                    return reason == .goal ? "\(name(index)) done" : "\(name(index)) ended (\(reason.rawValue))"
                case .finished: return "plan done"
                case .targetClamped(let index, let requested, let held):
                    return
                        "\(name(index)): \(Int(requested)) W is outside the trainer's range; holding \(Int(held)) W"
                case .noSuchZone(let index, let zone):
                    return "\(name(index)): there is no power zone \(zone) (set an FTP with `workout profile --ftp`)"
                case .alert(_, let alert, let value, let out, _):
                    let shown = alert.quantity == .speed ? String(format: "%.1f km/h", value * 3.6) : "\(Int(value))"
                    let which =
                        alert.metric == .average ? "average \(alert.quantity.rawValue)" : alert.quantity.rawValue
                    return out ? "\(which) \(shown) is out of range" : "\(which) \(shown) is back in range"
                }
            }
        }
    }

    /// Percent one ``changeTargetPower(by:)`` step shifts a running plan's power by.
    public static let planShiftStep = 5
}

/// A plan running in a live recording: the pure ``PlanRunner`` fed the builder's figures every update interval, its
/// steps recorded as segment events, its ERG target handed to the trainers.
final class PlanSession: Sendable {
    static let guidanceNotice = "No trainer is under control: the plan runs as guidance."

    let plan: LiveRecording.Plan
    let builder: HKLiveWorkoutBuilder
    let trainers: TrainerTargets
    let wallClock: @Sendable () -> Date
    let events: @Sendable (LiveRecording.PlanEvent) -> Void
    /// When the plan started.
    let started: Date

    private struct State {
        var runner: PlanRunner
        var sent: Int?
        var controlled: Bool?
        var task: Task<Void, Never>?
    }
    private let state: Mutex<State>

    init(
        plan: LiveRecording.Plan, settings: PlanRunner.Settings, start: Date, builder: HKLiveWorkoutBuilder,
        trainers: TrainerTargets, wallClock: @escaping @Sendable () -> Date,
        events: @escaping @Sendable (LiveRecording.PlanEvent) -> Void
    ) {
        self.plan = plan
        self.builder = builder
        self.trainers = trainers
        self.wallClock = wallClock
        self.events = events
        started = start
        state = Mutex(State(runner: PlanRunner(steps: plan.steps, settings: settings)))
    }

    /// Starts the first step at `start` and updates every interval of `clock` until ``end(at:)``.
    func start(at start: Date, clock: any Clock<Duration>) async {
        adoptTrainerRange()
        let progress = progress(at: start)
        let happened = state.withLock { $0.runner.start(at: start, progress: progress) }
        await carryOut(happened, at: start)
        let interval = plan.updateInterval
        let task = Task { [weak self] in
            while !Task.isCancelled {
                do { try await clock.sleep(for: interval) } catch { return }
                guard let self else { return }
                await self.tick()
            }
        }
        state.withLock { $0.task = task }
    }

    /// One update: the builder's figures now into the runner.
    func tick() async {
        adoptTrainerRange()
        let now = wallClock()
        let progress = progress(at: now)
        let happened = state.withLock { $0.runner.update(at: now, progress: progress) }
        await carryOut(happened, at: now)
    }

    func lap(at now: Date) async {
        let progress = progress(at: now)
        await carryOut(state.withLock { $0.runner.lap(at: now, progress: progress) }, at: now)
    }

    func skip(at now: Date) async {
        let progress = progress(at: now)
        await carryOut(state.withLock { $0.runner.skip(at: now, progress: progress) }, at: now)
    }

    func shift(by percent: Int, at now: Date) async {
        state.withLock { $0.runner.shift(by: percent) }
        await carryOut([], at: now)
    }

    /// Stops updating and records the step under way as ending at `end`.
    func end(at end: Date) async {
        let task = state.withLock { $0.task }
        task?.cancel()
        _ = await task?.value
        let progress = progress(at: end)
        await carryOut(state.withLock { $0.runner.end(at: end, progress: progress) }, at: end)
    }

    /// Keeps the runner's targets within the trainers' Supported Power Range once they have reported it (read at
    /// each connection), so that a step asking for more is held at the range's edge with a note, not refused.
    private func adoptTrainerRange() {
        guard let range = trainers.supportedPowerRange else { return }
        let watts = Double(range.lowerBound) ... Double(range.upperBound)
        state.withLock { $0.runner.settings.powerRange = watts }
    }

    /// The plan's figures at `now`.
    func status(at now: Date) -> PlanRunner.Status? {
        let progress = progress(at: now)
        var status = state.withLock { $0.runner.status(at: now, progress: progress) }
        status?.notice = notice(at: now)
        return status
    }

    /// The power the plan holds for the step under way: its target (shifted) within the trainers' range, in watts.
    /// (After the last step, the last step's, as ``status(at:)`` shows it.)
    var heldTarget: Int? {
        state.withLock { state -> Int? in
            let runner = state.runner
            guard let index = runner.index, let target = runner.plannedTarget(of: min(index, runner.steps.count - 1))
            else { return nil }
            return Int(target.clamped(to: runner.settings.powerRange).rounded())
        }
    }

    /// Why the plan only guides, when no trainer is under control.
    func notice(at now: Date) -> String? { guiding(at: now) ? Self.guidanceNotice : nil }

    private var isControlled: Bool { trainers.controls.contains { $0.state.hasControl } }

    /// Whether the plan is known to run as guidance: no trainer has control, and either every one is known to
    /// offer none or to refuse it, or ``controlGrace`` has passed since the start (a trainer connecting).
    private func guiding(at now: Date) -> Bool {
        guard !isControlled else { return false }
        let hopeless = trainers.controls.allSatisfy {
            $0.state.offersControl == false || $0.state.refusedControl != nil
        }
        return hopeless || now.timeIntervalSince(started) >= Self.controlGrace
    }

    /// Seconds a trainer has to take control at the start before the plan says it only guides.
    static let controlGrace: TimeInterval = 5

    /// Segment events for the steps that ended, the events to the app, and the trainers' target when it changed.
    private func carryOut(_ happened: [PlanRunner.Event], at now: Date) async {
        var segments: [HKWorkoutEvent] = []
        for event in happened {
            guard case .stepEnded(let index, let start, let end, _) = event else { continue }
            var metadata: [String: Any] = [
                PlanRunner.stepNameMetadataKey: plan.steps[index].name, PlanRunner.stepIndexMetadataKey: index + 1,
            ]
            if let target = state.withLock({ $0.runner.plannedTarget(of: index) }) {
                metadata[PlanRunner.targetPowerMetadataKey] = HKQuantity(unit: .watt(), doubleValue: target.rounded())
            }
            segments.append(
                HKWorkoutEvent(type: .segment, dateInterval: DateInterval(start: start, end: end), metadata: metadata))
        }
        if !segments.isEmpty { try? await builder.addWorkoutEvents(segments) }
        for event in happened { events(.runner(event, steps: plan.steps)) }
        let target = state.withLock { state -> Int? in
            let target = state.runner.ergTarget(at: now)
            guard let target, target != state.sent else { return nil }
            state.sent = target
            return target
        }
        if let target { trainers.hold(target) }
        // Said when it changes: control taken (or taken back), or the plan left to guide.
        let controlled: Bool? = isControlled ? true : guiding(at: now) ? false : nil
        guard let controlled else { return }
        let changed = state.withLock { state in
            defer { state.controlled = controlled }
            return state.controlled != controlled
        }
        if changed { events(.control(controlled)) }
    }

    /// The workout's progress at `now`, from the builder as a HealthKit app reads it.
    private func progress(at now: Date) -> PlanRunner.Progress {
        let figures = LiveWorkoutFigures(builder: builder, at: now)
        let age = LiveWorkoutSnapshot.freshness
        let sum = { (identifier: HKQuantityTypeIdentifier, unit: HKUnit) in
            self.builder.statistics(for: HKQuantityType(identifier))?.sumQuantity()?.doubleValue(for: unit) ?? 0
        }
        let distance =
            [
                HKQuantityTypeIdentifier.distanceCycling, .distanceWalkingRunning, .distanceRowing, .distanceSwimming,
            ].map { sum($0, .meter()) }.max() ?? 0
        let bpm = HKUnit.count().unitDivided(by: .minute())
        return PlanRunner.Progress(
            moving: figures.elapsedTime, distance: distance, energy: sum(.activeEnergyBurned, .kilocalorie()),
            power: figures.threeSecondPower(at: now, maximumAge: age),
            heartRate: figures.mostRecentValue(of: HKQuantityType(.heartRate), in: bpm, at: now, maximumAge: age),
            cadence: figures.cadence(at: now, maximumAge: age), speed: figures.speed(at: now, maximumAge: age))
    }
}
