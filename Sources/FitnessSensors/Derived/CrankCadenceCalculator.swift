import Foundation

/// Derives pedalling cadence from successive crank revolution samples.
///
/// Feed it every Cycling Power Measurement or CSC Measurement that carries crank revolution data,
/// with the time it arrived; it never reads a clock. The maths is
/// `rpm = Δrevolutions × 60 / (Δticks / 1024)`, with both differences taken modulo 2^16 so that
/// one wrap of either counter between samples is harmless.
///
/// The rules, as the mature open-source implementations converge on them:
/// * The first sample (and the first after ``reset()``) is a baseline only: `nil`.
/// * A sample whose event time and count equal the previous one means "no new revolution": the
///   last cadence is held until the event time has not advanced for `staleAfter` seconds of
///   arrival time (default 3 s), then the cadence is 0.
/// * When more arrival time than one event-time period (64 s) has passed since the event time
///   last advanced, the difference is ambiguous: the sample becomes the new baseline (`nil`).
/// * A sample is rejected (`nil`, last cadence kept, sample taken as the new baseline) when the
///   count changed but the time did not, when the event time advanced further than the arrival
///   time allows (plus `arrivalTolerance`), or when the cadence would exceed `maximumCadence`
///   (default 250 rpm: spikes, sensor resets, a huge jump after a wrap).
///
/// ```swift
/// var calculator = CrankCadenceCalculator()
/// calculator.update(cumulativeRevolutions: 1, lastEventTime: 0x0B00, at: 0)   // nil (baseline)
/// calculator.update(cumulativeRevolutions: 2, lastEventTime: 0x12B8, at: 2)   // 31.09 rpm
/// ```
///
/// Bluetooth CPS 1.1 §3.2.1 and CSCS 1.0 §3.1 (crank revolution data).
public struct CrankCadenceCalculator: Sendable {
    /// What the last ``update(cumulativeRevolutions:lastEventTime:at:)`` did.
    public enum Outcome: Hashable, Sendable {
        /// First sample: no cadence yet.
        case baseline
        /// The event time had not advanced for a whole wrap period; this sample is the new baseline.
        case rebaselined(gap: TimeInterval)
        /// A new cadence from a new crank event.
        case measured(rpm: Double)
        /// No new crank event; the last cadence (if any) still stands.
        case held(rpm: Double?)
        /// No new crank event for `staleAfter` seconds: cadence 0.
        case stopped
        /// The sample was rejected; the last cadence is kept.
        case rejected(RevolutionRejection)
    }

    /// Seconds of arrival time without a new crank event after which cadence is 0.
    public let staleAfter: TimeInterval
    /// Cadences above this (rpm) are rejected.
    public let maximumCadence: Double
    /// Ticks per second of the crank event time (1024 in both CPS and CSCS).
    public let eventTicksPerSecond: Double
    /// How much the event-time difference may exceed the arrival-time difference, in seconds.
    public let arrivalTolerance: TimeInterval

    private var tracker: RevolutionRateTracker<UInt16>
    /// The outcome of the last update, for logs and tests.
    public private(set) var lastOutcome: Outcome?

    /// Creates a calculator.
    ///
    /// - Parameters:
    ///   - staleAfter: Seconds without a new crank event before cadence falls to 0 (default 3).
    ///   - maximumCadence: The largest plausible cadence in rpm (default 250).
    ///   - eventTicksPerSecond: The event time resolution (default 1024).
    ///   - arrivalTolerance: Allowed excess of event time over arrival time, in seconds (default 2).
    public init(
        staleAfter: TimeInterval = 3,
        maximumCadence: Double = 250,
        eventTicksPerSecond: Double = CrankRevolutionData.ticksPerSecond,
        arrivalTolerance: TimeInterval = 2
    ) {
        self.staleAfter = staleAfter
        self.maximumCadence = maximumCadence
        self.eventTicksPerSecond = eventTicksPerSecond
        self.arrivalTolerance = arrivalTolerance
        tracker = RevolutionRateTracker(
            ticksPerSecond: eventTicksPerSecond,
            staleAfter: staleAfter,
            arrivalTolerance: arrivalTolerance,
            maximumRevolutionsPerSecond: maximumCadence / 60)
    }

    /// The current cadence in rpm, as of the last update (`nil` before the first measurement).
    public var cadence: Double? { tracker.revolutionsPerSecond.map { $0 * 60 } }

    /// The cadence as of `now`: 0 once no new crank event has arrived for `staleAfter` seconds,
    /// even if no sample has arrived since. Use it when a sensor falls silent.
    public func cadence(at now: TimeInterval) -> Double? {
        tracker.revolutionsPerSecond(at: now).map { $0 * 60 }
    }

    /// Takes one crank revolution sample.
    ///
    /// - Parameters:
    ///   - cumulativeRevolutions: The sensor's cumulative crank revolutions.
    ///   - lastEventTime: The time of the last crank event, in 1/1024 s.
    ///   - arrivalTime: When the notification arrived, in seconds on a monotonic scale.
    /// - Returns: The cadence in rpm, or `nil` for a baseline or rejected sample (see ``lastOutcome``).
    @discardableResult
    public mutating func update(
        cumulativeRevolutions: UInt16, lastEventTime: UInt16, at arrivalTime: TimeInterval
    ) -> Double? {
        let outcome: Outcome
        let result: Double?
        switch tracker.update(revolutions: cumulativeRevolutions, eventTime: lastEventTime, at: arrivalTime) {
        case .baseline:
            (outcome, result) = (.baseline, nil)
        case .rebaselined(let gap, _):
            (outcome, result) = (.rebaselined(gap: gap), nil)
        case .measured(let rate, _):
            (outcome, result) = (.measured(rpm: rate * 60), rate * 60)
        case .held(let rate):
            (outcome, result) = (.held(rpm: rate.map { $0 * 60 }), rate.map { $0 * 60 })
        case .stopped:
            (outcome, result) = (.stopped, 0)
        case .rejected(.implausibleRate(let rate)):
            (outcome, result) = (.rejected(.implausibleRate(rate * 60)), nil)
        case .rejected(let reason):
            (outcome, result) = (.rejected(reason), nil)
        }
        lastOutcome = outcome
        return result
    }

    /// Takes one crank revolution sample from a decoded measurement.
    @discardableResult
    public mutating func update(_ data: CrankRevolutionData, at arrivalTime: TimeInterval) -> Double? {
        update(cumulativeRevolutions: data.cumulativeRevolutions, lastEventTime: data.lastEventTime, at: arrivalTime)
    }

    /// Forgets everything; the next sample is a baseline. Call it after a reconnect.
    public mutating func reset() {
        tracker.reset()
        lastOutcome = nil
    }
}
