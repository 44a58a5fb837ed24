import Foundation
import OpenHealthKit

/// What makes a plan one OpenWorkoutKit reads, writes and stores: Apple's rules where Apple states them (an
/// iteration count above 0, a goal the activity supports, legs in an order Apple accepts) and sane bounds where it
/// does not (OpenHealthKit's choice, so that a damaged or hostile file is refused instead of run). One place: the
/// `.workout` reader, `dataRepresentation`, the other plan formats and the store all ask it.
package enum WorkoutPlanChecks {
    /// Iterations of a block: 1 to 1000.
    package static let maximumIterations = 1000
    /// A step's time goal or a pacer's time: at most a day.
    package static let maximumSeconds = 86_400.0
    /// A distance goal: at most 1000 km.
    package static let maximumMetres = 1_000_000.0
    /// An energy goal: at most 10 000 kcal.
    package static let maximumKilocalories = 10_000.0
    /// A power target: at most 3000 W.
    package static let maximumWatts = 3000.0
    /// Heart-rate targets: 20 to 250 count/min.
    package static let heartRateRange = 20.0 ... 250.0
    /// A cadence target: at most 300 count/min.
    package static let maximumCadence = 300.0
    /// A speed target: at most 100 m/s.
    package static let maximumSpeed = 100.0
    /// Zones: 1 to 10.
    package static let zones = 1 ... 10

    /// The first thing wrong with `plan`, as one sentence, or nil. Alerts' values are always checked; whether an
    /// activity supports an alert only with `checkingAlerts` (Apple's reader does not check it).
    package static func problem(in plan: WorkoutPlan, checkingAlerts: Bool = false) -> String? {
        switch plan.workout {
        case .goal(let workout):
            guard SingleGoalWorkout.supportsActivity(workout.activity) else {
                return "a single-goal workout cannot be \(workout.activity.name)"
            }
            if let problem = problem(in: workout.goal) { return problem }
            guard SingleGoalWorkout.supportsGoal(workout.goal, activity: workout.activity, location: workout.location)
            else {
                return
                    "a single-goal \(workout.activity.name) workout \(placeText(workout.location))cannot have \(describe(workout.goal))"
            }
            return nil
        case .custom(let workout):
            guard CustomWorkout.supportsActivity(workout.activity) else {
                return "a custom workout cannot be \(workout.activity.name)"
            }
            var steps: [(String, WorkoutStep)] = []
            if let warmup = workout.warmup { steps.append(("the warm-up", warmup)) }
            for (blockIndex, block) in workout.blocks.enumerated() {
                let blockName = "block \(blockIndex + 1)"
                guard (1 ... maximumIterations).contains(block.iterations) else {
                    return
                        "\(blockName) repeats \(block.iterations) times; iterations must be 1 to \(maximumIterations)"
                }
                guard !block.steps.isEmpty else { return "\(blockName) has no steps" }
                for (stepIndex, step) in block.steps.enumerated() {
                    steps.append(("step \(stepIndex + 1) of \(blockName)", step.step))
                }
            }
            if let cooldown = workout.cooldown { steps.append(("the cool-down", cooldown)) }
            guard !steps.isEmpty else { return "the custom workout has no steps" }
            for (name, step) in steps {
                if let problem = problem(in: step.goal) { return "\(name): \(problem)" }
                guard CustomWorkout.supportsGoal(step.goal, activity: workout.activity, location: workout.location)
                else { return "\(name): a \(workout.activity.name) step cannot have \(describe(step.goal))" }
                if let alert = step.alert {
                    if let problem = problem(in: alert) { return "\(name): \(problem)" }
                    if checkingAlerts,
                        !CustomWorkout.supportsAlert(alert, activity: workout.activity, location: workout.location)
                    {
                        return "\(name): a \(workout.activity.name) workout cannot have this alert"
                    }
                }
            }
            return nil
        case .pacer(let workout):
            guard PacerWorkout.supportsActivity(workout.activity) else {
                return "a pacer workout cannot be \(workout.activity.name)"
            }
            return problem(in: .distance(workout.distance.value, workout.distance.unit))
                ?? problem(in: .time(workout.time.value, workout.time.unit))
        case .swimBikeRun(let workout):
            guard SwimBikeRunWorkout.supportsActivityOrdering(workout.activities) else {
                return workout.activities.isEmpty
                    ? "the swim-bike-run workout has no legs"
                    : "the swim-bike-run legs cannot come in this order (a leg repeats the one before, or swimming is not first)"
            }
            return nil
        }
    }

    static func placeText(_ location: HKWorkoutSessionLocationType) -> String {
        switch location {
        case .indoor: "indoors "
        case .outdoor: "outdoors "
        case .unknown: ""
        }
    }

    /// What is wrong with a goal's values.
    package static func problem(in goal: WorkoutGoal) -> String? {
        switch goal {
        case .open: return nil
        case .time(let value, let unit):
            return seconds(Measurement(value: value, unit: unit), "a time goal")
        case .distance(let value, let unit):
            return metres(Measurement(value: value, unit: unit), "a distance goal")
        case .energy(let value, let unit):
            let kilocalories = Measurement(value: value, unit: unit).converted(to: .kilocalories).value
            guard value.isFinite, kilocalories > 0, kilocalories <= maximumKilocalories else {
                return
                    "an energy goal must be above 0 and at most \(Int(maximumKilocalories)) kcal, not \(value) \(unit.symbol)"
            }
            return nil
        case .poolSwimDistanceWithTime(let distance, let time):
            return metres(distance, "a pool-swim distance") ?? seconds(time, "a pool-swim time")
        }
    }

    static func seconds(_ value: Measurement<UnitDuration>, _ what: String) -> String? {
        let seconds = value.converted(to: .seconds).value
        guard value.value.isFinite, seconds > 0, seconds <= maximumSeconds else {
            return "\(what) must be above 0 and at most a day, not \(value.value) \(value.unit.symbol)"
        }
        return nil
    }

    static func metres(_ value: Measurement<UnitLength>, _ what: String) -> String? {
        let metres = value.converted(to: .meters).value
        guard value.value.isFinite, metres > 0, metres <= maximumMetres else {
            return "\(what) must be above 0 and at most 1000 km, not \(value.value) \(value.unit.symbol)"
        }
        return nil
    }

    /// What is wrong with an alert's values.
    package static func problem(in alert: any WorkoutAlert) -> String? {
        func watts(_ value: Measurement<UnitPower>, allowZero: Bool) -> String? {
            let watts = value.converted(to: .watts).value
            guard watts.isFinite, allowZero ? watts >= 0 : watts > 0, watts <= maximumWatts else {
                return
                    "a power target must be \(allowZero ? "0" : "above 0") to \(Int(maximumWatts)) W, not \(format(watts)) W"
            }
            return nil
        }
        func perMinute(_ value: Measurement<UnitFrequency>) -> Double { value.converted(to: .countPerMinute).value }
        func heartRate(_ value: Measurement<UnitFrequency>) -> String? {
            let rate = perMinute(value)
            guard rate.isFinite, heartRateRange.contains(rate) else {
                return "a heart-rate target must be 20 to 250 count/min, not \(format(rate))"
            }
            return nil
        }
        func cadence(_ value: Measurement<UnitFrequency>, allowZero: Bool) -> String? {
            let rate = perMinute(value)
            guard rate.isFinite, allowZero ? rate >= 0 : rate > 0, rate <= maximumCadence else {
                return "a cadence target must be above 0 and at most 300 count/min, not \(format(rate))"
            }
            return nil
        }
        func speed(_ value: Measurement<UnitSpeed>, allowZero: Bool) -> String? {
            let speed = value.converted(to: .metersPerSecond).value
            guard speed.isFinite, allowZero ? speed >= 0 : speed > 0, speed <= maximumSpeed else {
                return "a speed target must be above 0 and at most 100 m/s, not \(format(speed)) m/s"
            }
            return nil
        }
        func zone(_ zone: Int) -> String? {
            zones.contains(zone) ? nil : "an alert's zone must be 1 to 10, not \(zone)"
        }
        switch alert {
        case let alert as PowerThresholdAlert: return watts(alert.target, allowZero: false)
        case let alert as PowerRangeAlert:
            return watts(alert.target.lowerBound, allowZero: true) ?? watts(alert.target.upperBound, allowZero: false)
        case let alert as PowerZoneAlert: return zone(alert.zone)
        case let alert as HeartRateZoneAlert: return zone(alert.zone)
        case let alert as HeartRateRangeAlert:
            return heartRate(alert.target.lowerBound) ?? heartRate(alert.target.upperBound)
        case let alert as CadenceThresholdAlert: return cadence(alert.target, allowZero: false)
        case let alert as CadenceRangeAlert:
            return cadence(alert.target.lowerBound, allowZero: true)
                ?? cadence(alert.target.upperBound, allowZero: false)
        case let alert as SpeedThresholdAlert: return speed(alert.target, allowZero: false)
        case let alert as SpeedRangeAlert:
            return speed(alert.target.lowerBound, allowZero: true) ?? speed(alert.target.upperBound, allowZero: false)
        default: return "an alert of type \(type(of: alert)) has no place in a workout plan"
        }
    }

    /// A goal in words: "a distance goal", "an energy goal".
    package static func describe(_ goal: WorkoutGoal) -> String {
        switch goal {
        case .open: "an open goal"
        case .time: "a time goal"
        case .distance: "a distance goal"
        case .energy: "an energy goal"
        case .poolSwimDistanceWithTime: "a pool-swim distance-with-time goal"
        }
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
