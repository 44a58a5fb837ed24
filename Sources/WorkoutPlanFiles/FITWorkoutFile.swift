import FITFile
import Foundation
import OpenHealthKit
import OpenWorkoutKit

/// FIT workout files: a `file_id` of type workout (5), a `workout` message (sport, name, number of steps) and one
/// `workout_step` per step in order (Garmin's FIT profile), what Garmin devices and GoldenCheetah exchange.
///
/// Writing a custom workout: the warm-up (intensity warmup), each block's steps (active for work, recovery for
/// recovery) followed, when the block repeats, by a `repeat_until_steps_cmplt` step pointing at the block's first
/// step with the total number of iterations, then the cool-down (intensity cooldown). Goals: time in ms, distance
/// in cm, energy in kcal, open; a pool-swim goal becomes its distance (FIT has no send-off time). Targets: power
/// and heart rate as zones or custom ranges (watts + 1000, bpm + 100, as the profile offsets absolute values), a
/// threshold as a range of one value; cadence in rpm; speed in mm/s. A step without alert has target open.
/// Reading does the reverse; a range whose ends are equal is a threshold. Cycling indoors is sport cycling with
/// sub-sport indoor cycling (6).
enum FITWorkoutFile {
    static let workoutMessage: UInt16 = 26
    static let workoutStepMessage: UInt16 = 27

    enum Duration: UInt64 {
        case time = 0
        case distance = 1
        case calories = 4
        case open = 5
        case repeatUntilStepsComplete = 6
    }

    enum Target: UInt64 {
        case speed = 0
        case heartRate = 1
        case open = 2
        case cadence = 3
        case power = 4
    }

    enum Intensity: UInt64 {
        case active = 0
        case rest = 1
        case warmup = 2
        case cooldown = 3
        case recovery = 4
    }

    static let sports: [(HKWorkoutActivityType, UInt64)] = [
        (.running, 1), (.cycling, 2), (.swimming, 5), (.walking, 11), (.rowing, 15), (.hiking, 17),
        (.crossCountrySkiing, 12), (.highIntensityIntervalTraining, 62), (.yoga, 43),
    ]

    // MARK: Writing

    struct StepRecord {
        var name: String?
        var duration: Duration
        var durationValue: UInt64?
        var target: Target
        var targetValue: UInt64?
        var low: UInt64?
        var high: UInt64?
        var intensity: Intensity?
    }

    static func write(_ plan: WorkoutPlan) throws(PlanFileError) -> Data {
        guard case .custom(let custom) = plan.workout else {
            throw PlanFileError("Only a custom workout (warm-up, blocks, cool-down) can be written as a FIT workout")
        }
        var records: [StepRecord] = []
        if let warmup = custom.warmup { records.append(try record(warmup, intensity: .warmup)) }
        for block in custom.blocks {
            let first = records.count
            for interval in block.steps {
                records.append(try record(interval.step, intensity: interval.purpose == .work ? .active : .recovery))
            }
            if block.iterations > 1 {
                records.append(
                    StepRecord(
                        duration: .repeatUntilStepsComplete, durationValue: UInt64(first), target: .open,
                        targetValue: UInt64(block.iterations)))
            }
        }
        if let cooldown = custom.cooldown { records.append(try record(cooldown, intensity: .cooldown)) }
        guard records.count <= 0xFFFE else { throw PlanFileError("The plan has too many steps for a FIT file") }

        var file = FITFileBuilder()
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.fileId,
                fields: [
                    FITFieldDefinition(number: 0, size: 1, baseType: .enum),
                    FITFieldDefinition(number: 1, size: 2, baseType: .uint16),
                    FITFieldDefinition(number: 2, size: 2, baseType: .uint16),
                ]), localType: 0)
        // Type workout (5), manufacturer development (255), product 0.
        file.write([.unsigned(5), .unsigned(255), .unsigned(0)], localType: 0)
        let name = Array((custom.displayName ?? "").utf8.prefix(63))
        let sport = sports.first { $0.0 == custom.activity }?.1 ?? 0
        let subSport: UInt64 = custom.activity == .cycling && custom.location == .indoor ? 6 : 0
        file.define(
            FITMessageDefinition(
                globalMessageNumber: workoutMessage,
                fields: [
                    FITFieldDefinition(number: 4, size: 1, baseType: .enum),
                    FITFieldDefinition(number: 6, size: 2, baseType: .uint16),
                    FITFieldDefinition(number: 8, size: UInt8(name.count + 1), baseType: .string),
                    FITFieldDefinition(number: 11, size: 1, baseType: .enum),
                ]), localType: 1)
        file.write(
            [
                .unsigned(sport), .unsigned(UInt64(records.count)),
                name.isEmpty ? .invalid : .string(String(decoding: name, as: UTF8.self)), .unsigned(subSport),
            ], localType: 1)
        for (index, step) in records.enumerated() {
            let stepName = Array((step.name ?? "").utf8.prefix(63))
            file.define(
                FITMessageDefinition(
                    globalMessageNumber: workoutStepMessage,
                    fields: [
                        FITFieldDefinition(number: 254, size: 2, baseType: .uint16),
                        FITFieldDefinition(number: 0, size: UInt8(stepName.count + 1), baseType: .string),
                        FITFieldDefinition(number: 1, size: 1, baseType: .enum),
                        FITFieldDefinition(number: 2, size: 4, baseType: .uint32),
                        FITFieldDefinition(number: 3, size: 1, baseType: .enum),
                        FITFieldDefinition(number: 4, size: 4, baseType: .uint32),
                        FITFieldDefinition(number: 5, size: 4, baseType: .uint32),
                        FITFieldDefinition(number: 6, size: 4, baseType: .uint32),
                        FITFieldDefinition(number: 7, size: 1, baseType: .enum),
                    ]), localType: 2)
            func value(_ number: UInt64?) -> FITValue { number.map { .unsigned($0) } ?? .invalid }
            file.write(
                [
                    .unsigned(UInt64(index)),
                    stepName.isEmpty ? .invalid : .string(String(decoding: stepName, as: UTF8.self)),
                    .unsigned(step.duration.rawValue), value(step.durationValue), .unsigned(step.target.rawValue),
                    value(step.targetValue), value(step.low), value(step.high), value(step.intensity?.rawValue),
                ], localType: 2)
        }
        return Data(file.finish())
    }

    static func record(_ step: WorkoutStep, intensity: Intensity) throws(PlanFileError) -> StepRecord {
        var record = StepRecord(name: step.displayName, duration: .open, target: .open, intensity: intensity)
        func rounded(_ value: Double, _ what: String) throws(PlanFileError) -> UInt64 {
            guard value.isFinite, value >= 0, value < Double(UInt32.max - 1) else {
                throw PlanFileError("A step's \(what) does not fit a FIT workout step")
            }
            return UInt64(value.rounded())
        }
        switch step.goal {
        case .open: record.duration = .open
        case .time(let value, let unit):
            record.duration = .time
            record.durationValue = try rounded(
                Measurement(value: value, unit: unit).converted(to: .seconds).value * 1000, "time")
        case .distance(let value, let unit):
            record.duration = .distance
            record.durationValue = try rounded(
                Measurement(value: value, unit: unit).converted(to: .meters).value * 100, "distance")
        case .poolSwimDistanceWithTime(let distance, _):
            record.duration = .distance
            record.durationValue = try rounded(distance.converted(to: .meters).value * 100, "distance")
        case .energy(let value, let unit):
            record.duration = .calories
            record.durationValue = try rounded(
                Measurement(value: value, unit: unit).converted(to: .kilocalories).value, "energy")
        }
        func range(_ low: Double, _ high: Double, offset: Double, scale: Double = 1) throws(PlanFileError) {
            record.targetValue = 0
            record.low = try rounded(low * scale + offset, "target")
            record.high = try rounded(high * scale + offset, "target")
        }
        let perMinute = WorkoutAlertMetric.countPerMinute
        switch step.alert {
        case nil: break
        case let alert as PowerThresholdAlert:
            record.target = .power
            let watts = alert.target.converted(to: .watts).value
            try range(watts, watts, offset: 1000)
        case let alert as PowerRangeAlert:
            record.target = .power
            try range(
                alert.target.lowerBound.converted(to: .watts).value,
                alert.target.upperBound.converted(to: .watts).value,
                offset: 1000)
        case let alert as PowerZoneAlert:
            record.target = .power
            record.targetValue = UInt64(clamping: alert.zone)
        case let alert as HeartRateZoneAlert:
            record.target = .heartRate
            record.targetValue = UInt64(clamping: alert.zone)
        case let alert as HeartRateRangeAlert:
            record.target = .heartRate
            try range(
                alert.target.lowerBound.converted(to: perMinute).value,
                alert.target.upperBound.converted(to: perMinute).value, offset: 100)
        case let alert as CadenceThresholdAlert:
            record.target = .cadence
            let rpm = alert.target.converted(to: perMinute).value
            try range(rpm, rpm, offset: 0)
        case let alert as CadenceRangeAlert:
            record.target = .cadence
            try range(
                alert.target.lowerBound.converted(to: perMinute).value,
                alert.target.upperBound.converted(to: perMinute).value, offset: 0)
        case let alert as SpeedThresholdAlert:
            record.target = .speed
            let speed = alert.target.converted(to: .metersPerSecond).value
            try range(speed, speed, offset: 0, scale: 1000)
        case let alert as SpeedRangeAlert:
            record.target = .speed
            try range(
                alert.target.lowerBound.converted(to: .metersPerSecond).value,
                alert.target.upperBound.converted(to: .metersPerSecond).value, offset: 0, scale: 1000)
        default:
            throw PlanFileError("A step has a target a FIT workout cannot hold")
        }
        return record
    }

    // MARK: Reading

    static func read(_ data: Data) throws(PlanFileError) -> WorkoutPlan {
        let messages: [FITMessage]
        do {
            messages = try FITDecoder.messages([UInt8](data))
        } catch {
            throw PlanFileError("is not a readable FIT file: \(error)")
        }
        guard let fileID = messages.first(where: { $0.globalMessageNumber == FITMessageNumber.fileId }) else {
            throw PlanFileError("is a FIT file without a file_id message")
        }
        guard fileID.value(0) == 5 else {
            throw PlanFileError(
                "is a FIT file of type \(fileID.value(0).map { String(Int($0)) } ?? "unknown"), not a workout (5)")
        }
        guard let workout = messages.first(where: { $0.globalMessageNumber == workoutMessage }) else {
            throw PlanFileError("is a FIT workout file without a workout message")
        }
        let sport = workout.value(4).map { UInt64($0) } ?? 0
        let activity = sports.first { $0.1 == sport }?.0 ?? .other
        let location: HKWorkoutSessionLocationType = activity == .cycling && workout.value(11) == 6 ? .indoor : .unknown
        let name = workout.string(8)
        var steps = messages.filter { $0.globalMessageNumber == workoutStepMessage }
        steps.sort { ($0.value(254) ?? 0) < ($1.value(254) ?? 0) }
        guard !steps.isEmpty else { throw PlanFileError("has no steps") }

        var warmup: WorkoutStep?
        var cooldown: WorkoutStep?
        var blocks: [IntervalBlock] = []
        var pending: [IntervalStep] = []
        /// The file index of each pending step.
        var pendingIndices: [Int] = []
        for (index, message) in steps.enumerated() {
            let place = "step \(index + 1)"
            guard let durationRaw = message.value(1), let duration = Duration(rawValue: UInt64(durationRaw)) else {
                throw PlanFileError(
                    "\(place) has a duration type this reader does not know (\(message.value(1).map { String(Int($0)) } ?? "none"))"
                )
            }
            if duration == .repeatUntilStepsComplete {
                guard let from = message.value(2).map({ Int($0) }), let count = message.value(4) else {
                    throw PlanFileError("\(place) repeats without saying which steps or how often")
                }
                guard let start = pendingIndices.firstIndex(of: from) else {
                    throw PlanFileError(
                        "\(place) repeats from step \(from + 1), which is not a plain step before it (nested repeats are not read)"
                    )
                }
                if start > 0 { blocks.append(IntervalBlock(steps: Array(pending[..<start]), iterations: 1)) }
                blocks.append(IntervalBlock(steps: Array(pending[start...]), iterations: Int(min(count, 1e9))))
                pending = []
                pendingIndices = []
                continue
            }
            let step = try workoutStep(message, duration: duration, place: place)
            let intensity = message.value(7).map { UInt64($0) }.flatMap(Intensity.init(rawValue:))
            if intensity == .warmup, index == 0 {
                warmup = step
            } else if intensity == .cooldown, index == steps.count - 1 {
                cooldown = step
            } else {
                pending.append(
                    IntervalStep(intensity == .recovery || intensity == .rest ? .recovery : .work, step: step))
                pendingIndices.append(Int(message.value(254) ?? Double(index)))
            }
        }
        if !pending.isEmpty { blocks.append(IntervalBlock(steps: pending, iterations: 1)) }
        return WorkoutPlan(
            .custom(
                CustomWorkout(
                    activity: activity, location: location, displayName: name, warmup: warmup, blocks: blocks,
                    cooldown: cooldown)))
    }

    static func workoutStep(
        _ message: FITMessage, duration: Duration, place: String
    ) throws(PlanFileError)
        -> WorkoutStep
    {
        let goal: WorkoutGoal
        let value = message.value(2)
        switch duration {
        case .time:
            guard let value else { throw PlanFileError("\(place) has a time goal without a time") }
            goal = .time(value / 1000, .seconds)
        case .distance:
            guard let value else { throw PlanFileError("\(place) has a distance goal without a distance") }
            goal = .distance(value / 100, .meters)
        case .calories:
            guard let value else { throw PlanFileError("\(place) has an energy goal without an energy") }
            goal = .energy(value, .kilocalories)
        case .open, .repeatUntilStepsComplete:
            goal = .open
        }
        let targetRaw = message.value(3).map { UInt64($0) } ?? Target.open.rawValue
        guard let target = Target(rawValue: targetRaw) else {
            throw PlanFileError("\(place) has a target type this reader does not know (\(targetRaw))")
        }
        let zone = message.value(4).map { Int($0) } ?? 0
        let low = message.value(5)
        let high = message.value(6)
        func bounds(offset: Double, scale: Double = 1) throws(PlanFileError) -> (Double, Double) {
            guard let low, let high else { throw PlanFileError("\(place) has a custom target without its range") }
            guard low >= offset, high >= low else {
                throw PlanFileError("\(place) has a target range that is not absolute or not in order")
            }
            return ((low - offset) / scale, (high - offset) / scale)
        }
        var alert: (any WorkoutAlert)?
        switch target {
        case .open: alert = nil
        case .power:
            if zone > 0 {
                alert = PowerZoneAlert(zone: zone)
            } else {
                let (lower, upper) = try bounds(offset: 1000)
                alert = lower == upper ? .power(lower, unit: .watts) : .power(lower ... upper, unit: .watts)
            }
        case .heartRate:
            if zone > 0 {
                alert = HeartRateZoneAlert(zone: zone)
            } else {
                let (lower, upper) = try bounds(offset: 100)
                alert = .heartRate(lower ... upper)
            }
        case .cadence:
            let (lower, upper) = try bounds(offset: 0)
            alert = lower == upper ? .cadence(lower) : .cadence(lower ... upper)
        case .speed:
            let (lower, upper) = try bounds(offset: 0, scale: 1000)
            alert =
                lower == upper
                ? .speed(lower, unit: .metersPerSecond) : .speed(lower ... upper, unit: .metersPerSecond)
        }
        return WorkoutStep(goal: goal, alert: alert, displayName: message.string(0))
    }
}
