import FitnessSensors
import Foundation

/// One JSON object, keys in insertion order, printed compactly on one line.
struct JSONLine {
    enum Value {
        case int(Int)
        case number(Double)
        case string(String)
        case array([Double])
        case null
    }

    private(set) var fields: [(String, Value)] = []

    mutating func set(_ key: String, _ value: Value) { fields.append((key, value)) }

    mutating func set(_ key: String, _ value: Int?) { set(key, value.map(Value.int) ?? .null) }

    mutating func set(_ key: String, _ value: Double?) { set(key, value.map(Value.number) ?? .null) }

    var text: String {
        "{" + fields.map { "\"\($0.0)\":\(Self.render($0.1))" }.joined(separator: ",") + "}"
    }

    private static func render(_ value: Value) -> String {
        switch value {
        case .int(let int): String(int)
        case .number(let double): number(double)
        case .string(let string): "\"\(string)\""
        case .array(let doubles): "[" + doubles.map(number).joined(separator: ",") + "]"
        case .null: "null"
        }
    }

    /// Shortest round-tripping decimal; integral values without a fraction.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return "\(value)"
    }
}

/// Turns decoded measurements into `workout decode`'s JSON lines, deriving cadence and speed
/// from each payload and the one before it.
///
/// Units: heart rate bpm, RR intervals and event times seconds, energy kJ, power W, balance %,
/// torque N·m, cadence rpm, speed m/s. Cadence and speed come from the library's counter formula
/// (`CrankRevolutionData.cadence(since:)`, `WheelRevolutionData.speed(since:…)`), payload to payload: there are
/// no arrival times here for the live calculators' checks. Either is `null` when a payload lacks the data or no new
/// event happened between the two payloads.
struct PayloadJSONFormatter {
    let wheelCircumference: Double
    private var previousCrank: CrankRevolutionData?
    private var previousWheel: WheelRevolutionData?
    private var count = 0

    init(wheelCircumference: Double) { self.wheelCircumference = wheelCircumference }

    mutating func line(for payload: SensorPayload) -> String {
        var json = JSONLine()
        count += 1
        switch payload {
        case .heartRateMeasurement(let measurement):
            json.set("heartRate", Int(measurement.heartRate))
            json.set("sensorContact", .string(Self.contact(measurement.sensorContact)))
            json.set("energyExpended", measurement.energyExpended.map(Int.init))
            json.set("rrIntervals", .array(measurement.rrIntervalSeconds))
        case .cyclingPowerMeasurement(let measurement):
            json.set("instantaneousPower", Int(measurement.instantaneousPower))
            json.set("pedalPowerBalance", measurement.pedalPowerBalance?.percent)
            json.set("accumulatedTorque", measurement.accumulatedTorque?.newtonMetres)
            revolutions(
                &json, wheel: measurement.wheelRevolutions, crank: measurement.crankRevolutions,
                wheelTicksPerSecond: CyclingPowerMeasurement.wheelEventTicksPerSecond,
                energy: measurement.accumulatedEnergy)
        case .cscMeasurement(let measurement):
            revolutions(
                &json, wheel: measurement.wheelRevolutions, crank: measurement.crankRevolutions,
                wheelTicksPerSecond: CSCMeasurement.eventTicksPerSecond, energy: nil)
        case .batteryLevel(let level):
            json.set("batteryLevel", Int(level.percent))
        default:
            json.set("bytes", .string(payload.encode().map { String(format: "%02x", $0) }.joined()))
        }
        return json.text
    }

    private mutating func revolutions(
        _ json: inout JSONLine, wheel: WheelRevolutionData?, crank: CrankRevolutionData?,
        wheelTicksPerSecond: Double, energy: UInt16?
    ) {
        let isPower = wheelTicksPerSecond == CyclingPowerMeasurement.wheelEventTicksPerSecond
        json.set("wheelRevolutions", wheel.map { Int($0.cumulativeRevolutions) })
        json.set("lastWheelEventTime", wheel.map { Double($0.lastEventTime) / wheelTicksPerSecond })
        json.set("crankRevolutions", crank.map { Int($0.cumulativeRevolutions) })
        json.set("lastCrankEventTime", crank.map { Double($0.lastEventTime) / CrankRevolutionData.ticksPerSecond })
        if isPower { json.set("accumulatedEnergy", energy.map(Int.init)) }
        if count > 1 {
            json.set("cadence", Self.cadence(from: previousCrank, to: crank))
            json.set("speed", speed(from: previousWheel, to: wheel, ticksPerSecond: wheelTicksPerSecond))
        }
        previousCrank = crank
        previousWheel = wheel
    }

    /// The library's formula (``RevolutionRate``), payload to payload.
    private static func cadence(from before: CrankRevolutionData?, to after: CrankRevolutionData?) -> Double? {
        guard let before, let after else { return nil }
        return after.cadence(since: before)
    }

    private func speed(
        from before: WheelRevolutionData?, to after: WheelRevolutionData?, ticksPerSecond: Double
    ) -> Double? {
        guard let before, let after else { return nil }
        return after.speed(since: before, ticksPerSecond: ticksPerSecond, wheelCircumference: wheelCircumference)
    }

    private static func contact(_ contact: HeartRateMeasurement.SensorContact) -> String {
        switch contact {
        case .notSupported: "notSupported"
        case .notDetected: "notDetected"
        case .detected: "detected"
        }
    }
}
