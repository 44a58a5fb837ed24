import FitnessSensors
import Foundation

/// One JSON object, keys in insertion order, printed compactly on one line.
struct JSONLine {
    enum Value {
        case int(Int)
        case number(Double)
        case string(String)
        case array([Double])
        case bool(Bool)
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
        case .string(let string): quoted(string)
        case .array(let doubles): "[" + doubles.map(number).joined(separator: ",") + "]"
        case .bool(let bool): bool ? "true" : "false"
        case .null: "null"
        }
    }

    /// A JSON string: quotes, backslashes and control characters escaped (a device's name is untrusted bytes).
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
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
        case .rscMeasurement(let measurement):
            json.set("speed", measurement.speedMetresPerSecond)
            json.set("cadence", Int(measurement.cadence))
            json.set("strideLength", measurement.strideLengthMetres)
            json.set("totalDistance", measurement.totalDistanceMetres)
            json.set("running", .bool(measurement.isRunning))
        case .indoorBikeData(let data):
            json.set("speed", data.speedMetresPerSecond)
            json.set("averageSpeed", Self.speed(data.averageSpeed))
            json.set("cadence", data.cadenceRPM)
            json.set("averageCadence", data.averageCadence.map { Double($0) / 2 })
            json.set("totalDistance", data.totalDistance.map(Int.init))
            json.set("resistanceLevel", data.resistanceLevel.map(Int.init))
            json.set("power", data.instantaneousPower.map(Int.init))
            json.set("averagePower", data.averagePower.map(Int.init))
            Self.tail(&json, data.tail)
        case .treadmillData(let data):
            json.set("speed", data.speedMetresPerSecond)
            json.set("averageSpeed", Self.speed(data.averageSpeed))
            json.set("totalDistance", data.totalDistance.map(Int.init))
            json.set("inclination", data.inclination?.percent)
            json.set("rampAngle", data.inclination.map { Double($0.rampAngle) / 10 })
            json.set("elevationGain", data.elevationGain.map { Double($0.positive) / 10 })
            json.set("elevationLoss", data.elevationGain.map { Double($0.negative) / 10 })
            json.set("pace", data.instantaneousPace.map { Double($0) / 10 })
            json.set("averagePace", data.averagePace.map { Double($0) / 10 })
            json.set("force", data.beltPower.map { Int($0.force) })
            json.set("power", data.beltPower.map { Int($0.power) })
            Self.tail(&json, data.tail)
        case .rowerData(let data):
            json.set("strokeRate", data.strokes?.perMinute)
            json.set("strokeCount", data.strokes.map { Int($0.count) })
            json.set("averageStrokeRate", data.averageStrokeRate.map { Double($0) / 2 })
            json.set("totalDistance", data.totalDistance.map(Int.init))
            json.set("pace", data.instantaneousPace.map(Int.init))
            json.set("averagePace", data.averagePace.map(Int.init))
            json.set("power", data.instantaneousPower.map(Int.init))
            json.set("averagePower", data.averagePower.map(Int.init))
            json.set("resistanceLevel", data.resistanceLevel.map(Int.init))
            Self.tail(&json, data.tail)
        case .crossTrainerData(let data):
            json.set("speed", Self.speed(data.instantaneousSpeed))
            json.set("averageSpeed", Self.speed(data.averageSpeed))
            json.set("totalDistance", data.totalDistance.map(Int.init))
            json.set("stepRate", data.stepRate?.first.map(Int.init))
            json.set("averageStepRate", data.stepRate?.dropFirst().first.map(Int.init))
            json.set("strideCount", data.strideCount.map { Double($0) / 10 })
            json.set("elevationGain", data.elevationGain?.first.map(Int.init))
            json.set("elevationLoss", data.elevationGain?.dropFirst().first.map(Int.init))
            json.set("inclination", data.inclination?.first.map { Double($0) / 10 })
            json.set("rampAngle", data.inclination?.dropFirst().first.map { Double($0) / 10 })
            json.set("resistanceLevel", data.resistanceLevel.map(Int.init))
            json.set("power", data.instantaneousPower.map(Int.init))
            json.set("averagePower", data.averagePower.map(Int.init))
            json.set("backward", .bool(data.movesBackward))
            Self.tail(&json, data.tail)
        case .supportedSpeedRange(let range): Self.range(&json, range.bounds, step: Double(range.increment) * 0.01)
        case .supportedInclinationRange(let range): Self.range(&json, range.bounds, step: Double(range.increment) * 0.1)
        case .supportedResistanceLevelRange(let range):
            Self.range(&json, range.bounds, step: Double(range.increment) * 0.1)
        case .supportedPowerRange(let range): Self.range(&json, range.bounds, step: Double(range.increment))
        case .fitnessMachineStatus(let status):
            json.set("opCode", Int(status.opCode))
            json.set("status", .string(status.summary))
            json.set("targetPower", status.targetPower.map(Int.init))
        case .fitnessMachineControlPointResponse(let response):
            json.set("requestOpCode", Int(response.requestOpCode))
            json.set("result", .string(response.result.description))
        case .trainingStatus(let status):
            json.set("status", Int(status.status))
            json.set("text", status.text.map(JSONLine.Value.string) ?? .null)
        case .deviceInformation(let information):
            json.set("\(information.field)", .string(information.value))
        case .sensorLocation(let location):
            json.set("sensorLocation", .string(location.description))
        case .bodySensorLocation(let location):
            json.set("bodySensorLocation", .string(location.description))
        case .cyclingPowerFeature(let feature): json.set("featureFlags", Int(feature.rawValue))
        case .cscFeature(let feature): json.set("featureFlags", Int(feature.rawValue))
        case .rscFeature(let feature): json.set("featureFlags", Int(feature.rawValue))
        case .fitnessMachineFeature(let feature):
            json.set("machineFeatures", Int(feature.machine.rawValue))
            json.set("targetSettingFeatures", Int(feature.targetSetting.rawValue))
        case .unrecognized:
            json.set("bytes", .string(payload.encode().map { String(format: "%02x", $0) }.joined()))
        }
        return json.text
    }

    /// A Fitness Machine speed field (1/100 km/h) in m/s, by the library's unit.
    private static func speed(_ steps: UInt16?) -> Double? {
        steps.map { Double($0) * FitnessMachineUnits.metresPerSecondPerSpeedStep }
    }

    /// The five fields every Fitness Machine data characteristic may carry.
    private static func tail(_ json: inout JSONLine, _ tail: FitnessMachineDataTail) {
        json.set("energy", tail.expendedEnergy.map { Int($0.total) })
        json.set("energyPerHour", tail.expendedEnergy.map { Int($0.perHour) })
        json.set("energyPerMinute", tail.expendedEnergy.map { Int($0.perMinute) })
        json.set("heartRate", tail.heartRate.map(Int.init))
        json.set("metabolicEquivalent", tail.metabolicEquivalent.map { Double($0) / 10 })
        json.set("elapsedTime", tail.elapsedTime.map(Int.init))
        json.set("remainingTime", tail.remainingTime.map(Int.init))
    }

    private static func range(_ json: inout JSONLine, _ bounds: ClosedRange<Double>, step: Double) {
        json.set("minimum", bounds.lowerBound)
        json.set("maximum", bounds.upperBound)
        json.set("increment", step)
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
