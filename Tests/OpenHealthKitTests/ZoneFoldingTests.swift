import Foundation
import PropertyBased
import Testing

@testable import OpenHealthKit

/// The zone engine's bounded memory: samples older than the exact window folded into runs (and, when the zone flips
/// every few samples for hours, runs coarsened into blocks), checked against an engine that keeps every sample.
@Suite(.timeLimit(.minutes(1))) struct ZoneFoldingTests {
    static let boundaries = [100.0, 120, 140, 160]

    /// An engine that never folds: every sample kept, as before folding existed.
    static func exactEngine() -> ZoneAccumulator {
        ZoneAccumulator(boundaries: boundaries, exactWindow: .max)
    }

    /// Equal up to summation order: 1e-9 relative (absolute below 1).
    static func close(_ a: [Double], _ b: [Double], tolerance: Double = 1e-9) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance * max(1, abs($0), abs($1)) }
    }

    /// A trace decoded from generated numbers, on a quarter-second grid so that samples, pauses and window edges
    /// often meet: same-instant samples, short steps, silences past the 10 s hold, samples with durations (some
    /// outlasting the next sample's start), values often repeating (so runs form) and otherwise across all zones.
    struct Trace {
        var samples: [(start: Double, end: Double, value: Double)] = []
        var pauses: [ZonePause] = []
        var windows: [(Double, Double)] = []
        var end = 0.0

        init(_ numbers: [Int], _ shape: [Int], _ edges: [Int]) {
            let gaps = [0, 0.25, 0.25, 1, 1, 1, 1, 2.5, 4, 12, 30]
            let lengths = [0, 0, 0, 0, 0.5, 3, 15]
            var time = 0.0
            var value = 130.0
            for n in numbers {
                time += gaps[n % gaps.count]
                if n % 3 != 0 { value = 80 + Double((n / 7) % 100) }
                samples.append((time, time + lengths[(n / 11) % lengths.count], value))
            }
            end = time + 12
            var cursor = 0.0
            for n in shape {
                let start = cursor + Double(n % 160) / 4
                let stop = start + Double(1 + (n / 160) % 60) / 4
                guard stop < end else { break }
                pauses.append(ZonePause(start: start, end: stop))
                cursor = stop + Double(n % 2)
            }
            let span = end + 4
            let at = { (n: Int) in (Double(n % 1001) * span / 1000 * 4).rounded() / 4 - 2 }
            windows = stride(from: 0, to: edges.count - 1, by: 2).map { index in
                let (a, b) = (at(edges[index]), at(edges[index + 1]))
                return (min(a, b), max(a, b))
            }
            windows += [(-.infinity, end), (0, end)]
            if let first = samples.first, let last = samples.last { windows.append((first.start, last.start)) }
        }

        /// The pauses a live session knows at `time`: those begun, the one in progress without its end.
        func known(at time: Double) -> [ZonePause] {
            pauses.filter { $0.start <= time }.map { $0.end > time ? ZonePause(start: $0.start, end: .infinity) : $0 }
        }

        /// The longest coverage one sample can have.
        var longestCoverage: Double {
            max(StatisticsAccumulator.defaultMaximumHold, samples.map { $0.end - $0.start }.max() ?? 0)
        }
    }

    static let traces = (
        Gen.int(in: 0 ... 999).array(of: 1 ... 150), Gen.int(in: 0 ... 9999).array(of: 0 ... 10),
        Gen.int(in: 0 ... 9999).array(of: 0 ... 12)
    )

    /// Compares everything an engine reports against the exact engine.
    static func expectSame(_ folded: ZoneAccumulator, _ exact: ZoneAccumulator, _ trace: Trace) {
        #expect(folded.sampleCount == exact.sampleCount)
        #expect(folded.latestStart == exact.latestStart)
        for now in [trace.end - 12, trace.end - 5.5, trace.end, trace.end + 30] {
            #expect(Self.close(folded.durations(at: now), exact.durations(at: now)))
            #expect(folded.currentZone(at: now) == exact.currentZone(at: now))
        }
        for (start, end) in trace.windows {
            #expect(Self.close(folded.durations(from: start, to: end), exact.durations(from: start, to: end)))
        }
    }

    // MARK: Exact when pauses are learned in time

    @Test func foldedHistoryIsExactWithPausesLearnedLive() async {
        await propertyCheck(count: 150, input: Self.traces.0, Self.traces.1, Self.traces.2) { numbers, shape, edges in
            let trace = Trace(numbers, shape, edges)
            for window in [1, 2, 3, 8] {
                var exact = Self.exactEngine()
                var folded = ZoneAccumulator(boundaries: Self.boundaries, exactWindow: window)
                for sample in trace.samples {
                    let known = trace.known(at: sample.start)
                    exact.setPauses(known)
                    folded.setPauses(known)
                    let taken = folded.add(start: sample.start, end: sample.end, value: sample.value)
                    #expect(taken == exact.add(start: sample.start, end: sample.end, value: sample.value))
                    #expect(
                        Self.close(folded.durations(at: sample.start + 0.5), exact.durations(at: sample.start + 0.5)))
                    #expect(folded.currentZone(at: sample.start + 0.5) == exact.currentZone(at: sample.start + 0.5))
                }
                exact.setPauses(trace.pauses)
                folded.setPauses(trace.pauses)
                Self.expectSame(folded, exact, trace)
            }
        }
    }

    /// A pause learned a few samples late (a batch delivered late) is still exact while it reaches back no further
    /// than the exact window.
    @Test func pausesLearnedWithinTheExactWindowStayExact() async {
        await propertyCheck(count: 150, input: Self.traces.0, Self.traces.1, Self.traces.2) { numbers, shape, edges in
            let trace = Trace(numbers, shape, edges)
            for window in [2, 4, 8] {
                let lag = (numbers.count + shape.count) % window  // 0 … window − 1 samples late
                var exact = Self.exactEngine()
                var folded = ZoneAccumulator(boundaries: Self.boundaries, exactWindow: window)
                for (index, sample) in trace.samples.enumerated() {
                    let known = trace.known(at: trace.samples[max(0, index - lag)].start)
                    exact.setPauses(known)
                    folded.setPauses(known)
                    exact.add(start: sample.start, end: sample.end, value: sample.value)
                    folded.add(start: sample.start, end: sample.end, value: sample.value)
                    #expect(
                        Self.close(folded.durations(at: sample.start + 0.5), exact.durations(at: sample.start + 0.5)))
                }
                exact.setPauses(trace.pauses)
                folded.setPauses(trace.pauses)
                Self.expectSame(folded, exact, trace)
                // And the same as pauses known from the start.
                var first = Self.exactEngine()
                first.setPauses(trace.pauses)
                for sample in trace.samples { first.add(start: sample.start, end: sample.end, value: sample.value) }
                #expect(Self.close(folded.durations(at: trace.end), first.durations(at: trace.end)))
            }
        }
    }

    // MARK: The approximation: a pause learned after its time was folded

    /// 100 readings a second apart in one zone, with an exact window of 2.
    static func steady(pauses: [ZonePause] = []) -> (folded: ZoneAccumulator, exact: ZoneAccumulator) {
        var folded = ZoneAccumulator(boundaries: boundaries, exactWindow: 2)
        var exact = exactEngine()
        for second in 0 ..< 100 {
            let time = Double(second)
            let known = pauses.filter { $0.start <= time }.map {
                $0.end > time ? ZonePause(start: $0.start, end: .infinity) : $0
            }
            folded.setPauses(known)
            exact.setPauses(known)
            folded.add(start: time, end: time, value: 130)
            exact.add(start: time, end: time, value: 130)
        }
        return (folded, exact)
    }

    @Test func aLatePauseInFoldedHistoryRestartsCountingAtTheResume() {
        var (folded, exact) = Self.steady()
        let late = [ZonePause(start: 10.5, end: 20.5)]
        folded.setPauses(late)
        exact.setPauses(late)
        // Exact: [0, 10.5), then from the first reading after the resume (21) to 109. Folded: from the resume, 20.5.
        #expect(exact.durations(at: 109) == [0, 0, 98.5, 0, 0])
        #expect(folded.durations(at: 109) == [0, 0, 99, 0, 0])
        #expect(folded.durations(from: 0, to: 109) == [0, 0, 99, 0, 0])
        #expect(folded.durations(from: 20, to: 21) == [0, 0, 0.5, 0, 0])
        #expect(exact.durations(from: 20, to: 21) == [0, 0, 0, 0, 0])
        #expect(folded.durations(from: 98, to: 109) == exact.durations(from: 98, to: 109))  // the exact window
        // A late resume at a reading's start is exact.
        var (onReading, truth) = Self.steady()
        onReading.setPauses([ZonePause(start: 10.5, end: 20)])
        truth.setPauses([ZonePause(start: 10.5, end: 20)])
        #expect(onReading.durations(at: 109) == [0, 0, 99.5, 0, 0] && truth.durations(at: 109) == [0, 0, 99.5, 0, 0])
    }

    @Test func timeAPauseHidBeforeItWasFoldedIsNotCountedAgain() {
        var (folded, exact) = Self.steady(pauses: [ZonePause(start: 10, end: 30)])
        #expect(folded.durations(at: 109) == [0, 0, 89, 0, 0] && exact.durations(at: 109) == [0, 0, 89, 0, 0])
        // The pause turns out to have ended at 20.5: the exact engine counts again from the reading at 21; folded
        // history kept nothing of [20.5, 30).
        let shorter = [ZonePause(start: 10, end: 20.5)]
        folded.setPauses(shorter)
        exact.setPauses(shorter)
        #expect(exact.durations(at: 109) == [0, 0, 98, 0, 0])
        #expect(folded.durations(at: 109) == [0, 0, 89, 0, 0])
    }

    /// With every pause learned only at the end, folded history can only over-count, by less than one sample's
    /// coverage per resume; durations stay consistent and never exceed the running time.
    @Test func latePausesOverCountFoldedHistoryByLessThanASamplePerResume() async {
        await propertyCheck(count: 150, input: Self.traces.0, Self.traces.1, Self.traces.2) { numbers, shape, edges in
            let trace = Trace(numbers, shape, edges)
            var exact = Self.exactEngine()
            var folded = ZoneAccumulator(boundaries: Self.boundaries, exactWindow: 1 + numbers.count % 4)
            for sample in trace.samples {
                exact.add(start: sample.start, end: sample.end, value: sample.value)
                folded.add(start: sample.start, end: sample.end, value: sample.value)
            }
            exact.setPauses(trace.pauses)
            folded.setPauses(trace.pauses)
            let reported = folded.durations(at: trace.end)
            let truth = exact.durations(at: trace.end)
            #expect(Self.close(reported, folded.durations(from: -.infinity, to: trace.end)))
            for zone in reported.indices { #expect(reported[zone] >= truth[zone] - 1e-9) }
            let excess = reported.reduce(0, +) - truth.reduce(0, +)
            #expect(excess <= Double(trace.pauses.count) * trace.longestCoverage + 1e-9)
            let first = trace.samples[0].start
            let running = ZoneAccumulator.runningTime(trace.pauses, from: first, to: trace.end)
            #expect(reported.reduce(0, +) <= running + 1e-9)
        }
    }

    // MARK: Blocks: the zone flipping every few samples for hours

    @Test func blocksKeepTotalsExactAndWindowsExactOutsideTheirEdges() async {
        await propertyCheck(count: 150, input: Self.traces.0, Self.traces.1, Self.traces.2) { numbers, shape, edges in
            let trace = Trace(numbers, shape, edges)
            let window = 1 + numbers.count % 3
            let capacity = 2 + shape.count % 5
            var exact = Self.exactEngine()
            var folded = ZoneAccumulator(boundaries: Self.boundaries, exactWindow: window, runCapacity: capacity)
            for sample in trace.samples {
                let known = trace.known(at: sample.start)
                exact.setPauses(known)
                folded.setPauses(known)
                exact.add(start: sample.start, end: sample.end, value: sample.value)
                folded.add(start: sample.start, end: sample.end, value: sample.value)
                #expect(Self.close(folded.durations(at: sample.start + 0.5), exact.durations(at: sample.start + 0.5)))
                #expect(folded.storedEntryCount <= 2 * window - 1 + capacity + 4)
            }
            exact.setPauses(trace.pauses)
            folded.setPauses(trace.pauses)
            #expect(Self.close(folded.durations(at: trace.end), exact.durations(at: trace.end)))
            #expect(
                Self.close(
                    folded.durations(from: -.infinity, to: trace.end), exact.durations(from: -.infinity, to: trace.end))
            )
            let blocks = folded.blockExtents
            for (start, end) in trace.windows {
                let reported = folded.durations(from: start, to: end)
                let truth = exact.durations(from: start, to: end)
                // A window edge strictly inside a block is proportional, wrong by at most that block's time.
                let cut = blocks.filter { ($0.start < start && start < $0.end) || ($0.start < end && end < $0.end) }
                let slack = cut.reduce(0) { $0 + ZoneAccumulator.runningTime(trace.pauses, from: $1.start, to: $1.end) }
                let error = zip(reported, truth).reduce(0) { $0 + abs($1.0 - $1.1) }
                #expect(error <= slack + 1e-9 * max(1, end.isFinite ? abs(end) : trace.end))
                #expect(
                    reported.reduce(0, +) <= ZoneAccumulator.runningTime(trace.pauses, from: max(start, -1), to: end)
                        + 1e-9)
            }
        }
    }

    // MARK: Memory over a day

    /// 24 hours at 4 Hz from one heart-rate sensor: the zone changes every 20–40 s, a 60 s dropout every 2 hours,
    /// a 5-minute pause every 4 hours learned as it happens (`flip`: the zone changes on every reading instead).
    static func day(flip: Bool, into engines: inout [ZoneAccumulator], check: (ZoneAccumulator) -> Void) -> Double {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ range: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(range))
        }
        let centres = [90.0, 110, 130, 150, 170]
        var zone = 2
        var nextChange = 30.0
        var pauses: [ZonePause] = []
        var time = 0.0
        for tick in 0 ..< 24 * 3600 * 4 {
            time = Double(tick) / 4
            if (7000 ..< 7060).contains(Int(time) % 7200) { continue }
            if tick % (4 * 3600 * 4) == 0, tick > 0 { pauses.append(ZonePause(start: time, end: .infinity)) }
            if let last = pauses.last, last.end == .infinity, time >= last.start + 300 {
                pauses[pauses.count - 1].end = time
            }
            if flip {
                zone = tick % 2 == 0 ? 1 : 3
            } else if time >= nextChange {
                zone = max(0, min(4, zone + (next(2) == 0 ? -1 : 1)))
                nextChange = time + 20 + Double(next(21))
            }
            let value = centres[zone] + Double(next(9)) - 4
            for index in engines.indices {
                engines[index].setPauses(pauses)
                engines[index].add(start: time, end: time, value: value)
            }
            check(engines[0])
        }
        return time + 10
    }

    @Test func aDayOfRealisticHeartRateStaysSmallAndExact() {
        var engines = [ZoneAccumulator(boundaries: Self.boundaries), Self.exactEngine()]
        var most = 0
        let end = Self.day(flip: false, into: &engines) { most = max(most, $0.storedEntryCount) }
        let (folded, exact) = (engines[0], engines[1])
        #expect(folded.sampleCount == 24 * 3600 * 4 - 12 * 60 * 4 && exact.sampleCount == folded.sampleCount)
        // At most 8,191 samples in the exact window, and a run per zone change, dropout and pause (about 3,000).
        #expect(most < 12_000)
        #expect(folded.storedBytes < 220_000)
        #expect(folded.blockExtents.isEmpty)
        #expect(Self.close(folded.durations(at: end), exact.durations(at: end)))
        for hour in 0 ..< 24 {
            let window = (Double(hour) * 3600 + 1234.5, Double(hour + 1) * 3600 + 17)
            #expect(
                Self.close(
                    folded.durations(from: window.0, to: window.1), exact.durations(from: window.0, to: window.1)))
        }
    }

    @Test func aDayOfZoneFlippingOnEveryReadingStaysBounded() {
        var engines = [ZoneAccumulator(boundaries: Self.boundaries), Self.exactEngine()]
        var most = 0
        let end = Self.day(flip: true, into: &engines) { most = max(most, $0.storedEntryCount) }
        let (folded, exact) = (engines[0], engines[1])
        #expect(most <= 2 * 4096 - 1 + 65_536 + 256)
        #expect(!folded.blockExtents.isEmpty)
        #expect(Self.close(folded.durations(at: end), exact.durations(at: end)))
        #expect(Self.close(folded.durations(from: 0, to: end), exact.durations(from: 0, to: end)))
        // The latest hours are still runs: exact.
        #expect(
            Self.close(
                folded.durations(from: 23 * 3600 + 0.3, to: end), exact.durations(from: 23 * 3600 + 0.3, to: end)))
    }
}
