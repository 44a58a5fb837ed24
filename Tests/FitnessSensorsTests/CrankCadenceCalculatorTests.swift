import FitnessSensors
import Testing

@Suite("CrankCadenceCalculator")
struct CrankCadenceCalculatorTests {
    /// Feeds a Cycling Power Measurement's crank data to the calculator.
    static func feed(_ calculator: inout CrankCadenceCalculator, _ payload: String, at time: Double) throws -> Double? {
        let crank = try #require(try CyclingPowerMeasurement(bytes: hex(payload)).crankRevolutions)
        return calculator.update(crank, at: time)
    }

    /// The Assioma Uno session from doudar/SmartSpin2k test/test_CyclePowerData.cpp, with arrival
    /// times added; the expected cadences (31.09312, 48.37795, 56.39284 rpm) are the ones that test asserts.
    @Test func assiomaSession() throws {
        var c = CrankCadenceCalculator()
        #expect(try Self.feed(&c, "20 00 00 00 01 00 00 0b", at: 0.0) == nil)
        #expect(c.lastOutcome == .baseline)
        #expect(try Self.feed(&c, "20 00 00 00 01 00 00 0b", at: 1.0) == nil)
        #expect(c.lastOutcome == .held(rpm: nil))
        let first = try Self.feed(&c, "20 00 2d 00 02 00 b8 12", at: 2.0)
        #expect(approximatelyEqual(first, 31.09312, tolerance: 1e-4))
        #expect(approximatelyEqual(try Self.feed(&c, "20 00 2d 00 02 00 b8 12", at: 2.5), 31.09312, tolerance: 1e-4))
        #expect(approximatelyEqual(try Self.feed(&c, "20 00 2e 00 03 00 ae 17", at: 3.3), 48.37795, tolerance: 1e-4))
        #expect(approximatelyEqual(try Self.feed(&c, "20 00 39 00 05 00 31 20", at: 5.4), 56.39284, tolerance: 1e-4))
        // The pedals repeat their last event: the cadence holds for under 3 s of arrival time…
        for time in [6.0, 7.0, 8.0, 8.39] {
            #expect(
                approximatelyEqual(try Self.feed(&c, "20 00 39 00 05 00 31 20", at: time), 56.39284, tolerance: 1e-4))
        }
        // …and is 0 from 3 s after the event time last advanced.
        #expect(try Self.feed(&c, "20 00 39 00 05 00 31 20", at: 8.4) == 0)
        #expect(c.lastOutcome == .stopped)
        #expect(c.cadence == 0)
    }

    /// Both counters wrap between samples: (0xFFFF revs, 0xFFFF ticks) → (0 revs, 0x07B7 ticks)
    /// is one revolution in 1976/1024 s. Vector from SmartSpin2k test/test_CyclePowerData.cpp (t12, t13).
    @Test func counterWrapAround() throws {
        var c = CrankCadenceCalculator()
        #expect(try Self.feed(&c, "20 00 00 00 ff ff ff ff", at: 10) == nil)
        let rpm = try Self.feed(&c, "20 00 2d 00 00 00 b7 07", at: 12)
        #expect(approximatelyEqual(rpm, 60 * 1024 / 1976))
    }

    @Test func wrapOfTimeOnlyAndOfRevolutionsOnly() {
        var c = CrankCadenceCalculator()
        c.update(cumulativeRevolutions: 10, lastEventTime: 0xFE00, at: 0)
        // Time wraps (0xFE00 → 0x0200 is 1024 ticks), revolutions do not.
        #expect(c.update(cumulativeRevolutions: 11, lastEventTime: 0x0200, at: 1) == 60)
        var d = CrankCadenceCalculator()
        d.update(cumulativeRevolutions: 0xFFFF, lastEventTime: 0x1000, at: 0)
        #expect(d.update(cumulativeRevolutions: 1, lastEventTime: 0x1800, at: 2) == 60)
    }

    @Test func stalenessThresholdIsConfigurable() {
        var c = CrankCadenceCalculator(staleAfter: 5)
        c.update(cumulativeRevolutions: 0, lastEventTime: 0, at: 0)
        #expect(c.update(cumulativeRevolutions: 1, lastEventTime: 1024, at: 1) == 60)
        #expect(c.update(cumulativeRevolutions: 1, lastEventTime: 1024, at: 5.9) == 60)
        #expect(c.update(cumulativeRevolutions: 1, lastEventTime: 1024, at: 6) == 0)
        #expect(c.cadence(at: 6) == 0)
    }

    @Test func cadenceAtReportsZeroWhenTheSensorFallsSilent() {
        var c = CrankCadenceCalculator()
        #expect(c.cadence(at: 0) == nil)
        c.update(cumulativeRevolutions: 0, lastEventTime: 0, at: 0)
        c.update(cumulativeRevolutions: 2, lastEventTime: 1024, at: 1)
        #expect(c.cadence(at: 3.9) == 120)
        #expect(c.cadence(at: 4.0) == 0)
        #expect(c.cadence == 120)
    }

    @Test func implausibleCadenceIsRejectedAndTheLastValueKept() {
        var c = CrankCadenceCalculator()
        c.update(cumulativeRevolutions: 100, lastEventTime: 0, at: 0)
        #expect(c.update(cumulativeRevolutions: 101, lastEventTime: 1024, at: 1) == 60)
        // Five revolutions in one second is 300 rpm.
        #expect(c.update(cumulativeRevolutions: 106, lastEventTime: 2048, at: 2) == nil)
        #expect(c.lastOutcome == .rejected(.implausibleRate(300)))
        #expect(c.cadence == 60)
        // The rejected sample is the new baseline: the next one measures from it.
        #expect(c.update(cumulativeRevolutions: 107, lastEventTime: 3072, at: 3) == 60)
    }

    @Test func hugeJumpAfterAWrapIsRejected() {
        var c = CrankCadenceCalculator()
        c.update(cumulativeRevolutions: 5000, lastEventTime: 40000, at: 0)
        // A sensor reset: counters back near 0. Δrevs = 3 &- 5000 = 60539 in 25.9 s of ticks,
        // consistent with the 27 s of arrival time, so only the rate gives it away.
        #expect(c.update(cumulativeRevolutions: 3, lastEventTime: 1000, at: 27) == nil)
        guard case .rejected(.implausibleRate(let rpm))? = c.lastOutcome else {
            Issue.record("expected an implausible-rate rejection, got \(String(describing: c.lastOutcome))")
            return
        }
        #expect(rpm > 100_000)
        // One update later the calculator measures again.
        #expect(c.update(cumulativeRevolutions: 4, lastEventTime: 2024, at: 28) == 60)
    }

    @Test func revolutionsWithoutEventTimeAreRejected() {
        var c = CrankCadenceCalculator()
        c.update(cumulativeRevolutions: 10, lastEventTime: 5000, at: 0)
        #expect(c.update(cumulativeRevolutions: 11, lastEventTime: 5000, at: 1) == nil)
        #expect(c.lastOutcome == .rejected(.revolutionsWithoutEventTime))
    }

    @Test func staleBaselineAfterConnectingIsRejected() {
        // Connected while the rider was stationary: the first sample's event is 30 s old.
        var c = CrankCadenceCalculator()
        c.update(cumulativeRevolutions: 10, lastEventTime: 0, at: 100)
        #expect(c.update(cumulativeRevolutions: 11, lastEventTime: 30 * 1024, at: 101) == nil)
        #expect(c.lastOutcome == .rejected(.eventTimeAheadOfArrival(eventSeconds: 30, arrivalSeconds: 1)))
        #expect(c.update(cumulativeRevolutions: 12, lastEventTime: 31 * 1024, at: 102) == 60)
    }

    @Test func gapLongerThanTheWrapPeriodRebaselines() {
        var c = CrankCadenceCalculator()
        c.update(cumulativeRevolutions: 10, lastEventTime: 0, at: 0)
        #expect(c.update(cumulativeRevolutions: 11, lastEventTime: 1024, at: 1) == 60)
        // Link dropped for 70 s (> 64 s): the tick difference is ambiguous.
        #expect(c.update(cumulativeRevolutions: 80, lastEventTime: 6 * 1024, at: 71) == nil)
        #expect(c.lastOutcome == .rebaselined(gap: 70))
        #expect(c.update(cumulativeRevolutions: 81, lastEventTime: 7 * 1024, at: 72) == 60)
    }

    @Test func arrivalTimeGoingBackwardsIsIgnored() {
        var c = CrankCadenceCalculator()
        c.update(cumulativeRevolutions: 0, lastEventTime: 0, at: 10)
        #expect(c.update(cumulativeRevolutions: 1, lastEventTime: 1024, at: 9) == nil)
        #expect(c.lastOutcome == .rejected(.arrivalTimeWentBackwards))
        #expect(c.update(cumulativeRevolutions: 1, lastEventTime: 1024, at: 11) == 60)
    }

    @Test func eventWithoutRevolutionIsZeroCadence() {
        var c = CrankCadenceCalculator()
        c.update(cumulativeRevolutions: 7, lastEventTime: 0, at: 0)
        #expect(c.update(cumulativeRevolutions: 7, lastEventTime: 512, at: 1) == 0)
    }

    @Test func resetStartsFromABaseline() {
        var c = CrankCadenceCalculator()
        c.update(cumulativeRevolutions: 0, lastEventTime: 0, at: 0)
        c.update(cumulativeRevolutions: 1, lastEventTime: 1024, at: 1)
        c.reset()
        #expect(c.cadence == nil && c.lastOutcome == nil)
        #expect(c.update(cumulativeRevolutions: 500, lastEventTime: 9999, at: 2) == nil)
        #expect(c.lastOutcome == .baseline)
    }
}
