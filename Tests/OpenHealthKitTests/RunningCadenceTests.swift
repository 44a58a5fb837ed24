import FitnessSensors
import Foundation
import Testing

@testable import OpenHealthKit

/// ``RunningCadence``: counting a pod's cadence into steps, and reading a span's cadence back from step samples.
/// Expected values are worked out by hand in the comments.
@Suite struct RunningCadenceTests {
    let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)

    func span(_ from: Double, _ to: Double) -> DateInterval {
        DateInterval(start: t0 + from, end: t0 + to)
    }

    @Test func countingFollowsTheReadingsAndStopsAtGapsAndStandstill() {
        // 180 steps/min over 1 s: 3 steps; over 3 s: 9; over 3.5 s (a dropout): none.
        #expect(RunningCadence.steps(stepsPerMinute: 180, from: 10, to: 11) == 3)
        #expect(RunningCadence.steps(stepsPerMinute: 180, from: 10, to: 13) == 9)
        #expect(RunningCadence.steps(stepsPerMinute: 180, from: 10, to: 13.5) == nil)
        #expect(RunningCadence.steps(stepsPerMinute: 0, from: 10, to: 11) == nil)
        #expect(RunningCadence.steps(stepsPerMinute: 180, from: 11, to: 11) == nil)
        #expect(RunningCadence.steps(stepsPerMinute: .nan, from: 10, to: 11) == nil)
    }

    @Test func averageIsStepsOverCoveredTimeAndMaximumOneSamples() throws {
        // 60 s at 170 (170 steps), a 30 s stop with no samples, 30 s at 180 (90 steps), and a sample of no length.
        let samples = [
            (span(0, 60), 170.0), (span(90, 120), 90.0), (span(120, 120), 5.0),
        ]
        let all = try #require(RunningCadence.statistics(samples))
        // 260 steps over 90 covered seconds: 173.33 steps/min; the stop is left out, not counted as 0.
        #expect(abs(all.averageStepsPerMinute - 260.0 / 1.5) < 1e-9)
        #expect(all.maximumStepsPerMinute == 180)
        #expect(all.steps == 260)
        // Within the second half only the 180 sample starts.
        let late = try #require(RunningCadence.statistics(samples, within: span(60, 130)))
        #expect(late.averageStepsPerMinute == 180)
        #expect(RunningCadence.statistics([(span(5, 5), 3.0)]) == nil)
        #expect(RunningCadence.stridesPerMinute(stepsPerMinute: 173) == 86.5)
    }

    /// A pod at 173 steps/min, notifications about a second apart: each step sample gives the pod's 173 back (to
    /// 0.06 steps/min), where whole steps gave 180 and 120 by turns; the total is 173 × 20 s / 60 = 57.67 steps.
    @Test func liveStepSamplesGiveThePodsCadenceBack() {
        var core = RecordingCore(activity: .running, deliverySpacing: .milliseconds(1), source: testSource)
        core.updateSettings { $0.capabilities = [.speed, .distance, .steps] }
        _ = core.addChannel(identifier: "pod", deviceCode: 0)
        _ = try! core.apply(.began(at: Date(storeValue: 0)), now: .zero)
        var time = 0.0
        for second in 0 ... 20 {
            time = Double(second) + [0.004, 0.011, 0.0][second % 3]
            _ = try! core.apply(
                .reading(.stepCadence(StepCadenceReading(stepsPerMinute: 173)), channel: 0, time: time), now: .zero)
        }
        let steps = core.journal.pending.filter { $0.typeCode == HKQuantityType(.stepCount).code }
        #expect(steps.count == 20)
        for sample in steps {
            let cadence = sample.value / (sample.end - sample.start) * 60
            #expect(abs(cadence - 173) < 0.1, "\(cadence)")
        }
        #expect(abs(steps.map(\.value).reduce(0, +) - 173 * (time - 0.004) / 60) < 0.001)
    }
}
