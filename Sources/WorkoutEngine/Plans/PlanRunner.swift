import FitnessSensors
import Foundation

/// Walks a plan's steps while a workout is recorded: which step is under way, when it ends (its time, distance or
/// energy goal; an open step at the lap key), the trainer's ERG target for it, and the alerts it watches.
/// OpenHealthKit (WorkoutKit leaves running a plan to Apple's Workout app, which never drives a trainer).
///
/// Pure: every call takes `now` and the workout's ``Progress``; what happened comes back as ``Event``s, which the
/// live recording turns into segment events, trainer targets and notes.
///
/// - A step's goal is measured from where the previous one ended: a time goal on moving time (a pause holds it), a
///   distance or energy goal on the workout's totals. A step that ends between two updates ends where its goal was
///   reached (the next one starts from there), so boundaries do not drift with the update rate.
/// - The ERG target of a step is its power (a range's middle, a threshold's value, a zone's middle), shifted by
///   ``shift`` percent, moved from the previous target over ``Settings/rampDuration`` seconds, corrected by power
///   match, rounded to a watt and clamped to ``Settings/powerRange`` (with ``Event/targetClamped(index:requested:held:)``
///   once per step).
/// - Power match (``Settings/powerMatch``): once a step's ramp and ``Settings/powerMatchSettle`` are over, the
///   relative error of the measured 3-second power integrates into a correction, a fraction of the target bounded
///   by ``Settings/powerMatchLimit``; it carries from step to step (a trainer reading 5 % high does so at every
///   power), and holds still while the power is below half the target (a rider who stopped pedalling).
/// - A zone's middle: zone 1 runs from 0 to the first boundary; the top zone, which has no upper boundary, is
///   taken as wide as the one below it.
public struct PlanRunner: Sendable {
    public let steps: [Step]
    public var settings: Settings
    /// The intensity shift in percent (GoldenCheetah's intensity): every step's power times (1 + shift/100).
    public private(set) var shift = 0

    /// The step under way, nil before ``start(at:progress:)``; `steps.count` once the plan is done.
    public private(set) var index: Int?
    /// Where the step under way began.
    private var stepStart = Mark(date: .distantPast, moving: 0, distance: 0, energy: 0)
    /// The ERG target when the step began (the ramp's start), in watts.
    private var rampFrom: Double?
    private var correction = 0.0
    private var lastMoving: TimeInterval?
    private var clampNoted = false
    private var powerSum = 0.0
    private var powerSeconds = 0.0
    private var averages: [Step.Alert.Quantity: (sum: Double, seconds: Double)] = [:]
    private var outOfRange: Set<Int> = []

    private struct Mark {
        var date: Date
        var moving: TimeInterval
        var distance: Double
        var energy: Double

        init(date: Date, moving: TimeInterval, distance: Double, energy: Double) {
            self.date = date
            self.moving = moving
            self.distance = distance
            self.energy = energy
        }

        init(_ date: Date, _ progress: Progress) {
            self.init(date: date, moving: progress.moving, distance: progress.distance, energy: progress.energy)
        }
    }

    /// A runner of `steps` (at least one).
    public init(steps: [Step], settings: Settings = Settings()) {
        self.steps = steps
        self.settings = settings
    }

    /// Whether the last step has ended.
    public var isFinished: Bool { index.map { $0 >= steps.count } ?? false }

    /// Starts the first step at `now`.
    public mutating func start(at now: Date, progress: Progress) -> [Event] {
        guard index == nil, !steps.isEmpty else { return [] }
        lastMoving = progress.moving
        return begin(0, at: Mark(now, progress), previousTarget: nil)
    }

    /// Takes the workout's progress at `now`: ends every step whose goal it reached, checks alerts, integrates
    /// power match and the step's averages.
    public mutating func update(at now: Date, progress: Progress) -> [Event] {
        guard let current = index, current < steps.count else { return [] }
        var events: [Event] = []
        let dt = max(0, progress.moving - (lastMoving ?? progress.moving))
        lastMoving = progress.moving
        accumulate(progress, over: dt, at: now)
        while let index, index < steps.count, let end = goalEnd(of: steps[index], progress: progress, now: now) {
            let target = ergTarget(at: end.date)
            events += finish(index, at: end, reason: .goal, previousTarget: target.map(Double.init))
        }
        if let index, index < steps.count {
            events += checkAlerts(index, progress: progress, at: now)
        }
        return events
    }

    /// The lap key: ends an open step (the next begins); any other step goes on. Returns what happened.
    public mutating func lap(at now: Date, progress: Progress) -> [Event] {
        guard let index, index < steps.count, steps[index].goal == .open else { return [] }
        return finish(index, at: Mark(now, progress), reason: .lap, previousTarget: ergTarget(at: now).map(Double.init))
    }

    /// Ends the step under way now and begins the next.
    public mutating func skip(at now: Date, progress: Progress) -> [Event] {
        guard let index, index < steps.count else { return [] }
        return finish(
            index, at: Mark(now, progress), reason: .skipped, previousTarget: ergTarget(at: now).map(Double.init))
    }

    /// Ends the step under way as the workout ends (its segment ends now); the plan is not finished.
    public mutating func end(at now: Date, progress: Progress) -> [Event] {
        guard let index, index < steps.count else { return [] }
        self.index = steps.count
        return [.stepEnded(index: index, start: stepStart.date, end: max(now, stepStart.date), reason: .workoutEnded)]
    }

    /// Shifts every step's power by `percent` more (negative lowers), within −50…+50 % in all.
    public mutating func shift(by percent: Int) {
        shift = min(50, max(-50, shift + percent))
    }

    /// The step's power with the shift, in watts, before ramping, matching and clamping; nil without one.
    public func plannedTarget(of index: Int) -> Double? {
        guard steps.indices.contains(index), let power = steps[index].power else { return nil }
        let base: Double?
        switch power {
        case .range(let range): base = (range.lowerBound + range.upperBound) / 2
        case .threshold(let watts): base = watts
        case .zone(let zone): base = Self.zoneMiddle(zone, boundaries: settings.powerZoneBoundaries)
        }
        return base.map { $0 * (1 + Double(shift) / 100) }
    }

    /// What the trainer is asked for at `now`, in whole watts: nil outside the plan and in a step without power.
    public func ergTarget(at now: Date) -> Int? {
        guard let index, index < steps.count, let target = plannedTarget(of: index) else { return nil }
        var watts = target
        if let from = rampFrom, settings.rampDuration > 0 {
            let fraction = min(1, max(0, now.timeIntervalSince(stepStart.date) / settings.rampDuration))
            watts = from + (target - from) * fraction
        }
        watts *= 1 + correction
        return Int(watts.clamped(to: settings.powerRange).rounded())
    }

    /// The plan's figures at `now` for a view.
    public func status(at now: Date, progress: Progress) -> Status? {
        guard let index else { return nil }
        let current = min(index, steps.count - 1)
        var status = Status(
            index: current, count: steps.count, name: steps[current].name, target: plannedTarget(of: current),
            ergTarget: ergTarget(at: now), averagePower: powerSeconds > 0 ? powerSum / powerSeconds : nil,
            next: current + 1 < steps.count ? steps[current + 1].name : nil, shift: shift,
            powerMatchCorrection: correction, finished: isFinished)
        if !isFinished {
            switch steps[current].goal {
            case .open: break
            case .time(let seconds): status.timeLeft = max(0, seconds - (progress.moving - stepStart.moving))
            case .distance(let metres): status.distanceLeft = max(0, metres - (progress.distance - stepStart.distance))
            case .energy(let kcal): status.energyLeft = max(0, kcal - (progress.energy - stepStart.energy))
            }
        }
        return status
    }

    /// Zone `zone`'s middle (from 1) of zones with these upper `boundaries`, nil when there is no such zone.
    public static func zoneMiddle(_ zone: Int, boundaries: [Double]) -> Double? {
        guard let range = zoneRange(zone, boundaries: boundaries) else { return nil }
        return (range.lowerBound + range.upperBound) / 2
    }

    /// Zone `zone`'s range (from 1); the open top zone taken as wide as the one below it.
    static func zoneRange(_ zone: Int, boundaries: [Double]) -> ClosedRange<Double>? {
        guard !boundaries.isEmpty, zone >= 1, zone <= boundaries.count + 1 else { return nil }
        let lower = zone == 1 ? 0 : boundaries[zone - 2]
        if zone <= boundaries.count { return lower ... max(lower, boundaries[zone - 1]) }
        let below = boundaries.count >= 2 ? boundaries[boundaries.count - 2] : 0
        return lower ... lower + (lower - below)
    }

    // MARK: Steps

    private mutating func finish(_ index: Int, at end: Mark, reason: EndReason, previousTarget: Double?) -> [Event] {
        var events: [Event] = [.stepEnded(index: index, start: stepStart.date, end: end.date, reason: reason)]
        events += begin(index + 1, at: end, previousTarget: previousTarget)
        return events
    }

    private mutating func begin(_ next: Int, at mark: Mark, previousTarget: Double?) -> [Event] {
        index = next
        stepStart = mark
        rampFrom = previousTarget.map { $0 / (1 + correction) }
        clampNoted = false
        powerSum = 0
        powerSeconds = 0
        averages = [:]
        outOfRange = []
        guard next < steps.count else { return [.finished(at: mark.date)] }
        var events: [Event] = [.stepStarted(index: next, at: mark.date)]
        if case .zone(let zone) = steps[next].power,
            Self.zoneMiddle(zone, boundaries: settings.powerZoneBoundaries) == nil
        {
            events.append(.noSuchZone(index: next, zone: zone))
        }
        if let target = plannedTarget(of: next) {
            let wanted = target * (1 + correction)
            if !settings.powerRange.contains(wanted) {
                clampNoted = true
                let held = wanted.clamped(to: settings.powerRange)
                events.append(.targetClamped(index: next, requested: wanted.rounded(), held: held.rounded()))
            }
        }
        return events
    }

    /// Where the step's goal was reached by `progress`, if it was.
    private func goalEnd(of step: Step, progress: Progress, now: Date) -> Mark? {
        var end = Mark(now, progress)
        switch step.goal {
        case .open: return nil
        case .time(let seconds):
            let boundary = stepStart.moving + seconds
            guard progress.moving >= boundary else { return nil }
            // Ended `overshoot` seconds ago (moving time, so a pause in between is not counted twice).
            end.date = max(stepStart.date, now - (progress.moving - boundary))
            end.moving = boundary
        case .distance(let metres):
            guard progress.distance - stepStart.distance >= metres else { return nil }
            end.distance = stepStart.distance + metres
        case .energy(let kcal):
            guard progress.energy - stepStart.energy >= kcal else { return nil }
            end.energy = stepStart.energy + kcal
        }
        return end
    }

    // MARK: Figures

    private mutating func accumulate(_ progress: Progress, over dt: TimeInterval, at now: Date) {
        guard let index, index < steps.count, dt > 0 else { return }
        if let power = progress.power {
            powerSum += power * dt
            powerSeconds += dt
        }
        for (quantity, value) in [
            (Step.Alert.Quantity.heartRate, progress.heartRate), (.cadence, progress.cadence), (.speed, progress.speed),
        ] {
            guard let value else { continue }
            averages[quantity, default: (0, 0)].sum += value * dt
            averages[quantity, default: (0, 0)].seconds += dt
        }
        // Power match, once the trainer had time to reach the step's target.
        guard settings.powerMatch, let target = plannedTarget(of: index), target > 0, let power = progress.power,
            now.timeIntervalSince(stepStart.date) >= settings.rampDuration + settings.powerMatchSettle,
            power >= target / 2
        else { return }
        let limit = settings.powerMatchLimit
        correction = min(
            limit, max(-limit, correction + settings.powerMatchGain * (target - power) / target * min(dt, 2)))
    }

    private mutating func checkAlerts(_ index: Int, progress: Progress, at now: Date) -> [Event] {
        guard now.timeIntervalSince(stepStart.date) >= settings.alertGrace else { return [] }
        var events: [Event] = []
        for (number, alert) in steps[index].alerts.enumerated() {
            let value: Double?
            switch alert.metric {
            case .current:
                switch alert.quantity {
                case .heartRate: value = progress.heartRate
                case .cadence: value = progress.cadence
                case .speed: value = progress.speed
                }
            case .average:
                value = averages[alert.quantity].flatMap { $0.seconds > 0 ? $0.sum / $0.seconds : nil }
            }
            guard let value else { continue }
            let inRange: Bool
            switch alert.bound {
            case .range(let range): inRange = range.contains(value)
            case .threshold(let minimum): inRange = value >= minimum
            case .zone(let zone):
                guard let range = Self.zoneRange(zone, boundaries: settings.heartRateZoneBoundaries) else { continue }
                inRange = range.contains(value)
            }
            let wasOut = outOfRange.contains(number)
            guard inRange == wasOut else { continue }
            if inRange { outOfRange.remove(number) } else { outOfRange.insert(number) }
            events.append(.alert(index: index, alert, value: value, outOfRange: !inRange, at: now))
        }
        return events
    }
}
