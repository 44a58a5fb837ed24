import ByteCoding
import Foundation
import OpenHealthKit

extension WorkoutPlanCoding {
    /// Reads a `.workout` file; then checks the plan as Apple's reader does (``WorkoutPlanChecks``).
    static func decode(_ bytes: [UInt8]) throws(DecodeError) -> WorkoutPlan {
        guard !bytes.isEmpty else { throw DecodeError("the file is empty, not a workout plan", at: 0) }
        let message = try ProtoMessage(bytes, range: 0 ..< bytes.count, schema: plan)
        if let version = message.varint(1000), version != majorVersion {
            throw DecodeError(
                "the plan's format version is \(version); OpenWorkoutKit reads version \(majorVersion)",
                at: message.offset(of: 1000))
        }
        guard let idText = try message.string(9) else { throw DecodeError("the workout plan has no id", at: 0) }
        guard let id = UUID(uuidString: idText) else {
            throw DecodeError("the workout plan's id '\(idText.prefix(40))' is not a UUID", at: message.offset(of: 9))
        }
        let kinds = [10, 11, 13, 14].filter { message.has($0) }
        guard kinds.count == 1, let kind = kinds.first else {
            throw DecodeError(
                kinds.isEmpty
                    ? "the workout plan holds no workout (single-goal, custom, pacer or swim-bike-run)"
                    : "the workout plan holds more than one workout", at: 0)
        }
        let workout: WorkoutPlan.Workout
        switch kind {
        case 10:
            let body = try message.required(10, singleGoal, "single-goal workout")
            workout = .goal(
                SingleGoalWorkout(
                    activity: try activity(body), location: try location(body),
                    swimmingLocation: try swimmingLocation(body, field: 3),
                    goal: try decodeGoal(try body.required(4, goal, "goal"))))
        case 11:
            let body = try message.required(11, custom, "custom workout")
            workout = .custom(
                CustomWorkout(
                    activity: try activity(body), location: try location(body), displayName: try body.string(3),
                    warmup: try body.message(4, step).map { (step) throws(DecodeError) in try decodeStep(step) },
                    blocks: try decodeBlocks(body),
                    cooldown: try body.message(6, step).map { (step) throws(DecodeError) in try decodeStep(step) }))
        case 13:
            let body = try message.required(13, pacer, "pacer workout")
            workout = .pacer(
                PacerWorkout(
                    activity: try activity(body), location: try location(body),
                    distance: try length(try body.required(3, quantity, "distance")),
                    time: try duration(try body.required(4, quantity, "time"))))
        default:
            let body = try message.required(14, swimBikeRun, "swim-bike-run workout")
            var legs: [SwimBikeRunWorkout.Activity] = []
            for leg in try body.messages(1, self.leg) { legs.append(try decodeLeg(leg)) }
            workout = .swimBikeRun(SwimBikeRunWorkout(activities: legs, displayName: try body.string(2)))
        }
        let plan = WorkoutPlan(workout, id: id)
        if let problem = WorkoutPlanChecks.problem(in: plan, checkingAlerts: false) {
            throw DecodeError(problem, at: message.offset(of: kind))
        }
        return plan
    }

    static func activity(_ message: ProtoMessage) throws(DecodeError) -> HKWorkoutActivityType {
        let raw = try message.required(1, "activity")
        guard let activity = HKWorkoutActivityType(rawValue: UInt(clamping: raw)) else {
            throw DecodeError(
                "\(message.schema.name)'s activity \(raw) is not a HealthKit activity type", at: message.offset(of: 1))
        }
        return activity
    }

    static func location(_ message: ProtoMessage) throws(DecodeError) -> HKWorkoutSessionLocationType {
        guard let raw = message.varint(2) else { return .unknown }
        guard raw <= 3, let location = HKWorkoutSessionLocationType(rawValue: Int(raw)) else {
            throw DecodeError(
                "\(message.schema.name)'s location \(raw) is not a session location", at: message.offset(of: 2))
        }
        return location
    }

    static func swimmingLocation(
        _ message: ProtoMessage, field: Int
    ) throws(DecodeError)
        -> HKWorkoutSwimmingLocationType
    {
        guard let raw = message.varint(field) else { return .unknown }
        guard raw <= 2, let location = HKWorkoutSwimmingLocationType(rawValue: Int(raw)) else {
            throw DecodeError(
                "\(message.schema.name)'s swimming location \(raw) is not a swimming location",
                at: message.offset(of: field))
        }
        return location
    }

    static func decodeLeg(_ message: ProtoMessage) throws(DecodeError) -> SwimBikeRunWorkout.Activity {
        let activity = try activity(message)
        switch activity {
        case .swimming: return .swimming(try swimmingLocation(message, field: 3))
        case .cycling: return .cycling(try location(message))
        case .running: return .running(try location(message))
        default:
            throw DecodeError(
                "a swim-bike-run leg is \(activity.name), not swimming, cycling or running", at: message.offset(of: 1))
        }
    }

    static func decodeBlocks(_ body: ProtoMessage) throws(DecodeError) -> [IntervalBlock] {
        var blocks: [IntervalBlock] = []
        for blockMessage in try body.messages(5, block) {
            var steps: [IntervalStep] = []
            for stepMessage in try blockMessage.messages(1, intervalStep) {
                let purpose: IntervalStep.Purpose
                switch try stepMessage.required(1, "purpose") {
                case 1: purpose = .work
                case 2: purpose = .recovery
                case let other:
                    throw DecodeError(
                        "an interval step's purpose \(other) is neither work (1) nor recovery (2)",
                        at: stepMessage.offset(of: 1))
                }
                steps.append(IntervalStep(purpose, step: try decodeStep(try stepMessage.required(2, step, "step"))))
            }
            let iterations = try blockMessage.required(2, "iteration count")
            guard iterations <= UInt64(Int32.max) else {
                throw DecodeError(
                    "an interval block repeats \(iterations) times, more than \(WorkoutPlanChecks.maximumIterations)",
                    at: blockMessage.offset(of: 2))
            }
            blocks.append(IntervalBlock(steps: steps, iterations: Int(iterations)))
        }
        return blocks
    }

    static func decodeStep(_ message: ProtoMessage) throws(DecodeError) -> WorkoutStep {
        WorkoutStep(
            goal: try decodeGoal(try message.required(1, goal, "goal")),
            alert: try message.message(2, alert).map { (alert) throws(DecodeError) in try decodeAlert(alert) },
            displayName: try message.string(3))
    }

    static func decodeGoal(_ message: ProtoMessage) throws(DecodeError) -> WorkoutGoal {
        let kind = try message.required(1, "kind")
        let expected: Int? = [1: 2, 2: 3, 3: 4, 4: nil, 5: 5][kind] ?? -1
        guard expected != -1 else {
            throw DecodeError(
                "a goal's kind \(kind) is not time, energy, distance, open or pool swim", at: message.start)
        }
        for field in 2 ... 5 where field != expected && message.has(field) {
            throw DecodeError(
                "a goal of kind \(kind) holds field \(field), which belongs to another kind",
                at: message.offset(of: field))
        }
        switch kind {
        case 1:
            let value = try duration(try message.required(2, quantity, "time"))
            return .time(value.value, value.unit)
        case 2:
            let value = try energy(try message.required(3, quantity, "energy"))
            return .energy(value.value, value.unit)
        case 3:
            let value = try length(try message.required(4, quantity, "distance"))
            return .distance(value.value, value.unit)
        case 4:
            return .open
        default:
            let pool = try message.required(5, poolSwim, "pool-swim distance and time")
            return .poolSwimDistanceWithTime(
                try length(try pool.required(1, quantity, "distance")),
                try duration(try pool.required(2, quantity, "time")))
        }
    }

    static func quantity<U: Dimension>(
        _ message: ProtoMessage, _ units: [(U, UInt64)], _ what: String
    )
        throws(DecodeError) -> Measurement<U>
    {
        let number = try message.required(1, "unit")
        guard let unit = units.first(where: { $0.1 == number })?.0 else {
            throw DecodeError("a \(what)'s unit \(number) is not one of Apple's", at: message.offset(of: 1))
        }
        let value = message.double(2) ?? 0
        guard value.isFinite else { throw DecodeError("a \(what) is not a finite number", at: message.offset(of: 2)) }
        return Measurement(value: value, unit: unit)
    }

    static func length(_ message: ProtoMessage) throws(DecodeError) -> Measurement<UnitLength> {
        try quantity(message, lengthUnits, "distance")
    }

    static func duration(_ message: ProtoMessage) throws(DecodeError) -> Measurement<UnitDuration> {
        try quantity(message, durationUnits, "time")
    }

    static func energy(_ message: ProtoMessage) throws(DecodeError) -> Measurement<UnitEnergy> {
        try quantity(message, energyUnits, "energy")
    }

    // MARK: Alerts

    static func decodeAlert(_ message: ProtoMessage) throws(DecodeError) -> any WorkoutAlert {
        let target = try message.required(1, "target type")
        let kindNumber = try message.required(2, "target kind")
        guard let kind = AlertKind(rawValue: kindNumber) else {
            throw DecodeError(
                "an alert's kind \(kindNumber) is not a threshold, range or zone", at: message.offset(of: 2))
        }
        let contents = [4, 5, 6, 7].filter { message.has($0) }
        guard contents.count == 1, let field = contents.first else {
            throw DecodeError(
                "an alert must hold exactly one of speed, cadence, power or heart rate", at: message.start)
        }
        let expectedField: Int
        switch target {
        case 1, 2: expectedField = 4
        case 3: expectedField = 5
        case 4, 6: expectedField = 6
        case 5: expectedField = 7
        default:
            throw DecodeError("an alert's target type \(target) is not one of Apple's", at: message.offset(of: 1))
        }
        guard field == expectedField else {
            throw DecodeError(
                "an alert's target type \(target) does not match what it holds", at: message.offset(of: field))
        }
        let metric: WorkoutAlertMetric = (target == 1 || target == 6) ? .average : .current
        func mismatch() -> DecodeError {
            DecodeError("an alert of kind \(kindNumber) does not hold that kind's value", at: message.offset(of: field))
        }
        switch field {
        case 6:
            let content = try message.required(6, powerAlert, "power")
            switch kind {
            case .threshold:
                guard let value = try content.message(1, quantity) else { throw mismatch() }
                return PowerThresholdAlert(target: try power(value), metric: metric)
            case .range:
                guard let bounds = try content.message(2, range("a power range")) else { throw mismatch() }
                return PowerRangeAlert(
                    target: try ordered(
                        try power(try bounds.required(1, quantity, "minimum")),
                        try power(try bounds.required(2, quantity, "maximum")), bounds),
                    metric: metric)
            case .zone:
                guard let zone = try content.message(3, self.zone) else { throw mismatch() }
                return PowerZoneAlert(zone: try zoneNumber(zone))
            }
        case 7:
            let content = try message.required(7, heartRateAlert, "heart rate")
            switch kind {
            case .zone:
                guard let zone = try content.message(1, self.zone) else { throw mismatch() }
                return HeartRateZoneAlert(zone: try zoneNumber(zone))
            case .range:
                guard let bounds = try content.message(2, range("a heart-rate range")) else { throw mismatch() }
                return HeartRateRangeAlert(
                    target: try ordered(
                        try beats(try bounds.required(1, heartRateValue, "minimum")),
                        try beats(try bounds.required(2, heartRateValue, "maximum")), bounds))
            case .threshold:
                throw mismatch()
            }
        case 4:
            let content = try message.required(4, thresholdOrRange("a speed alert"), "speed")
            switch kind {
            case .threshold:
                guard let value = try content.message(1, rate("a speed")) else { throw mismatch() }
                return SpeedThresholdAlert(target: try speed(value), metric: metric)
            case .range:
                guard let bounds = try content.message(2, range("a speed range")) else { throw mismatch() }
                return SpeedRangeAlert(
                    target: try ordered(
                        try speed(try bounds.required(1, rate("a speed"), "minimum")),
                        try speed(try bounds.required(2, rate("a speed"), "maximum")), bounds),
                    metric: metric)
            case .zone:
                throw mismatch()
            }
        default:
            let content = try message.required(5, thresholdOrRange("a cadence alert"), "cadence")
            switch kind {
            case .threshold:
                guard let value = try content.message(1, cadenceValue) else { throw mismatch() }
                return CadenceThresholdAlert(target: try cadence(value))
            case .range:
                guard let bounds = try content.message(2, range("a cadence range")) else { throw mismatch() }
                return CadenceRangeAlert(
                    target: try ordered(
                        try cadence(try bounds.required(1, cadenceValue, "minimum")),
                        try cadence(try bounds.required(2, cadenceValue, "maximum")), bounds))
            case .zone:
                throw mismatch()
            }
        }
    }

    static func ordered<U: Dimension>(
        _ low: Measurement<U>, _ high: Measurement<U>, _ message: ProtoMessage
    )
        throws(DecodeError) -> ClosedRange<Measurement<U>>
    {
        guard low <= high else {
            throw DecodeError("\(message.schema.name) has its minimum above its maximum", at: message.start)
        }
        return low ... high
    }

    static func zoneNumber(_ message: ProtoMessage) throws(DecodeError) -> Int {
        let zone = message.varint(1) ?? 0
        guard zone <= 1000 else { throw DecodeError("an alert's zone \(zone) is not a zone", at: message.start) }
        return Int(zone)
    }

    static func power(_ message: ProtoMessage) throws(DecodeError) -> Measurement<UnitPower> {
        let unit = try message.required(1, "unit")
        guard unit == 1 else {
            throw DecodeError("a power's unit \(unit) is not watts (1)", at: message.offset(of: 1))
        }
        let value = message.double(2) ?? 0
        guard value.isFinite else { throw DecodeError("a power is not a finite number", at: message.offset(of: 2)) }
        return Measurement(value: value, unit: .watts)
    }

    static func beats(_ message: ProtoMessage) throws(DecodeError) -> Measurement<UnitFrequency> {
        let value = message.double(1) ?? 0
        guard value.isFinite else { throw DecodeError("a heart rate is not a finite number", at: message.start) }
        return Measurement(value: value, unit: .countPerMinute)
    }

    /// A speed read back in the unit it was written from: metres per 1 second as m/s, kilometres or miles per
    /// 1 hour as km/h or mph; anything else as m/s.
    static func speed(_ message: ProtoMessage) throws(DecodeError) -> Measurement<UnitSpeed> {
        let distance = try length(try message.required(1, quantity, "distance"))
        let time = try duration(try message.required(2, quantity, "time"))
        if time.value == 1 && time.unit == .hours && distance.unit == .kilometers {
            return Measurement(value: distance.value, unit: .kilometersPerHour)
        }
        if time.value == 1 && time.unit == .hours && distance.unit == .miles {
            return Measurement(value: distance.value, unit: .milesPerHour)
        }
        let seconds = time.converted(to: .seconds).value
        guard seconds > 0 else { throw DecodeError("a speed's time is not above zero", at: message.start) }
        return Measurement(value: distance.converted(to: .meters).value / seconds, unit: .metersPerSecond)
    }

    static func cadence(_ message: ProtoMessage) throws(DecodeError) -> Measurement<UnitFrequency> {
        let count = message.varint(1) ?? 0
        let time = try duration(try message.required(2, quantity, "time"))
        let minutes = time.converted(to: .minutes).value
        guard minutes > 0, count <= 100_000 else {
            throw DecodeError("a cadence is not a count over a time above zero", at: message.start)
        }
        return Measurement(value: Double(count) / minutes, unit: .countPerMinute)
    }
}
