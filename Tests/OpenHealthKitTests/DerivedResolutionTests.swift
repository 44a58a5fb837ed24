import FitnessSensors
import Foundation
import Testing

@testable import OpenHealthKit

/// Derived values are rounded where a reading becomes a sample (``ReadingMapper``, ``DerivedResolution``): cadence
/// to 0.1 rpm, speed to 0.001 m/s, distance to 0.01 m and energy to 0.001 kcal, the cumulative two as running totals.
/// Expected values are worked out by hand in the comments.
@Suite(.timeLimit(.minutes(1))) struct DerivedResolutionTests {
    func samples(
        _ values: [(SensorReadingValue, Double)], activity: HKWorkoutActivityType = .cycling
    ) -> [CollectedSample] {
        var mapper = ReadingMapper()
        var out: [CollectedSample] = []
        for (value, time) in values {
            mapper.samples(for: value, at: time, activity: activity, deviceCode: 0, into: &out)
        }
        return out
    }

    func values(_ samples: [CollectedSample], _ identifier: HKQuantityTypeIdentifier) -> [Double] {
        samples.filter { $0.typeCode == HKQuantityType(identifier).code }.map(\.value)
    }

    @Test func cadenceAndSpeedAreRoundedToTheirSteps() {
        // Rates as the calculators make them (from the ride fixture): 80.94861660079052 rpm → 809.486 tenths → 809
        // → 80.9; 82.35924932975871 → 823.59 → 824 → 82.4. Speed 8.469626719056974 m/s → 8469.63 mm/s → 8470
        // → 8.47; 8.6393587 → 8639.36 → 8639 → 8.639.
        let out = samples([
            (.cadence(CadenceReading(rpm: 80.94861660079052)), 1),
            (.cadence(CadenceReading(rpm: 82.35924932975871)), 2),
            (.speed(SpeedReading(metresPerSecond: 8.469626719056974)), 1),
            (.speed(SpeedReading(metresPerSecond: 8.639358717434868)), 2),
        ])
        #expect(values(out, .cyclingCadence) == [80.9, 82.4])
        #expect(values(out, .cyclingSpeed) == [8.47, 8.639])
        // The stored Double is exactly integer / steps, the form the series codec reads back without a correction.
        #expect(
            values(out, .cyclingSpeed).map { $0.bitPattern }
                == [Double(8470) / 1000, Double(8639) / 1000].map(\.bitPattern))
        // A running speed takes the same resolution.
        #expect(
            values(samples([(.speed(SpeedReading(metresPerSecond: 3.14159)), 1)], activity: .running), .runningSpeed)
                == [3.142])
    }

    @Test func aValueThatIsNotFiniteMakesNoSample() {
        let out = samples([
            (.cadence(CadenceReading(rpm: .nan)), 1), (.speed(SpeedReading(metresPerSecond: .infinity)), 1),
            (.distance(DistanceReading(metres: .infinity, totalMetres: .infinity)), 1),
        ])
        #expect(out.isEmpty)
    }

    @Test func distanceIsRoundedAsARunningTotal() {
        // Three readings of 0.333 m: running totals 0.333, 0.666, 0.999 m → 33, 67, 100 cm → samples of 0.33, 0.34
        // and 0.33 m (rounding each reading alone would give 0.33 three times, 0.99 m, 1 cm short).
        let out = samples([
            (.distance(DistanceReading(metres: 0.333, totalMetres: 0.333)), 1),
            (.distance(DistanceReading(metres: 0.333, totalMetres: 0.666)), 2),
            (.distance(DistanceReading(metres: 0.333, totalMetres: 0.999)), 3),
        ])
        let distances = out.filter { $0.typeCode == HKQuantityType(.distanceCycling).code }
        #expect(distances.map(\.value) == [0.33, 0.34, 0.33])
        #expect(distances.map(\.start) == [1, 1, 2], "each spans from the previous distance sample")
        #expect(distances.map(\.end) == [1, 2, 3])
    }

    @Test func aDistanceIncrementBelowHalfAStepWaitsWithItsSpan() {
        // 0.004 m at t = 1 → total 0.4 cm → 0: no sample. 0.004 m at t = 2 → 0.8 cm → 1 cm: one sample of 0.01 m
        // spanning 1…2 s, the time both readings covered.
        let out = samples([
            (.distance(DistanceReading(metres: 0.004, totalMetres: 0.004)), 1),
            (.distance(DistanceReading(metres: 0.004, totalMetres: 0.008)), 2),
        ])
        #expect(out.map(\.value) == [0.01])
        #expect(out.map(\.start) == [1] && out.map(\.end) == [2])
    }

    @Test func energyFromPowerIsRoundedAsARunningTotal() {
        // 250 W from 0 to 0.5 s: 0.125 kJ → 125 thousandths. 250 W from 0.5 to 1.003 s: 0.12575 kJ, total 0.25075 →
        // 251, sample 0.126. 250 W from 1.003 to 1.504 s: 0.12525, total 0.376 → 376, sample 0.125.
        let out = samples([
            (.power(PowerReading(watts: 250)), 0), (.power(PowerReading(watts: 250)), 0.5),
            (.power(PowerReading(watts: 250)), 1.003), (.power(PowerReading(watts: 250)), 1.504),
        ])
        let energy = out.filter { $0.typeCode == HKQuantityType(.activeEnergyBurned).code }
        #expect(energy.map(\.value) == [0.125, 0.126, 0.125])
        #expect(energy.map(\.start) == [0, 0.5, 1.003])
        #expect(values(out, .cyclingPower) == [250, 250, 250, 250])
    }

    @Test func anEnergyIncrementBelowHalfAStepWaitsWithItsSpan() {
        // 1 W for 0.25 s: 0.00025 kJ → total 0.25 thousandths → 0, no energy sample. 1 W from 0.25 to 0.75 s:
        // 0.0005, total 0.00075 → 0.75 → 1: one sample of 0.001 kcal spanning 0…0.75 s.
        let out = samples([
            (.power(PowerReading(watts: 1)), 0), (.power(PowerReading(watts: 1)), 0.25),
            (.power(PowerReading(watts: 1)), 0.75),
        ])
        let energy = out.filter { $0.typeCode == HKQuantityType(.activeEnergyBurned).code }
        #expect(energy.map(\.value) == [0.001])
        #expect(energy.map(\.start) == [0] && energy.map(\.end) == [0.75])
    }

    @Test func runningTotalsNeverDrift() {
        // 10,000 readings of 2.105 m (one wheel revolution of a 700×25C wheel): 21,050 m = 2,105,000 cm. Rounding each
        // reading alone gives 211 cm each (2.105 × 100 rounds to 210.5 in binary, then up): 5,000 cm too many.
        var metres = CumulativeRounding(steps: 100)
        var centimetres: Int64 = 0
        for _ in 0 ..< 10_000 { centimetres += Int64(((metres.add(2.105) ?? .nan) * 100).rounded()) }
        #expect(centimetres == 2_105_000)
        let alone = Int64((2.105 * 100).rounded()) * 10_000
        #expect(alone != 2_105_000, "the per-reading rounding this avoids is off by \(alone - 2_105_000) cm")
    }

    @Test func sampleTimesAreArrivalTimesToTheMillisecond() {
        // 816,850,800.1234567 s → 816,850,800,123.4567 ms → 816,850,800,123 ms: the Double nearest 816850800.123.
        // 816,850,800.9996 → …800,999.6 ms → …801,000 ms = 816850801.0 exactly.
        let out = samples([
            (.heartRate(HeartRateReading(bpm: 140)), 816_850_800.1234567),
            (.heartRate(HeartRateReading(bpm: 141)), 816_850_800.9996),
        ])
        #expect(out.map(\.start) == [816_850_800.123, 816_850_801])
        #expect(out.map(\.end) == out.map(\.start))
        // A whole millisecond stays as it is, bit for bit.
        let exact = Double(816_850_800_146) / 1000
        #expect(samples([(.power(PowerReading(watts: 200)), exact)]).map(\.start.bitPattern) == [exact.bitPattern])
    }
}
