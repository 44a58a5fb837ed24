import ByteCoding
import Foundation
import OpenHealthKit

/// `.workout` files: one protocol-buffers message, Apple's `apple.workout.WorkoutPlan`, written field by field in
/// increasing number as Apple's encoder writes it (the layout, with its sources, is in the catalog's
/// "The .workout file" article). Quantities keep the unit they were given; nil names are left out, empty ones kept.
enum WorkoutPlanCoding {
    // MARK: Field numbers and enums

    static let majorVersion: UInt64 = 1
    static let privateVersion: UInt64 = 5

    static let lengthUnits: [(UnitLength, UInt64)] = [
        (.meters, 1), (.kilometers, 2), (.feet, 3), (.yards, 4), (.miles, 5),
    ]
    static let durationUnits: [(UnitDuration, UInt64)] = [(.seconds, 1), (.minutes, 2), (.hours, 3)]
    static let energyUnits: [(UnitEnergy, UInt64)] = [(.kilocalories, 1), (.kilojoules, 2)]

    // MARK: Schemas

    typealias Schema = ProtoMessage.Schema
    static let plan = Schema(
        name: "the workout plan",
        fields: [
            9: (.lengthDelimited, false), 10: (.lengthDelimited, false), 11: (.lengthDelimited, false),
            13: (.lengthDelimited, false), 14: (.lengthDelimited, false), 1000: (.varint, false),
            1001: (.varint, false), 1002: (.varint, false),
        ])
    static let singleGoal = Schema(
        name: "the single-goal workout",
        fields: [1: (.varint, false), 2: (.varint, false), 3: (.varint, false), 4: (.lengthDelimited, false)])
    static let custom = Schema(
        name: "the custom workout",
        fields: [
            1: (.varint, false), 2: (.varint, false), 3: (.lengthDelimited, false), 4: (.lengthDelimited, false),
            5: (.lengthDelimited, true), 6: (.lengthDelimited, false),
        ])
    static let pacer = Schema(
        name: "the pacer workout",
        fields: [1: (.varint, false), 2: (.varint, false), 3: (.lengthDelimited, false), 4: (.lengthDelimited, false)])
    static let swimBikeRun = Schema(
        name: "the swim-bike-run workout", fields: [1: (.lengthDelimited, true), 2: (.lengthDelimited, false)])
    static let leg = Schema(
        name: "a swim-bike-run leg", fields: [1: (.varint, false), 2: (.varint, false), 3: (.varint, false)])
    static let block = Schema(name: "an interval block", fields: [1: (.lengthDelimited, true), 2: (.varint, false)])
    static let intervalStep = Schema(
        name: "an interval step", fields: [1: (.varint, false), 2: (.lengthDelimited, false)])
    static let step = Schema(
        name: "a workout step",
        fields: [1: (.lengthDelimited, false), 2: (.lengthDelimited, false), 3: (.lengthDelimited, false)])
    static let goal = Schema(
        name: "a goal",
        fields: [
            1: (.varint, false), 2: (.lengthDelimited, false), 3: (.lengthDelimited, false),
            4: (.lengthDelimited, false), 5: (.lengthDelimited, false),
        ])
    static let quantity = Schema(name: "a quantity", fields: [1: (.varint, false), 2: (.fixed64, false)])
    static let poolSwim = Schema(
        name: "a pool-swim goal", fields: [1: (.lengthDelimited, false), 2: (.lengthDelimited, false)])
    static let alert = Schema(
        name: "an alert",
        fields: [
            1: (.varint, false), 2: (.varint, false), 4: (.lengthDelimited, false), 5: (.lengthDelimited, false),
            6: (.lengthDelimited, false), 7: (.lengthDelimited, false),
        ])
    static let powerAlert = Schema(
        name: "a power alert",
        fields: [1: (.lengthDelimited, false), 2: (.lengthDelimited, false), 3: (.lengthDelimited, false)])
    static let heartRateAlert = Schema(
        name: "a heart-rate alert", fields: [1: (.lengthDelimited, false), 2: (.lengthDelimited, false)])
    static func thresholdOrRange(_ name: String) -> Schema {
        Schema(name: name, fields: [1: (.lengthDelimited, false), 2: (.lengthDelimited, false)])
    }
    static func range(_ name: String) -> Schema {
        Schema(name: name, fields: [1: (.lengthDelimited, false), 2: (.lengthDelimited, false)])
    }
    static let zone = Schema(name: "a zone", fields: [1: (.varint, false)])
    static let heartRateValue = Schema(name: "a heart rate", fields: [1: (.fixed64, false)])
    static func rate(_ name: String) -> Schema {
        Schema(name: name, fields: [1: (.lengthDelimited, false), 2: (.lengthDelimited, false)])
    }
    static let cadenceValue = Schema(
        name: "a cadence", fields: [1: (.varint, false), 2: (.lengthDelimited, false)])

    // MARK: Encoding

    static func encode(_ plan: WorkoutPlan) -> [UInt8] {
        var writer = ProtoWriter()
        writer.field(9, string: plan.id.uuidString)
        switch plan.workout {
        case .goal(let workout):
            writer.field(10) { message in
                message.field(1, varint: UInt64(workout.activity.rawValue))
                location(workout.location, into: &message)
                if workout.swimmingLocation != .unknown {
                    message.field(3, varint: UInt64(workout.swimmingLocation.rawValue))
                }
                message.field(4) { encode(workout.goal, into: &$0) }
            }
        case .custom(let workout):
            writer.field(11) { message in
                message.field(1, varint: UInt64(workout.activity.rawValue))
                location(workout.location, into: &message)
                if let name = workout.displayName { message.field(3, string: name) }
                if let warmup = workout.warmup { message.field(4) { encode(warmup, into: &$0) } }
                for block in workout.blocks {
                    message.field(5) { blockMessage in
                        for interval in block.steps {
                            blockMessage.field(1) { stepMessage in
                                stepMessage.field(1, varint: interval.purpose == .work ? 1 : 2)
                                stepMessage.field(2) { encode(interval.step, into: &$0) }
                            }
                        }
                        blockMessage.field(2, varint: UInt64(clamping: max(block.iterations, 0)))
                    }
                }
                if let cooldown = workout.cooldown { message.field(6) { encode(cooldown, into: &$0) } }
            }
        case .pacer(let workout):
            writer.field(13) { message in
                message.field(1, varint: UInt64(workout.activity.rawValue))
                location(workout.location, into: &message)
                message.field(3) { length(workout.distance, into: &$0) }
                message.field(4) { duration(workout.time, into: &$0) }
            }
        case .swimBikeRun(let workout):
            writer.field(14) { message in
                for leg in workout.activities {
                    message.field(1) { legMessage in
                        legMessage.field(1, varint: UInt64(leg.activityType.rawValue))
                        switch leg {
                        case .swimming(let place):
                            legMessage.field(2, varint: UInt64(HKWorkoutSessionLocationType.unknown.rawValue))
                            legMessage.field(3, varint: UInt64(place.rawValue))
                        case .cycling(let place), .running(let place):
                            legMessage.field(2, varint: UInt64(place.rawValue))
                            legMessage.field(3, varint: 0)
                        }
                    }
                }
                if let name = workout.displayName { message.field(2, string: name) }
            }
        }
        writer.field(1000, varint: majorVersion)
        writer.field(1002, varint: privateVersion)
        return writer.bytes
    }

    static func location(_ location: HKWorkoutSessionLocationType, into message: inout ProtoWriter) {
        if location != .unknown { message.field(2, varint: UInt64(location.rawValue)) }
    }

    static func encode(_ step: WorkoutStep, into message: inout ProtoWriter) {
        message.field(1) { encode(step.goal, into: &$0) }
        if let alert = step.alert { message.field(2) { encode(alert, into: &$0) } }
        if let name = step.displayName { message.field(3, string: name) }
    }

    static func encode(_ goal: WorkoutGoal, into message: inout ProtoWriter) {
        switch goal {
        case .time(let value, let unit):
            message.field(1, varint: 1)
            message.field(2) { duration(Measurement(value: value, unit: unit), into: &$0) }
        case .energy(let value, let unit):
            message.field(1, varint: 2)
            message.field(3) { energy(Measurement(value: value, unit: unit), into: &$0) }
        case .distance(let value, let unit):
            message.field(1, varint: 3)
            message.field(4) { length(Measurement(value: value, unit: unit), into: &$0) }
        case .open:
            message.field(1, varint: 4)
        case .poolSwimDistanceWithTime(let distance, let time):
            message.field(1, varint: 5)
            message.field(5) { pool in
                pool.field(1) { length(distance, into: &$0) }
                pool.field(2) { duration(time, into: &$0) }
            }
        }
    }

    /// A quantity in a unit of Apple's list as given; in another unit, converted to the list's first (metres,
    /// seconds, kilocalories): Apple's list has no number for it.
    static func quantity<U: Dimension>(
        _ value: Measurement<U>, _ units: [(U, UInt64)], into message: inout ProtoWriter
    ) {
        let known = units.first { $0.0 == value.unit }
        let (unit, number) = known ?? units[0]
        message.field(1, varint: number)
        message.field(2, double: known == nil ? value.converted(to: unit).value : value.value)
    }

    static func length(_ value: Measurement<UnitLength>, into message: inout ProtoWriter) {
        quantity(value, lengthUnits, into: &message)
    }

    static func duration(_ value: Measurement<UnitDuration>, into message: inout ProtoWriter) {
        quantity(value, durationUnits, into: &message)
    }

    static func energy(_ value: Measurement<UnitEnergy>, into message: inout ProtoWriter) {
        quantity(value, energyUnits, into: &message)
    }

    // MARK: Alerts

    enum AlertKind: UInt64 {
        case threshold = 1
        case range = 2
        case zone = 3
    }

    static func encode(_ alert: any WorkoutAlert, into message: inout ProtoWriter) {
        func header(_ target: UInt64, _ kind: AlertKind) {
            message.field(1, varint: target)
            message.field(2, varint: kind.rawValue)
        }
        func power(_ value: Measurement<UnitPower>, into message: inout ProtoWriter) {
            message.field(1, varint: 1)
            message.field(2, double: value.converted(to: .watts).value)
        }
        func powerTarget(_ metric: WorkoutAlertMetric) -> UInt64 { metric == .average ? 6 : 4 }
        func speedTarget(_ metric: WorkoutAlertMetric) -> UInt64 { metric == .average ? 1 : 2 }
        switch alert {
        case let alert as PowerThresholdAlert:
            header(powerTarget(alert.metric), .threshold)
            message.field(6) { content in content.field(1) { power(alert.target, into: &$0) } }
        case let alert as PowerRangeAlert:
            header(powerTarget(alert.metric), .range)
            message.field(6) { content in
                content.field(2) { bounds in
                    bounds.field(1) { power(alert.target.lowerBound, into: &$0) }
                    bounds.field(2) { power(alert.target.upperBound, into: &$0) }
                }
            }
        case let alert as PowerZoneAlert:
            header(4, .zone)
            message.field(6) { content in content.field(3) { $0.field(1, varint: UInt64(clamping: alert.zone)) } }
        case let alert as HeartRateZoneAlert:
            header(5, .zone)
            message.field(7) { content in content.field(1) { $0.field(1, varint: UInt64(clamping: alert.zone)) } }
        case let alert as HeartRateRangeAlert:
            header(5, .range)
            message.field(7) { content in
                content.field(2) { bounds in
                    bounds.field(1) {
                        $0.field(1, double: alert.target.lowerBound.converted(to: .countPerMinute).value)
                    }
                    bounds.field(2) {
                        $0.field(1, double: alert.target.upperBound.converted(to: .countPerMinute).value)
                    }
                }
            }
        case let alert as SpeedThresholdAlert:
            header(speedTarget(alert.metric), .threshold)
            message.field(4) { content in content.field(1) { speed(alert.target, into: &$0) } }
        case let alert as SpeedRangeAlert:
            header(speedTarget(alert.metric), .range)
            message.field(4) { content in
                content.field(2) { bounds in
                    bounds.field(1) { speed(alert.target.lowerBound, into: &$0) }
                    bounds.field(2) { speed(alert.target.upperBound, into: &$0) }
                }
            }
        case let alert as CadenceThresholdAlert:
            header(3, .threshold)
            message.field(5) { content in content.field(1) { cadence(alert.target, into: &$0) } }
        case let alert as CadenceRangeAlert:
            header(3, .range)
            message.field(5) { content in
                content.field(2) { bounds in
                    bounds.field(1) { cadence(alert.target.lowerBound, into: &$0) }
                    bounds.field(2) { cadence(alert.target.upperBound, into: &$0) }
                }
            }
        default:
            // Another module's alert type: Apple's file has no place for it (validation refuses it first).
            break
        }
    }

    /// A speed as a distance per time: m/s as metres per second, km/h as kilometres per hour, mph as miles per
    /// hour (each per 1 unit of time); any other unit as metres per second.
    static func speed(_ value: Measurement<UnitSpeed>, into message: inout ProtoWriter) {
        let (distance, time): (Measurement<UnitLength>, Measurement<UnitDuration>)
        switch value.unit {
        case UnitSpeed.kilometersPerHour:
            (distance, time) = (Measurement(value: value.value, unit: .kilometers), Measurement(value: 1, unit: .hours))
        case UnitSpeed.milesPerHour:
            (distance, time) = (Measurement(value: value.value, unit: .miles), Measurement(value: 1, unit: .hours))
        default:
            (distance, time) = (
                Measurement(value: value.converted(to: .metersPerSecond).value, unit: .meters),
                Measurement(value: 1, unit: .seconds)
            )
        }
        message.field(1) { length(distance, into: &$0) }
        message.field(2) { duration(time, into: &$0) }
    }

    /// A cadence as a whole count per minute (Apple's file holds the count as an integer).
    static func cadence(_ value: Measurement<UnitFrequency>, into message: inout ProtoWriter) {
        let perMinute = value.converted(to: .countPerMinute).value
        message.field(1, varint: UInt64(clamping: Int(exactly: perMinute.rounded()) ?? 0))
        message.field(2) { duration(Measurement(value: 1, unit: .minutes), into: &$0) }
    }
}
