import FitnessSensors
import Testing

@Suite("WheelSpeedCalculator")
struct WheelSpeedCalculatorTests {
    @Test func cyclingPowerWheelTicksAre1Over2048Seconds() {
        var w = WheelSpeedCalculator.cyclingPower()
        #expect(w.update(cumulativeRevolutions: 100, lastEventTime: 0, at: 0) == nil)
        #expect(w.distance == 0)
        let speed = w.update(cumulativeRevolutions: 104, lastEventTime: 2048, at: 1)
        let fourTurns: Double = 4 * 2.105
        #expect(approximatelyEqual(speed, fourTurns))
        #expect(approximatelyEqual(w.distance, fourTurns))
        #expect(w.lastOutcome == .measured(speed: fourTurns, distance: fourTurns))
    }

    @Test func cscWheelTicksAre1Over1024Seconds() {
        var w = WheelSpeedCalculator.cscMeasurement()
        w.update(cumulativeRevolutions: 100, lastEventTime: 0, at: 0)
        // The same 2048 ticks are two seconds here: half the speed of the CPS case.
        #expect(approximatelyEqual(w.update(cumulativeRevolutions: 104, lastEventTime: 2048, at: 2), 2 * 2.105))
    }

    @Test func bothCountersWrap() {
        var w = WheelSpeedCalculator.cyclingPower()
        w.update(cumulativeRevolutions: 0xFFFF_FFFE, lastEventTime: 0xFC00, at: 0)
        // +4 revolutions across the 32-bit wrap, +2048 ticks across the 16-bit wrap.
        #expect(approximatelyEqual(w.update(cumulativeRevolutions: 2, lastEventTime: 0x0400, at: 1), 4 * 2.105))
        #expect(approximatelyEqual(w.distance, 4 * 2.105))
    }

    @Test func circumferenceIsConfigurable() {
        var w = WheelSpeedCalculator(eventTicksPerSecond: 1024, wheelCircumference: 2.0)
        w.update(cumulativeRevolutions: 0, lastEventTime: 0, at: 0)
        #expect(w.update(cumulativeRevolutions: 5, lastEventTime: 1024, at: 1) == 10)
        #expect(w.distance == 10)
    }

    @Test func stalenessDropsSpeedToZeroButKeepsDistance() {
        var w = WheelSpeedCalculator(eventTicksPerSecond: 1024, wheelCircumference: 2.0)
        w.update(cumulativeRevolutions: 0, lastEventTime: 0, at: 0)
        w.update(cumulativeRevolutions: 5, lastEventTime: 1024, at: 1)
        #expect(w.update(cumulativeRevolutions: 5, lastEventTime: 1024, at: 3.5) == 10)
        #expect(w.update(cumulativeRevolutions: 5, lastEventTime: 1024, at: 4) == 0)
        #expect(w.lastOutcome == .stopped)
        #expect(w.distance == 10)
        #expect(w.speed(at: 4) == 0)
    }

    @Test func implausibleSpeedIsRejectedWithoutDistance() {
        var w = WheelSpeedCalculator(eventTicksPerSecond: 1024, wheelCircumference: 2.0)
        w.update(cumulativeRevolutions: 0, lastEventTime: 0, at: 0)
        w.update(cumulativeRevolutions: 5, lastEventTime: 1024, at: 1)
        // 100 revolutions in one second is 200 m/s.
        #expect(w.update(cumulativeRevolutions: 105, lastEventTime: 2048, at: 2) == nil)
        #expect(w.lastOutcome == .rejected(.implausibleRate(200)))
        #expect(w.speed == 10)
        #expect(w.distance == 10)
        #expect(w.update(cumulativeRevolutions: 110, lastEventTime: 3072, at: 3) == 10)
        #expect(w.distance == 20)
    }

    @Test func counterResetIsRejected() {
        var w = WheelSpeedCalculator.cscMeasurement()
        w.update(cumulativeRevolutions: 123_456, lastEventTime: 30000, at: 0)
        #expect(w.update(cumulativeRevolutions: 2, lastEventTime: 1000, at: 1) == nil)
        #expect(w.distance == 0)
    }

    @Test func longGapRebaselinesAndKeepsPlausibleDistance() {
        var w = WheelSpeedCalculator(eventTicksPerSecond: 2048, wheelCircumference: 2.0)
        w.update(cumulativeRevolutions: 0, lastEventTime: 0, at: 0)
        // 40 s > the 32 s wrap period at 1/2048 s; 100 revolutions (200 m) in 40 s is plausible.
        #expect(w.update(cumulativeRevolutions: 100, lastEventTime: 7 * 2048, at: 40) == nil)
        #expect(w.lastOutcome == .rebaselined(gap: 40, distance: 200))
        #expect(w.distance == 200)
        // 10 000 revolutions (20 km) in the next 40 s is not: no distance.
        w.update(cumulativeRevolutions: 10_100, lastEventTime: 9 * 2048, at: 80)
        #expect(w.lastOutcome == .rebaselined(gap: 40, distance: 0))
        #expect(w.distance == 200)
    }

    @Test func resetKeepsDistance() {
        var w = WheelSpeedCalculator(eventTicksPerSecond: 1024, wheelCircumference: 2.0)
        w.update(cumulativeRevolutions: 0, lastEventTime: 0, at: 0)
        w.update(cumulativeRevolutions: 5, lastEventTime: 1024, at: 1)
        w.reset()
        #expect(w.speed == nil)
        #expect(w.update(cumulativeRevolutions: 9000, lastEventTime: 7, at: 2) == nil)
        #expect(w.distance == 10)
    }

    /// Wheel data from a CSC Measurement decoded from bytes. First sample: the OpenTracks vector
    /// (src/androidTest/java/de/dennisguse/opentracks/sensors/BluetoothHandlerCyclingDistanceSpeedTest.java);
    /// the second is synthetic, 3 revolutions and 1536 ticks (1.5 s) later.
    @Test func fromDecodedCSCMeasurements() throws {
        var w = WheelSpeedCalculator.cscMeasurement()
        let first = try #require(try CSCMeasurement(bytes: hex("03 C8 00 00 01 06 99 E1 00 45 99")).wheelRevolutions)
        let second = try #require(try CSCMeasurement(bytes: hex("01 CB 00 00 01 06 9F")).wheelRevolutions)
        #expect(w.update(first, at: 0) == nil)
        #expect(approximatelyEqual(w.update(second, at: 1.5), 3 * 2.105 / 1.5))
    }
}
