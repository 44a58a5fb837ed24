import Foundation
import PropertyBased
import TestSupport
import Testing

@testable import OpenHealthKit

/// The zone engine (`ZoneAccumulator`): hand-checked cases, then properties against an independent oracle.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct ZoneEngineTests {
    /// Five zones: below 100, [100, 120), [120, 140), [140, 160), 160 and above.
    static let boundaries = [100.0, 120, 140, 160]

    @Test func holdsUntilTheNextSampleForTenSecondsAtMost() {
        var engine = ZoneAccumulator(boundaries: Self.boundaries)
        for (time, value) in [(0.0, 99.0), (1, 100), (3, 119.9), (4, 160), (30, 130)] {
            do {
                let taken = engine.add(start: time, end: time, value: value)
                #expect(taken)
            }
        }
        // zone 0: [0,1); zone 1: [1,4) (100 is min-inclusive); zone 4: [4,14) then a dropout until 30;
        // zone 2 (130): [30,33) at the end.
        #expect(engine.durations(from: 0, to: 33) == [1, 3, 3, 0, 10])
        #expect(engine.durations(at: 33) == [1, 3, 3, 0, 10])
        #expect(engine.durations(at: 31.5) == [1, 3, 1.5, 0, 10])
        #expect(engine.durations(from: 2, to: 10) == [0, 2, 0, 0, 6])
        #expect(engine.currentZone(at: 31) == 2)
        #expect(engine.currentZone(at: 40) == nil)  // 10 s after the last reading: stale
    }

    @Test func theStalenessLimitEndsTheZone() {
        var engine = ZoneAccumulator(boundaries: Self.boundaries)
        engine.add(start: 4, end: 4, value: 165)
        #expect(engine.currentZone(at: 13.9) == 4)
        #expect(engine.currentZone(at: 14) == nil)
        #expect(engine.currentZone(at: 3) == nil)
    }

    @Test func aSampleWithADurationCoversItsSpanOnly() {
        var engine = ZoneAccumulator(boundaries: Self.boundaries)
        engine.add(start: 0, end: 5, value: 110)
        engine.add(start: 8, end: 8, value: 150)
        engine.add(start: 9, end: 20, value: 150)  // replaces the held value at 9
        #expect(engine.durations(from: 0, to: 30) == [0, 5, 0, 12, 0])
    }

    @Test func pausesStopTheHoldAndSamplesWhilePausedCountNothing() {
        var engine = ZoneAccumulator(boundaries: Self.boundaries)
        engine.add(start: 0, end: 0, value: 130)
        engine.setPauses([ZonePause(start: 4, end: .infinity)])
        #expect(engine.currentZone(at: 5) == nil)
        engine.add(start: 6, end: 6, value: 150)  // while paused
        engine.setPauses([ZonePause(start: 4, end: 8)])
        #expect(engine.currentZone(at: 8.5) == nil)  // nothing holds across the pause
        engine.add(start: 9, end: 9, value: 150)
        #expect(engine.durations(at: 12) == [0, 0, 4, 3, 0])
        #expect(engine.durations(from: 0, to: 12) == [0, 0, 4, 3, 0])
    }

    @Test func aPauseLearnedLateIsAppliedExactly() {
        var live = ZoneAccumulator(boundaries: Self.boundaries)
        var late = ZoneAccumulator(boundaries: Self.boundaries)
        let pauses = [ZonePause(start: 2, end: 5), ZonePause(start: 12, end: 13)]
        live.setPauses([])
        for second in 0 ..< 20 {
            let time = Double(second)
            live.setPauses(
                pauses.filter { $0.start <= time }.map {
                    $0.end > time ? ZonePause(start: $0.start, end: .infinity) : $0
                })
            live.add(start: time, end: time, value: 100 + Double(second) * 3)
            late.add(start: time, end: time, value: 100 + Double(second) * 3)
        }
        late.setPauses(pauses)
        live.setPauses(pauses)
        #expect(late.durations(at: 20) == live.durations(at: 20))
        #expect(late.durations(at: 20) == late.durations(from: 0, to: 20))
        #expect(late.durations(at: 20).reduce(0, +) == 16)  // 20 s less the 4 s paused
    }

    @Test func samplesOutOfOrderAreIgnored() {
        var engine = ZoneAccumulator(boundaries: Self.boundaries)
        do {
            let taken = engine.add(start: 10, end: 10, value: 130)
            #expect(taken)
        }
        do {
            let taken = engine.add(start: 5, end: 5, value: 170)
            #expect(!taken)
        }
        do {
            let taken = engine.add(start: .nan, end: 5, value: 170)
            #expect(!taken)
        }
        #expect(engine.sampleCount == 1)
        // Samples at the same instant: the higher zone counts, in whatever order they come.
        do {
            let taken = engine.add(start: 10, end: 10, value: 170)
            #expect(taken)
        }
        do {
            let taken = engine.add(start: 10, end: 10, value: 125)
            #expect(taken)
        }
        #expect(engine.currentZone(at: 11) == 4)
        #expect(engine.zone(of: 99.999) == 0 && engine.zone(of: 160) == 4 && engine.zone(of: 159.99) == 3)
    }

    // MARK: Properties

    /// A scenario decoded from generated numbers: samples at whole seconds (some with a duration, gaps longer
    /// than the hold), pauses and activity windows at whole seconds.
    struct Scenario {
        var samples: [(start: Double, end: Double, value: Double)] = []
        var pauses: [ZonePause] = []
        var activities: [(Double, Double)] = []
        var end: Double = 0

        init(_ numbers: [Int], _ shape: [Int]) {
            var time = 0.0
            for n in numbers {
                time += Double(n % 5 == 0 ? 0 : n % 17)  // repeats, steps, dropouts
                let length = n % 7 == 0 ? Double(1 + n % 3) : 0
                samples.append((time, time + length, 80 + Double(n % 100)))
            }
            end = time + 12
            var cursor = 0.0
            for (index, n) in shape.enumerated() {
                let start = cursor + Double(n % 40)
                let stop = start + Double(1 + n % 9)
                guard stop < end else { break }
                if index % 2 == 0 {
                    pauses.append(ZonePause(start: start, end: stop))
                } else {
                    activities.append((start, stop))
                }
                cursor = stop
            }
        }

        /// The rule walked second by second: the latest sample at or before the second covers it if the second is
        /// inside the sample's span (or hold), the sample did not start in a pause, and no pause began since.
        func oracle(from windowStart: Double, to windowEnd: Double, boundaries: [Double]) -> [Double] {
            var result = Array(repeating: 0.0, count: boundaries.count + 1)
            var second = windowStart
            while second < windowEnd {
                let middle = second + 0.5
                let zone = { (value: Double) in boundaries.filter { value >= $0 }.count }
                let cover = { (sample: (start: Double, end: Double, value: Double)) in
                    sample.end > sample.start ? sample.end : sample.start + 10
                }
                // Of samples starting at the same second, the one in the higher zone (then covering longer) counts.
                let latest = samples.last(where: { $0.start <= middle }).map { latest in
                    samples.filter { $0.start == latest.start }
                }
                if let sample = latest?.max(by: { (zone($0.value), cover($0)) < (zone($1.value), cover($1)) }) {
                    let limit = cover(sample)
                    let startsPaused = pauses.contains { $0.start <= sample.start && sample.start < $0.end }
                    let pausedSince = pauses.contains { $0.start >= sample.start && $0.start <= middle }
                    if middle < limit, !startsPaused, !pausedSince {
                        result[zone(sample.value)] += 1
                    }
                }
                second += 1
            }
            return result
        }
    }

    @Test func durationsMatchTheRuleWalkedSecondBySecond() async {
        await propertyCheck(
            count: 200, input: Gen.int(in: 0 ... 999).array(of: 1 ... 120), Gen.int(in: 0 ... 999).array(of: 0 ... 8)
        ) { (numbers: [Int], shape: [Int]) in
            let scenario = Scenario(numbers, shape)
            var engine = ZoneAccumulator(boundaries: Self.boundaries)
            engine.setPauses(scenario.pauses)
            for sample in scenario.samples { engine.add(start: sample.start, end: sample.end, value: sample.value) }
            let workout = engine.durations(from: 0, to: scenario.end)
            let expected = scenario.oracle(from: 0, to: scenario.end, boundaries: Self.boundaries)
            #expect(workout == expected)
            // Zone durations add up to the attributed time, which never exceeds the running time.
            let paused: Double = scenario.pauses.reduce(0) { (total: Double, pause) in total + pause.end - pause.start }
            let running = scenario.end - paused
            let total: Double = workout.reduce(0, +)
            let expectedTotal: Double = expected.reduce(0, +)
            #expect(total == expectedTotal)
            #expect(total <= running)
            // Each activity's durations match the rule over its span, and together never exceed the workout's.
            var sum = Array(repeating: 0.0, count: workout.count)
            for (start, end) in scenario.activities {
                let activity = engine.durations(from: start, to: end)
                #expect(activity == scenario.oracle(from: start, to: end, boundaries: Self.boundaries))
                let activityTotal: Double = activity.reduce(0, +)
                #expect(activityTotal <= total)
                for zone in sum.indices { sum[zone] += activity[zone] }
            }
            for zone in sum.indices { #expect(sum[zone] <= workout[zone]) }
        }
    }

    @Test func runningTotalsDoNotDependOnWhenPausesAreLearned() async {
        await propertyCheck(
            count: 200, input: Gen.int(in: 0 ... 999).array(of: 1 ... 120), Gen.int(in: 0 ... 999).array(of: 0 ... 8)
        ) { numbers, shape in
            let scenario = Scenario(numbers, shape)
            var first = ZoneAccumulator(boundaries: Self.boundaries)  // pauses known from the start
            var live = ZoneAccumulator(boundaries: Self.boundaries)  // pauses as they happen
            var last = ZoneAccumulator(boundaries: Self.boundaries)  // pauses added after every sample
            first.setPauses(scenario.pauses)
            for sample in scenario.samples {
                let known = scenario.pauses.filter { $0.start <= sample.start }
                    .map { $0.end > sample.start ? ZonePause(start: $0.start, end: .infinity) : $0 }
                live.setPauses(known)
                first.add(start: sample.start, end: sample.end, value: sample.value)
                live.add(start: sample.start, end: sample.end, value: sample.value)
                last.add(start: sample.start, end: sample.end, value: sample.value)
            }
            live.setPauses(scenario.pauses)
            last.setPauses(scenario.pauses)
            let exact = first.durations(from: -.infinity, to: scenario.end)
            #expect(first.durations(at: scenario.end) == exact)
            #expect(live.durations(at: scenario.end) == exact)
            #expect(last.durations(at: scenario.end) == exact)
        }
    }
}
