import Foundation

/// Derives speed and distance from successive wheel revolution samples.
///
/// Feed it every measurement that carries wheel revolution data, with the time it arrived; it
/// never reads a clock. `speed = Δrevolutions × circumference / (Δticks / ticksPerSecond)`, with
/// the revolution difference taken modulo 2^32 and the tick difference modulo 2^16.
///
/// **The tick length differs by characteristic**: 1/2048 s in Cycling Power Measurement
/// (``CyclingPowerMeasurement/wheelEventTicksPerSecond``), 1/1024 s in CSC Measurement
/// (``CSCMeasurement/eventTicksPerSecond``). Mixing them up doubles or halves the speed, a bug
/// seen in real projects, so the resolution is a required argument.
///
/// Speed follows the same rules as ``CrankCadenceCalculator`` (baseline, hold, 0 after
/// `staleAfter`, re-baseline after a wrap period — 32 s at 1/2048 s — and rejection above
/// `maximumSpeed`, default 40 m/s). ``distance`` grows by `Δrevolutions × circumference` on every
/// accepted sample. After an ambiguous gap the revolution count (32 bits, never wraps in
/// practice) is still trusted for distance when it is plausible for the arrival time that
/// passed; rejected samples add no distance.
///
/// Bluetooth CPS 1.1 §3.2.1 and CSCS 1.0 §3.1 (wheel revolution data).
public struct WheelSpeedCalculator: Sendable {
    /// What the last ``update(cumulativeRevolutions:lastEventTime:at:)`` did.
    public enum Outcome: Hashable, Sendable {
        /// First sample: no speed yet, no distance.
        case baseline
        /// The event time had not advanced for a whole wrap period; this sample is the new
        /// baseline. `distance` metres were still added when plausible.
        case rebaselined(gap: TimeInterval, distance: Double)
        /// A new speed (m/s) and the distance (m) added.
        case measured(speed: Double, distance: Double)
        /// No new wheel event; the last speed (if any) still stands.
        case held(speed: Double?)
        /// No new wheel event for `staleAfter` seconds: speed 0.
        case stopped
        /// The sample was rejected; the last speed is kept and no distance is added.
        case rejected(RevolutionRejection)
    }

    /// The default wheel circumference: 2.105 m (700×25C).
    public static let defaultWheelCircumference: Double = 2.105

    /// Metres travelled per wheel revolution.
    public let wheelCircumference: Double
    /// Ticks per second of the wheel event time: 2048 for CPS, 1024 for CSC.
    public let eventTicksPerSecond: Double
    /// Seconds of arrival time without a new wheel event after which speed is 0.
    public let staleAfter: TimeInterval
    /// Speeds above this (m/s) are rejected.
    public let maximumSpeed: Double
    /// How much the event-time difference may exceed the arrival-time difference, in seconds.
    public let arrivalTolerance: TimeInterval

    private var tracker: RevolutionRateTracker<UInt32>
    /// Metres travelled since the first sample.
    public private(set) var distance: Double = 0
    /// The outcome of the last update, for logs and tests.
    public private(set) var lastOutcome: Outcome?

    /// Creates a calculator.
    ///
    /// - Parameters:
    ///   - eventTicksPerSecond: 2048 for Cycling Power Measurement, 1024 for CSC Measurement.
    ///   - wheelCircumference: Metres per revolution (default 2.105).
    ///   - staleAfter: Seconds without a new wheel event before speed falls to 0 (default 3).
    ///   - maximumSpeed: The largest plausible speed in m/s (default 40).
    ///   - arrivalTolerance: Allowed excess of event time over arrival time, in seconds (default 2).
    public init(
        eventTicksPerSecond: Double,
        wheelCircumference: Double = WheelSpeedCalculator.defaultWheelCircumference,
        staleAfter: TimeInterval = 3,
        maximumSpeed: Double = 40,
        arrivalTolerance: TimeInterval = 2
    ) {
        precondition(wheelCircumference > 0, "wheel circumference must be positive")
        self.eventTicksPerSecond = eventTicksPerSecond
        self.wheelCircumference = wheelCircumference
        self.staleAfter = staleAfter
        self.maximumSpeed = maximumSpeed
        self.arrivalTolerance = arrivalTolerance
        tracker = RevolutionRateTracker(
            ticksPerSecond: eventTicksPerSecond,
            staleAfter: staleAfter,
            arrivalTolerance: arrivalTolerance,
            maximumRevolutionsPerSecond: maximumSpeed / wheelCircumference)
    }

    /// A calculator for the wheel data of Cycling Power Measurement (1/2048 s).
    public static func cyclingPower(wheelCircumference: Double = defaultWheelCircumference) -> WheelSpeedCalculator {
        WheelSpeedCalculator(
            eventTicksPerSecond: CyclingPowerMeasurement.wheelEventTicksPerSecond,
            wheelCircumference: wheelCircumference)
    }

    /// A calculator for the wheel data of CSC Measurement (1/1024 s).
    public static func cscMeasurement(wheelCircumference: Double = defaultWheelCircumference) -> WheelSpeedCalculator {
        WheelSpeedCalculator(
            eventTicksPerSecond: CSCMeasurement.eventTicksPerSecond, wheelCircumference: wheelCircumference)
    }

    /// The current speed in m/s, as of the last update (`nil` before the first measurement).
    public var speed: Double? { tracker.revolutionsPerSecond.map { $0 * wheelCircumference } }

    /// The speed as of `now`: 0 once no new wheel event has arrived for `staleAfter` seconds.
    public func speed(at now: TimeInterval) -> Double? {
        tracker.revolutionsPerSecond(at: now).map { $0 * wheelCircumference }
    }

    /// Takes one wheel revolution sample.
    ///
    /// - Parameters:
    ///   - cumulativeRevolutions: The sensor's cumulative wheel revolutions.
    ///   - lastEventTime: The time of the last wheel event, in ticks of `eventTicksPerSecond`.
    ///   - arrivalTime: When the notification arrived, in seconds on a monotonic scale.
    /// - Returns: The speed in m/s, or `nil` for a baseline or rejected sample (see ``lastOutcome``).
    @discardableResult
    public mutating func update(
        cumulativeRevolutions: UInt32, lastEventTime: UInt16, at arrivalTime: TimeInterval
    ) -> Double? {
        let outcome: Outcome
        let result: Double?
        switch tracker.update(revolutions: cumulativeRevolutions, eventTime: lastEventTime, at: arrivalTime) {
        case .baseline:
            (outcome, result) = (.baseline, nil)
        case .rebaselined(let gap, let revolutions):
            let metres = Double(revolutions) * wheelCircumference
            let added = metres <= maximumSpeed * gap ? metres : 0
            distance += added
            (outcome, result) = (.rebaselined(gap: gap, distance: added), nil)
        case .measured(let rate, let revolutions):
            let added = Double(revolutions) * wheelCircumference
            distance += added
            (outcome, result) = (
                .measured(speed: rate * wheelCircumference, distance: added), rate * wheelCircumference
            )
        case .held(let rate):
            (outcome, result) = (
                .held(speed: rate.map { $0 * wheelCircumference }), rate.map { $0 * wheelCircumference }
            )
        case .stopped:
            (outcome, result) = (.stopped, 0)
        case .rejected(.implausibleRate(let rate)):
            (outcome, result) = (.rejected(.implausibleRate(rate * wheelCircumference)), nil)
        case .rejected(let reason):
            (outcome, result) = (.rejected(reason), nil)
        }
        lastOutcome = outcome
        return result
    }

    /// Takes one wheel revolution sample from a decoded measurement.
    @discardableResult
    public mutating func update(_ data: WheelRevolutionData, at arrivalTime: TimeInterval) -> Double? {
        update(cumulativeRevolutions: data.cumulativeRevolutions, lastEventTime: data.lastEventTime, at: arrivalTime)
    }

    /// Forgets the counters (the next sample is a baseline) but keeps ``distance``.
    /// Call it after a reconnect.
    public mutating func reset() {
        tracker.reset()
        lastOutcome = nil
    }
}
