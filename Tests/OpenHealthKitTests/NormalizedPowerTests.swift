import FitnessSensors
import Foundation
import Testing

@testable import OpenHealthKit

/// Normalized power, the trailing average and a sensor's status: the figures the live view and summaries show.
@Suite struct NormalizedPowerTests {
    func samples(_ watts: [Double], from start: TimeInterval = 0) -> [NormalizedPower.Sample] {
        watts.enumerated().map { NormalizedPower.Sample(start: t0 + start + Double($0.offset), watts: $0.element) }
    }

    @Test func constantPowerIsItsOwnNormalizedPower() throws {
        #expect(try #require(NormalizedPower.normalized(samples(Array(repeating: 200, count: 60)))) == 200)
        #expect(NormalizedPower.normalized(samples(Array(repeating: 200, count: 20))) == nil, "under 30 s")
    }

    /// 30 s at 100 W then 30 s at 300 W, 1 Hz. Computed independently (Python): the 30 s means of the 60-value
    /// series from the 30th value on, their 4th powers averaged, 4th root.
    @Test func stepChangeMatchesAnIndependentComputation() throws {
        let series = NormalizedPower.perSecond(
            samples(Array(repeating: 100, count: 30) + Array(repeating: 300, count: 30)))
        #expect(series == Array(repeating: 100, count: 30) + Array(repeating: 300, count: 30))
        // v = [100]*30 + [300]*30; w = [mean(v[i-29:i+1]) for i in 29..59]; (mean(w^4))^0.25 = 223.0695…
        let np = try #require(NormalizedPower.normalized(perSecond: series))
        #expect(abs(np - 223.06949) < 0.001, "\(np)")
    }

    /// A silence longer than a reading holds is left out, as are paused seconds: readings at 0…9 s and 20…29 s
    /// cover 0–14 (the reading at 9 s holds to 14 s) and 20–29, 25 seconds; a pause over [3, 6) removes 3 of them.
    @Test func dropoutsAndPausesAreLeftOut() {
        let power = samples(Array(repeating: 150, count: 10)) + samples(Array(repeating: 150, count: 10), from: 20)
        #expect(NormalizedPower.perSecond(power).count == 25)
        #expect(NormalizedPower.perSecond(power, pauses: [DateInterval(start: t0 + 3, end: t0 + 6)]).count == 22)
    }

    @Test func trailingAverageCoversTheWindowAndForgetsOldValues() {
        var average = TrailingAverage(window: 3)
        for (second, watts) in [10.0, 20, 30, 40].enumerated() { average.add(watts, at: t0 + Double(second)) }
        // (0, 3] holds the values at 1, 2 and 3 s: (20 + 30 + 40) / 3 = 30.
        #expect(average.average(at: t0 + 3) == 30)
        // (3.5, 6.5] holds none: no value, never the last one held.
        #expect(average.average(at: t0 + 6.5) == nil)
    }

    @Test func sensorStatusFollowsConnectionEvents() {
        let sensor = ScriptedSensor(identifier: "test:meter", name: "Meter", capabilities: .powerMeter)
        let tracker = SensorStatusTracker(sensor: sensor)
        func connection(_ state: SensorConnectionState, _ second: TimeInterval) {
            tracker.observe(.connection(state, at: t0 + second))
        }
        connection(.connecting, 0)
        #expect(tracker.status.connection == .connecting(attempt: 1))
        connection(.disconnected(reason: "Refused."), 0.1)
        connection(.connecting, 0.4)
        #expect(tracker.status.connection == .connecting(attempt: 2))
        #expect(tracker.status.problem == "Refused.")
        connection(.connected, 1)
        tracker.observe(.reading(.battery(BatteryReading(percent: 55)), at: t0 + 1))
        connection(.disconnected(reason: "The sensor closed the link."), 10)
        #expect(tracker.status.connection == .lost(since: t0 + 10, reason: "The sensor closed the link."))
        connection(.connecting, 10.25)
        connection(.disconnected(reason: "Refused."), 10.3)
        connection(.connecting, 10.8)
        #expect(tracker.status.connection == .reconnecting(since: t0 + 10, attempt: 2))
        connection(.connected, 14)
        let status = tracker.status
        #expect(status.connection == .connected)
        #expect(status.dropouts == 1)
        #expect(status.timeWithoutData(at: t0 + 20) == 4)  // lost from 10 s to 14 s
        #expect(status.batteryPercent == 55)
        #expect(status.skinContact == nil)
    }
}
