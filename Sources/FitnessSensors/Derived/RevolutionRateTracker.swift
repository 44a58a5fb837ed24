import Foundation

/// Why a revolution-counter update produced no rate.
///
/// Shared by ``CrankCadenceCalculator`` and ``WheelSpeedCalculator``. After every rejection
/// except ``arrivalTimeWentBackwards`` the calculator takes the rejected sample as its new
/// baseline, so that a sensor reboot (counters back to 0) costs one update instead of
/// rejecting everything that follows.
public enum RevolutionRejection: Hashable, Sendable {
    /// The arrival time is earlier than the previous one; the sample is ignored and the state kept.
    case arrivalTimeWentBackwards
    /// The revolution count changed but the event time did not: the counters are inconsistent
    /// (or exactly one event-time period passed, which cannot be told apart).
    case revolutionsWithoutEventTime
    /// The event time advanced by more than the arrival time allows (plus a tolerance): the
    /// previous sample was stale (e.g. the first one after connecting) or the counters jumped.
    case eventTimeAheadOfArrival(eventSeconds: Double, arrivalSeconds: TimeInterval)
    /// The rate is above the configured maximum: a spike, a reset, or a huge jump after a wrap.
    /// The associated value is in the calculator's unit (rpm for cadence, m/s for speed).
    case implausibleRate(Double)
}

/// The state machine shared by the cadence and speed calculators: turns successive
/// (cumulative revolutions, last event time, arrival time) samples into revolutions per second.
///
/// Counters wrap, so differences are taken with wrapping subtraction (`&-`) on the counter's own
/// width; this handles exactly one wrap between samples. The 16-bit event time wraps every
/// 65536 ticks (64 s at 1/1024 s, 32 s at 1/2048 s); when more arrival time than that has passed
/// since the event time last advanced, the difference is ambiguous and the tracker re-baselines.
///
/// It never reads a clock: arrival times come in as arguments, in seconds on any monotonic scale.
struct RevolutionRateTracker<Counter: FixedWidthInteger & UnsignedInteger & Sendable>: Sendable {
    struct Sample: Hashable, Sendable {
        var revolutions: Counter
        var eventTime: UInt16
        /// Arrival time at which `eventTime` was first seen with this value.
        var advancedAt: TimeInterval
        /// Arrival time of the latest sample.
        var seenAt: TimeInterval
    }

    enum Outcome: Hashable, Sendable {
        case baseline
        case rebaselined(gap: TimeInterval, revolutions: Counter)
        case measured(revolutionsPerSecond: Double, revolutions: Counter)
        case held(revolutionsPerSecond: Double?)
        case stopped
        case rejected(RevolutionRejection)
    }

    let ticksPerSecond: Double
    let staleAfter: TimeInterval
    let arrivalTolerance: TimeInterval
    /// Rates above this are rejected (``RevolutionRejection/implausibleRate(_:)`` carries the rate
    /// in revolutions per second here; the public calculators convert it to their unit).
    let maximumRevolutionsPerSecond: Double

    private(set) var sample: Sample?
    private(set) var revolutionsPerSecond: Double?

    init(
        ticksPerSecond: Double, staleAfter: TimeInterval, arrivalTolerance: TimeInterval,
        maximumRevolutionsPerSecond: Double
    ) {
        precondition(ticksPerSecond > 0, "event time resolution must be positive")
        self.ticksPerSecond = ticksPerSecond
        self.staleAfter = staleAfter
        self.arrivalTolerance = arrivalTolerance
        self.maximumRevolutionsPerSecond = maximumRevolutionsPerSecond
    }

    /// How long the 16-bit event time takes to wrap.
    var wrapPeriod: TimeInterval { 65536 / ticksPerSecond }

    mutating func reset() {
        sample = nil
        revolutionsPerSecond = nil
    }

    /// The rate as of `now`: 0 once the event time has not advanced for `staleAfter`.
    func revolutionsPerSecond(at now: TimeInterval) -> Double? {
        guard let sample else { return nil }
        return now - sample.advancedAt >= staleAfter ? 0 : revolutionsPerSecond
    }

    mutating func update(revolutions: Counter, eventTime: UInt16, at now: TimeInterval) -> Outcome {
        guard let previous = sample else {
            sample = Sample(revolutions: revolutions, eventTime: eventTime, advancedAt: now, seenAt: now)
            return .baseline
        }
        guard now >= previous.seenAt else { return .rejected(.arrivalTimeWentBackwards) }

        let deltaRevolutions = revolutions &- previous.revolutions
        let deltaTicks = eventTime &- previous.eventTime
        let fresh = Sample(revolutions: revolutions, eventTime: eventTime, advancedAt: now, seenAt: now)

        if deltaTicks == 0 && deltaRevolutions == 0 {
            // The sensor repeats its last event: no new revolution.
            sample?.seenAt = now
            if now - previous.advancedAt >= staleAfter {
                revolutionsPerSecond = 0
                return .stopped
            }
            return .held(revolutionsPerSecond: revolutionsPerSecond)
        }

        let elapsed = now - previous.advancedAt
        if elapsed >= wrapPeriod {
            // The event time may have wrapped any number of times: start again from here.
            sample = fresh
            return .rebaselined(gap: elapsed, revolutions: deltaRevolutions)
        }
        sample = fresh
        if deltaTicks == 0 {
            return .rejected(.revolutionsWithoutEventTime)
        }
        let eventSeconds = Double(deltaTicks) / ticksPerSecond
        if eventSeconds > elapsed + arrivalTolerance {
            return .rejected(.eventTimeAheadOfArrival(eventSeconds: eventSeconds, arrivalSeconds: elapsed))
        }
        guard
            let rate = RevolutionRate.perSecond(
                revolutions: Double(deltaRevolutions), ticks: deltaTicks,
                ticksPerSecond: ticksPerSecond)
        else {
            return .rejected(.revolutionsWithoutEventTime)
        }
        if rate > maximumRevolutionsPerSecond {
            return .rejected(.implausibleRate(rate))
        }
        revolutionsPerSecond = rate
        return .measured(revolutionsPerSecond: rate, revolutions: deltaRevolutions)
    }
}
