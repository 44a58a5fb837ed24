import Foundation
import Testing

@testable import OpenHealthKit

/// The pure statistics engine: proration, weighting, holds, sources, summaries.
@Suite(.timeLimit(.minutes(1))) struct StatisticsEngineTests {
    let base = t0.storeValue

    func accumulator(_ style: HKQuantityAggregationStyle, _ from: Double, _ to: Double) -> StatisticsAccumulator {
        StatisticsAccumulator(style: style, rangeStart: base + from, rangeEnd: base + to)
    }

    @Test func cumulativeSampleStraddlingABoundIsProratedByTime() {
        // 100 steps from 13:57 to 14:02 give 60 before 14:00 and 40 after (vital-ios#34).
        var before = accumulator(.cumulative, -3600, 0)
        var after = accumulator(.cumulative, 0, 3600)
        for index in [0, 1] {
            var target = index == 0 ? before : after
            target.add(start: base - 180, end: base + 120, value: 100, source: 1)
            if index == 0 { before = target } else { after = target }
        }
        #expect(abs(before.values().merged!.sum! - 60) < 1e-9)
        #expect(abs(after.values().merged!.sum! - 40) < 1e-9)
        #expect(before.values().merged!.duration == 180)
        #expect(before.values().merged!.average == nil)
    }

    @Test func zeroLengthCumulativeSamplesCountInsideTheHalfOpenRange() {
        var accumulator = accumulator(.cumulative, 0, 60)
        accumulator.add(start: base, end: base, value: 5, source: 1)  // at the start: in
        accumulator.add(start: base + 60, end: base + 60, value: 7, source: 1)  // at the end: out
        #expect(accumulator.values().merged!.sum == 5)
    }

    @Test func heartRateWeighsDurationsAndHoldsInstantsUntilTheNextSample() {
        var accumulator = accumulator(.discreteTemporallyWeighted, 0, 100)
        accumulator.add(start: base, end: base + 30, value: 100, source: 1)  // covers 30 s
        accumulator.add(start: base + 30, end: base + 30, value: 160, source: 1)  // holds 5 s, to the next
        accumulator.add(start: base + 35, end: base + 35, value: 130, source: 1)  // holds 10 s (cap), then dropout
        accumulator.add(start: base + 80, end: base + 80, value: 90, source: 1)  // holds 10 s
        let values = accumulator.values().merged!
        let weighted: Double = 100 * 30 + 160 * 5 + 130 * 10 + 90 * 10
        let expected = weighted / 55
        #expect(abs(values.average! - expected) < 1e-9)
        #expect(values.duration == 55)
        #expect(values.minimum == 90)
        #expect(values.maximum == 160)
        #expect(values.mostRecent == 90)
        #expect(values.sum == nil)
    }

    @Test func aHeldValueIsClippedToTheRangeAndCountsWhereItHolds() {
        // An instant 4 s before the range holds 6 s into it; one 3 s before the end holds only 3 s.
        var accumulator = accumulator(.discreteTemporallyWeighted, 0, 60)
        accumulator.add(start: base - 4, end: base - 4, value: 120, source: 1)
        accumulator.add(start: base + 6, end: base + 6, value: 60, source: 1)
        accumulator.add(start: base + 57, end: base + 57, value: 180, source: 1)
        let values = accumulator.values().merged!
        let weighted: Double = 120 * 6 + 60 * 10 + 180 * 3
        #expect(abs(values.average! - weighted / 19) < 1e-9)
        #expect(values.minimum == 60)
    }

    @Test func aLiveHorizonLimitsTheLastHold() {
        var accumulator = accumulator(.discreteTemporallyWeighted, 0, 3600)
        accumulator.add(start: base, end: base, value: 100, source: 1)
        accumulator.add(start: base + 1, end: base + 1, value: 200, source: 1)
        let now = accumulator.values(through: t0 + 1.5).merged!
        let weighted: Double = 100 * 1 + 200 * 0.5
        #expect(abs(now.average! - weighted / 1.5) < 1e-9)
        #expect(accumulator.values().merged!.duration == 11)
    }

    @Test func arithmeticTypesTakeThePlainMean() {
        var accumulator = accumulator(.discreteArithmetic, 0, 100)
        accumulator.add(start: base, end: base + 90, value: 100, source: 1)
        accumulator.add(start: base + 90, end: base + 91, value: 300, source: 1)
        #expect(accumulator.values().merged!.average == 200)
    }

    @Test func sourcesAreSeparateStreamsAndMergeByCombining() {
        var accumulator = accumulator(.cumulative, 0, 100)
        accumulator.add(start: base, end: base + 10, value: 3, source: 1)
        accumulator.add(start: base + 5, end: base + 15, value: 4, source: 2)
        let (merged, bySource) = accumulator.values()
        #expect(merged!.sum == 7)
        #expect(bySource[1]!.sum == 3)
        #expect(bySource[2]!.sum == 4)
        #expect(merged!.mostRecent == 4)
        #expect(merged!.duration == 20)
    }

    @Test func aSeriesSummaryGivesWhatItsQuantitiesGive() {
        let quantities = (0 ..< 50).map { (i: Int) -> SeriesQuantity in
            let time: Double = base + Double(i) * 1.5
            return SeriesQuantity(start: time, end: time, value: 100 + Double(i % 7))
        }
        let seriesEnd = base + 80
        var oneByOne = accumulator(.discreteTemporallyWeighted, -10, 200)
        for quantity in quantities {
            oneByOne.add(
                start: quantity.start, end: quantity.end, value: quantity.value, source: 3, holdLimit: seriesEnd)
        }
        var summarized = accumulator(.discreteTemporallyWeighted, -10, 200)
        summarized.add(
            summary: StatisticsAccumulator.summary(
                style: .discreteTemporallyWeighted, of: quantities,
                seriesEnd: seriesEnd),
            seriesStart: base, source: 3)
        #expect(oneByOne.values().merged == summarized.values().merged)
    }

    @Test func soundLevelsAverageAsEnergy() {
        var accumulator = accumulator(.discreteEquivalentContinuousLevel, 0, 20)
        accumulator.add(start: base, end: base + 10, value: 80, source: 1)
        accumulator.add(start: base + 10, end: base + 20, value: 90, source: 1)
        let expected = 10 * log10((pow(10, 8.0) + pow(10, 9.0)) / 2)
        #expect(abs(accumulator.values().merged!.average! - expected) < 1e-9)
    }

    @Test func statisticsOfSamplesIsNilWithoutMembersAndPerSourceOtherwise() {
        let type = HKQuantityType(.heartRate)
        #expect(StatisticsAccumulator.statistics(for: type, samples: [], start: t0, end: t0 + 60) == nil)
        let outside = [heartRate(100, at: 120)]
        #expect(StatisticsAccumulator.statistics(for: type, samples: outside, start: t0, end: t0 + 60) == nil)
        let samples = [heartRate(100, at: 0, length: 20), heartRate(130, at: 20, length: 10)]
        let statistics = StatisticsAccumulator.statistics(for: type, samples: samples, start: t0, end: t0 + 60)!
        #expect(abs(statistics.averageQuantity()!.doubleValue(for: HKUnit(from: "count/min")) - 110) < 1e-9)
        #expect(statistics.sources?.count == 1)
        #expect(
            statistics.maximumQuantity(for: statistics.sources![0])!.doubleValue(for: HKUnit(from: "count/min")) == 130)
    }
}
