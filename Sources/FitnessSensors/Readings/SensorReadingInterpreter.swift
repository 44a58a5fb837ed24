import ByteCoding
import Foundation

/// Turns one sensor's decoded payloads into readings, keeping the counter state that cadence,
/// speed and distance need.
///
/// Use one interpreter per connected sensor and call ``readings(from:at:)`` for every payload in
/// arrival order; call ``reset()`` after a reconnect. Crank and wheel data from Cycling Power
/// Measurement and from CSC Measurement go to separate calculators, because their wheel event
/// times tick at different rates (1/2048 s and 1/1024 s) and a device exposing both services
/// would otherwise count each revolution twice.
///
/// Which readings come out of which payload:
/// * Heart Rate Measurement → ``SensorReadingValue/heartRate(_:)``.
/// * Cycling Power Measurement → ``SensorReadingValue/power(_:)``, then cadence, speed and
///   distance when it carries revolution data and the calculators yield a value.
/// * CSC Measurement → cadence, speed and distance likewise.
/// * Battery Level → ``SensorReadingValue/battery(_:)``.
/// * RSC Measurement (a foot pod) → speed, step cadence, stride length when present, and distance: from the pod's
///   total distance when it reports one, otherwise speed × time since its previous measurement (at most 3 s).
/// * Indoor Bike, Treadmill, Rower and Cross Trainer Data, once a record is complete ("More Data" parts joined by a
///   ``FitnessMachineReassembler``) → speed (a rower's from its pace), distance from the machine's total, power
///   (``PowerReading/Source/fitnessMachine``) and a bike's cadence when present, a treadmill's incline.
/// * Anything else (feature bits, locations, device information, ranges, machine status, control point
///   responses) → nothing: control is ``FitnessMachineController``'s.
///
/// It never reads a clock; `arrivalTime` is seconds on any monotonic scale.
public struct SensorReadingInterpreter: Sendable {
    public let wheelCircumference: Double
    private var powerCrank: CrankCadenceCalculator
    private var powerWheel: WheelSpeedCalculator
    private var cscCrank: CrankCadenceCalculator
    private var cscWheel: WheelSpeedCalculator
    private var bike = FitnessMachineReassembler<IndoorBikeData>()
    private var treadmill = FitnessMachineReassembler<TreadmillData>()
    private var rower = FitnessMachineReassembler<RowerData>()
    private var crossTrainer = FitnessMachineReassembler<CrossTrainerData>()
    private var machineDistance = TotalDistanceTracker()
    private var podDistance = TotalDistanceTracker()
    private var podSpeedSince: (time: TimeInterval, metresPerSecond: Double)?

    /// Creates an interpreter.
    ///
    /// - Parameters:
    ///   - wheelCircumference: Metres per wheel revolution (default 2.105).
    ///   - staleAfter: Seconds without a new crank or wheel event before cadence or speed is 0.
    public init(
        wheelCircumference: Double = WheelSpeedCalculator.defaultWheelCircumference, staleAfter: TimeInterval = 3
    ) {
        self.wheelCircumference = wheelCircumference
        powerCrank = CrankCadenceCalculator(staleAfter: staleAfter)
        cscCrank = CrankCadenceCalculator(staleAfter: staleAfter)
        powerWheel = WheelSpeedCalculator(
            eventTicksPerSecond: CyclingPowerMeasurement.wheelEventTicksPerSecond,
            wheelCircumference: wheelCircumference, staleAfter: staleAfter)
        cscWheel = WheelSpeedCalculator(
            eventTicksPerSecond: CSCMeasurement.eventTicksPerSecond,
            wheelCircumference: wheelCircumference, staleAfter: staleAfter)
    }

    /// The readings one payload yields; none from a fitness machine record dropped for never ending (see
    /// ``readings(fromValue:of:at:)`` for the error).
    public mutating func readings(from payload: SensorPayload, at arrivalTime: TimeInterval) -> [SensorReadingValue] {
        (try? interpret(payload, at: arrivalTime)) ?? []
    }

    mutating func interpret(
        _ payload: SensorPayload, at arrivalTime: TimeInterval
    ) throws(DecodeError) -> [SensorReadingValue] {
        switch payload {
        case .heartRateMeasurement(let measurement):
            return [.heartRate(HeartRateReading(measurement))]
        case .cyclingPowerMeasurement(let measurement):
            var readings: [SensorReadingValue] = [.power(PowerReading(measurement))]
            if let crank = measurement.crankRevolutions {
                Self.cadence(from: crank, with: &powerCrank, at: arrivalTime, into: &readings)
            }
            if let wheel = measurement.wheelRevolutions {
                Self.speed(from: wheel, with: &powerWheel, at: arrivalTime, into: &readings)
            }
            return readings
        case .cscMeasurement(let measurement):
            var readings: [SensorReadingValue] = []
            if let crank = measurement.crankRevolutions {
                Self.cadence(from: crank, with: &cscCrank, at: arrivalTime, into: &readings)
            }
            if let wheel = measurement.wheelRevolutions {
                Self.speed(from: wheel, with: &cscWheel, at: arrivalTime, into: &readings)
            }
            return readings
        case .batteryLevel(let level):
            return [.battery(BatteryReading(level))]
        case .rscMeasurement(let measurement):
            return podReadings(measurement, at: arrivalTime)
        case .indoorBikeData(let part):
            guard let record = try bike.add(part, at: arrivalTime) else { return [] }
            var readings = machineReadings(
                speed: record.speedMetresPerSecond, totalDistance: record.totalDistance,
                power: record.instantaneousPower)
            if let rpm = record.cadenceRPM { readings.append(.cadence(CadenceReading(rpm: rpm))) }
            return readings
        case .treadmillData(let part):
            guard let record = try treadmill.add(part, at: arrivalTime) else { return [] }
            // The incline first: the speed sample it makes carries it.
            let incline = record.inclination.map { SensorReadingValue.incline(InclineReading(percent: $0.percent)) }
            return (incline.map { [$0] } ?? [])
                + machineReadings(speed: record.speedMetresPerSecond, totalDistance: record.totalDistance, power: nil)
        case .rowerData(let part):
            guard let record = try rower.add(part, at: arrivalTime) else { return [] }
            return machineReadings(
                speed: record.speedMetresPerSecond, totalDistance: record.totalDistance,
                power: record.instantaneousPower)
        case .crossTrainerData(let part):
            guard let record = try crossTrainer.add(part, at: arrivalTime) else { return [] }
            return machineReadings(
                speed: record.instantaneousSpeed.map { Double($0) * FitnessMachineUnits.metresPerSecondPerSpeedStep },
                totalDistance: record.totalDistance, power: record.instantaneousPower)
        case .bodySensorLocation, .cyclingPowerFeature, .cscFeature, .sensorLocation, .deviceInformation, .unrecognized,
            .rscFeature, .fitnessMachineFeature, .trainingStatus, .supportedSpeedRange, .supportedInclinationRange,
            .supportedResistanceLevelRange, .supportedPowerRange, .fitnessMachineControlPointResponse,
            .fitnessMachineStatus:
            return []
        }
    }

    private mutating func podReadings(_ measurement: RSCMeasurement, at time: TimeInterval) -> [SensorReadingValue] {
        let speed = measurement.speedMetresPerSecond
        var readings: [SensorReadingValue] = [
            .speed(SpeedReading(metresPerSecond: speed)),
            .stepCadence(StepCadenceReading(stepsPerMinute: Double(measurement.cadence))),
        ]
        if let stride = measurement.strideLengthMetres {
            readings.append(.strideLength(StrideLengthReading(metres: stride)))
        }
        if let total = measurement.totalDistanceMetres {
            if let distance = podDistance.update(total: total) { readings.append(.distance(distance)) }
        } else if let previous = podSpeedSince, time > previous.time, time - previous.time <= Self.maximumIntegrationGap
        {
            readings.append(.distance(podDistance.add(previous.metresPerSecond * (time - previous.time))))
        } else {
            readings.append(.distance(podDistance.add(0)))
        }
        podSpeedSince = (time, speed)
        return readings
    }

    private mutating func machineReadings(speed: Double?, totalDistance: UInt32?, power: Int16?) -> [SensorReadingValue]
    {
        var readings: [SensorReadingValue] = []
        if let power { readings.append(.power(PowerReading(watts: Int(power), source: .fitnessMachine))) }
        if let speed { readings.append(.speed(SpeedReading(metresPerSecond: speed))) }
        if let totalDistance, let distance = machineDistance.update(total: Double(totalDistance)) {
            readings.append(.distance(distance))
        }
        return readings
    }

    /// The longest gap over which a foot pod's speed is integrated into distance, in seconds.
    static let maximumIntegrationGap: TimeInterval = 3

    /// Forgets counter state (distance totals are kept). Call it after a reconnect.
    public mutating func reset() {
        powerCrank.reset()
        cscCrank.reset()
        powerWheel.reset()
        cscWheel.reset()
        bike.drop()
        treadmill.drop()
        rower.drop()
        crossTrainer.drop()
        machineDistance.reset()
        podDistance.reset()
        podSpeedSince = nil
    }

    private static func cadence(
        from data: CrankRevolutionData, with calculator: inout CrankCadenceCalculator,
        at arrivalTime: TimeInterval, into readings: inout [SensorReadingValue]
    ) {
        if let rpm = calculator.update(data, at: arrivalTime) {
            readings.append(.cadence(CadenceReading(rpm: rpm)))
        }
    }

    private static func speed(
        from data: WheelRevolutionData, with calculator: inout WheelSpeedCalculator,
        at arrivalTime: TimeInterval, into readings: inout [SensorReadingValue]
    ) {
        let before = calculator.distance
        if let speed = calculator.update(data, at: arrivalTime) {
            readings.append(.speed(SpeedReading(metresPerSecond: speed)))
        }
        let added = calculator.distance - before
        if added > 0 {
            readings.append(.distance(DistanceReading(metres: added, totalMetres: calculator.distance)))
        }
    }
}

extension SensorReadingInterpreter {
    /// The one decode-and-interpret path every sensor uses, live or replayed: the bytes of a characteristic's value
    /// are decoded (``SensorPayload``) and interpreted into readings, in arrival order.
    ///
    /// - Throws: The ``DecodeError`` of a malformed value, or of a fitness machine record whose "More Data" never
    ///   ended (the record is dropped); the caller skips the value (a live sensor logs it, a replay counts it). The
    ///   interpreter's state is otherwise unchanged.
    public mutating func readings(
        fromValue bytes: [UInt8], of characteristic: UInt16,
        at arrivalTime: TimeInterval
    ) throws(DecodeError) -> [SensorReadingValue] {
        try interpret(try SensorPayload.decode(characteristic: characteristic, bytes: bytes), at: arrivalTime)
    }
}

/// Distance from a device's running total (a machine's or a foot pod's): each new total gives the metres since the
/// previous one. The first total after a (re)connection is a baseline (0 m, which starts the distance span); a total
/// that goes back or jumps more than ``maximumStep`` is a new baseline (the device was reset).
struct TotalDistanceTracker: Sendable {
    /// The largest plausible step between two totals, in metres (a total a second apart: 100 m/s).
    static let maximumStep: Double = 100
    private var last: Double?
    private(set) var total: Double = 0

    mutating func update(total metres: Double) -> DistanceReading? {
        defer { last = metres }
        guard let last, metres >= last, metres - last <= Self.maximumStep else { return add(0) }
        return metres > last ? add(metres - last) : nil
    }

    /// Adds metres covered (0: a baseline).
    mutating func add(_ metres: Double) -> DistanceReading {
        total += metres
        return DistanceReading(metres: metres, totalMetres: total)
    }

    mutating func reset() { last = nil }
}
