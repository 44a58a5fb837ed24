/// A heart rate reading from a strap.
///
/// Bluetooth HRS 1.0 §3.1.
public struct HeartRateReading: Hashable, Sendable {
    /// Beats per minute.
    public var bpm: Int
    /// RR intervals in seconds, oldest first (beat-to-beat intervals, for HRV and heartbeat series).
    public var rrIntervals: [Double]
    /// Whether the strap touches the skin; readings without contact may carry a stale or zero rate.
    public var contact: HeartRateMeasurement.SensorContact
    /// Energy expended since the strap's last reset, in kilojoules, when the notification carried it.
    public var energyExpendedKJ: Double?

    public init(
        bpm: Int, rrIntervals: [Double] = [], contact: HeartRateMeasurement.SensorContact = .notSupported,
        energyExpendedKJ: Double? = nil
    ) {
        self.bpm = bpm
        self.rrIntervals = rrIntervals
        self.contact = contact
        self.energyExpendedKJ = energyExpendedKJ
    }

    /// The reading a Heart Rate Measurement carries.
    public init(_ measurement: HeartRateMeasurement) {
        self.init(
            bpm: Int(measurement.heartRate),
            rrIntervals: measurement.rrIntervalSeconds,
            contact: measurement.sensorContact,
            energyExpendedKJ: measurement.energyExpended.map(Double.init))
    }
}

/// A power reading from a power meter.
///
/// Bluetooth CPS 1.1 §3.2.
public struct PowerReading: Hashable, Sendable {
    /// Instantaneous power in watts.
    public var watts: Int
    /// The pedal power balance, when the meter reports it.
    public var pedalPowerBalance: CyclingPowerMeasurement.PedalPowerBalance?
    /// Energy accumulated since the meter's last reset, in kilojoules, when reported.
    public var accumulatedEnergyKJ: Double?
    /// What measured it: a power meter (Cycling Power service) or a fitness machine (a trainer's own estimate).
    public var source: Source

    /// What measured a power reading. When both give power, a power meter's is taken over a fitness machine's.
    public enum Source: Hashable, Sendable {
        case powerMeter
        case fitnessMachine
    }

    public init(
        watts: Int, pedalPowerBalance: CyclingPowerMeasurement.PedalPowerBalance? = nil,
        accumulatedEnergyKJ: Double? = nil,
        source: Source = .powerMeter
    ) {
        self.watts = watts
        self.pedalPowerBalance = pedalPowerBalance
        self.accumulatedEnergyKJ = accumulatedEnergyKJ
        self.source = source
    }

    /// The power reading a Cycling Power Measurement carries.
    public init(_ measurement: CyclingPowerMeasurement) {
        self.init(
            watts: Int(measurement.instantaneousPower),
            pedalPowerBalance: measurement.pedalPowerBalance,
            accumulatedEnergyKJ: measurement.accumulatedEnergy.map(Double.init))
    }
}

/// A pedalling cadence, derived by ``CrankCadenceCalculator``.
public struct CadenceReading: Hashable, Sendable {
    /// Crank revolutions per minute.
    public var rpm: Double

    public init(rpm: Double) { self.rpm = rpm }
}

/// A speed, derived by ``WheelSpeedCalculator``.
public struct SpeedReading: Hashable, Sendable {
    /// Metres per second.
    public var metresPerSecond: Double

    public init(metresPerSecond: Double) { self.metresPerSecond = metresPerSecond }
}

/// Distance covered, derived by ``WheelSpeedCalculator``.
public struct DistanceReading: Hashable, Sendable {
    /// Metres covered since the previous distance reading from the same sensor.
    public var metres: Double
    /// Metres covered since the sensor's first sample.
    public var totalMetres: Double

    public init(metres: Double, totalMetres: Double) {
        self.metres = metres
        self.totalMetres = totalMetres
    }
}

/// A runner's step cadence, from a foot pod.
///
/// Bluetooth RSCS 1.0 §3.1 (Instantaneous Cadence).
public struct StepCadenceReading: Hashable, Sendable {
    /// Steps per minute.
    public var stepsPerMinute: Double

    public init(stepsPerMinute: Double) { self.stepsPerMinute = stepsPerMinute }
}

/// A runner's stride length, from a foot pod.
///
/// Bluetooth RSCS 1.0 §3.1 (Instantaneous Stride Length).
public struct StrideLengthReading: Hashable, Sendable {
    /// Metres.
    public var metres: Double

    public init(metres: Double) { self.metres = metres }
}

/// A treadmill's inclination.
///
/// Bluetooth FTMS 1.0 §4.6 (Inclination).
public struct InclineReading: Hashable, Sendable {
    /// Percent (rise over run × 100); negative downhill.
    public var percent: Double

    public init(percent: Double) { self.percent = percent }
}

/// A battery charge.
///
/// Bluetooth BAS 1.0 §3.1.
public struct BatteryReading: Hashable, Sendable {
    /// Charge in percent, 0–100.
    public var percent: Int

    public init(percent: Int) { self.percent = percent }

    public init(_ level: BatteryLevel) { self.init(percent: Int(level.percent)) }
}

/// Anything a fitness sensor yields, as a value a workout can record.
public enum SensorReadingValue: Hashable, Sendable {
    case heartRate(HeartRateReading)
    case power(PowerReading)
    case cadence(CadenceReading)
    case speed(SpeedReading)
    case distance(DistanceReading)
    case battery(BatteryReading)
    case stepCadence(StepCadenceReading)
    case strideLength(StrideLengthReading)
    case incline(InclineReading)
}
