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
/// * Anything else (feature bits, locations, device information) → nothing.
///
/// It never reads a clock; `arrivalTime` is seconds on any monotonic scale.
public struct SensorReadingInterpreter: Sendable {
    public let wheelCircumference: Double
    private var powerCrank: CrankCadenceCalculator
    private var powerWheel: WheelSpeedCalculator
    private var cscCrank: CrankCadenceCalculator
    private var cscWheel: WheelSpeedCalculator

    /// Creates an interpreter.
    ///
    /// - Parameters:
    ///   - wheelCircumference: Metres per wheel revolution (default 2.105).
    ///   - staleAfter: Seconds without a new crank or wheel event before cadence or speed is 0.
    public init(wheelCircumference: Double = WheelSpeedCalculator.defaultWheelCircumference, staleAfter: TimeInterval = 3) {
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

    /// The readings one payload yields.
    public mutating func readings(from payload: SensorPayload, at arrivalTime: TimeInterval) -> [SensorReadingValue] {
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
        case .bodySensorLocation, .cyclingPowerFeature, .cscFeature, .sensorLocation, .deviceInformation, .unrecognized:
            return []
        }
    }

    /// Forgets counter state (distance totals are kept). Call it after a reconnect.
    public mutating func reset() {
        powerCrank.reset()
        cscCrank.reset()
        powerWheel.reset()
        cscWheel.reset()
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
    /// - Throws: The ``DecodeError`` of a malformed value; the interpreter's state is unchanged then, and the caller
    ///   skips the value (a live sensor logs it, a replay counts it).
    public mutating func readings(fromValue bytes: [UInt8], of characteristic: UInt16,
                                  at arrivalTime: TimeInterval) throws(DecodeError) -> [SensorReadingValue] {
        readings(from: try SensorPayload.decode(characteristic: characteristic, bytes: bytes), at: arrivalTime)
    }
}
