/// The rate between two revolution-counter values, from the counters alone: `Δrevolutions / Δevent time`, both
/// differences taken modulo their counters' widths (the 16-bit event time wraps every 64 s at 1/1024 s). The one
/// formula behind cadence and speed: the live calculators (``CrankCadenceCalculator``, ``WheelSpeedCalculator``) add
/// arrival-time checks around it; `workout decode` uses it payload to payload. Nil when the event time did not move
/// (no new revolution event between the two values).
///
/// Bluetooth CPS 1.1 §3.2.1 (crank and wheel event times), CSCS 1.0 §3.1.
public enum RevolutionRate {
    /// `revolutions × scale` per second over an event-time delta of `ticks` at `ticksPerSecond` (scale 60 gives
    /// rpm, a wheel's circumference gives m/s).
    public static func perSecond(
        revolutions: Double, ticks: UInt16, ticksPerSecond: Double, scale: Double = 1
    ) -> Double? {
        guard ticks != 0 else { return nil }
        return revolutions * scale / (Double(ticks) / ticksPerSecond)
    }
}

extension CrankRevolutionData {
    /// Cadence in rpm from `earlier` to this value (see ``RevolutionRate``).
    public func cadence(since earlier: CrankRevolutionData) -> Double? {
        RevolutionRate.perSecond(
            revolutions: Double(cumulativeRevolutions &- earlier.cumulativeRevolutions),
            ticks: lastEventTime &- earlier.lastEventTime, ticksPerSecond: Self.ticksPerSecond, scale: 60)
    }
}

extension WheelRevolutionData {
    /// Speed in m/s from `earlier` to this value, for a wheel event time of `ticksPerSecond` (2048 in Cycling Power
    /// Measurement, 1024 in CSC Measurement) and a wheel of `wheelCircumference` metres (see ``RevolutionRate``).
    public func speed(since earlier: WheelRevolutionData, ticksPerSecond: Double, wheelCircumference: Double) -> Double?
    {
        RevolutionRate.perSecond(
            revolutions: Double(cumulativeRevolutions &- earlier.cumulativeRevolutions),
            ticks: lastEventTime &- earlier.lastEventTime, ticksPerSecond: ticksPerSecond,
            scale: wheelCircumference)
    }
}
