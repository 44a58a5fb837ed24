import Foundation
import PropertyBased
import TestSupport
import Testing

@testable import OpenHealthKit

/// The invariant: every statistic is the same before and after condensing (relative 1e-9).
///
/// Three minutes: the property test takes 16 s of one core alone, and beside 780 other tests on two cores it has
/// passed the one-minute limit without being stuck.
@Suite(.timeLimit(.minutes(3))) struct CondenseInvariantTests {
    static let bpm = HKUnit(from: "count/min")
    static let heartRateOptions: HKStatisticsOptions = [
        .discreteAverage, .discreteMin, .discreteMax, .mostRecent, .duration,
        .separateBySource,
    ]
    static let energyOptions: HKStatisticsOptions = [.cumulativeSum, .duration, .separateBySource]
    static let powerOptions: HKStatisticsOptions = [
        .discreteAverage, .discreteMin, .discreteMax, .mostRecent, .duration,
        .separateBySource,
    ]

    /// A workout from generated numbers: heart rate from two sources (zero-length readings with repeats, gaps longer
    /// than the hold, some readings with a duration), cycling power from both (an arithmetic mean: every reading
    /// counts), and contiguous active-energy samples with repeated rates, a third of them also saved by the strap
    /// half a sample later (overlapping sources merged by priority).
    static func makeWorkout(heart: [Int], energy: [Int], in store: HKHealthStore) async throws -> HKWorkout {
        let strap = store.asClient("strap")
        try await strap.requestAuthorization(toShare: allTypes, read: Set(allTypes.map { $0 as HKObjectType }))
        var own: [HKSample] = []
        var strapSamples: [HKSample] = []
        var time = 0.0
        for (index, n) in heart.enumerated() {
            time += Double(1 + n % 13) + (n % 17 == 0 ? 0.25 : 0)
            let value = Double(120 + (n / 13) % 4 * 3)
            let length: TimeInterval = n % 7 == 0 ? 2 : 0
            let sample = heartRate(value, at: time, length: length)
            if index % 5 == 4 { strapSamples.append(sample) } else { own.append(sample) }
            let watts = HKQuantitySample(
                type: HKQuantityType(.cyclingPower),
                quantity: HKQuantity(unit: .watt(), doubleValue: Double(150 + n % 9 * 10)),
                start: t0 + time, end: t0 + time + (n % 3 == 0 ? 1 : 0))
            if index % 4 == 3 { strapSamples.append(watts) } else { own.append(watts) }
        }
        var energyTime = 3.0
        for n in energy {
            let length = Double(1 + n % 4)
            let rate = [0.1, 0.25, 0.3][n % 3]
            own.append(
                HKQuantitySample(
                    type: HKQuantityType(.activeEnergyBurned),
                    quantity: HKQuantity(unit: .kilocalorie(), doubleValue: rate * length),
                    start: t0 + energyTime, end: t0 + energyTime + length))
            if n % 3 == 1 {
                strapSamples.append(
                    HKQuantitySample(
                        type: HKQuantityType(.activeEnergyBurned),
                        quantity: HKQuantity(unit: .kilocalorie(), doubleValue: 0.2 * length),
                        start: t0 + energyTime + length / 2,
                        end: t0 + energyTime + length * 1.5))
            }
            energyTime += length + (n % 11 == 0 ? 3 : 0)
        }
        let end = t0 + max(time, energyTime) + 30
        let workout = legacy.workout(
            activityType: .running, start: t0, end: end, workoutEvents: nil, totalEnergyBurned: nil,
            totalDistance: nil, metadata: nil)
        try await store.save(workout)
        try await store.associate(own, with: workout)
        try await strap.associate(strapSamples, with: workout)
        return workout
    }

    struct Snapshot {
        var statistics: [HKStatistics?] = []
        var collections: [[HKStatistics]] = []
    }

    static func snapshot(_ store: HKHealthStore, _ workout: HKWorkout) async throws -> Snapshot {
        var snapshot = Snapshot()
        let middle = workout.startDate + workout.endDate.timeIntervalSince(workout.startDate) * 0.37
        for (type, options) in [
            (HKQuantityType(.heartRate), heartRateOptions), (HKQuantityType(.activeEnergyBurned), energyOptions),
            (HKQuantityType(.cyclingPower), powerOptions),
        ] {
            for predicate in [
                nil, HKQuery.predicateForSamples(withStart: workout.startDate + 7.5, end: middle),
                HKQuery.predicateForObjects(from: workout),
            ] {
                snapshot.statistics.append(
                    try await HKStatisticsQueryDescriptor(
                        predicate: .quantitySample(type: type, predicate: predicate), options: options
                    ).result(for: store))
            }
            for seconds in [20, 60] {
                let collection = try await HKStatisticsCollectionQueryDescriptor(
                    predicate: .quantitySample(type: type), options: options, anchorDate: t0 + 7,
                    intervalComponents: DateComponents(second: seconds)
                ).result(for: store)
                snapshot.collections.append(collection.statistics())
            }
        }
        return snapshot
    }

    static func same(_ a: Double?, _ b: Double?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case let (a?, b?): return abs(a - b) <= 1e-9 * max(1, abs(a), abs(b))
        default: return false
        }
    }

    static func expectSame(_ a: HKStatistics.Values?, _ b: HKStatistics.Values?, _ what: String) {
        #expect(same(a?.sum, b?.sum), "sum \(what): \(String(describing: a?.sum)) vs \(String(describing: b?.sum))")
        #expect(
            same(a?.average, b?.average),
            "average \(what): \(String(describing: a?.average)) vs \(String(describing: b?.average))")
        #expect(same(a?.minimum, b?.minimum), "minimum \(what)")
        #expect(same(a?.maximum, b?.maximum), "maximum \(what)")
        #expect(
            same(a?.mostRecent, b?.mostRecent),
            "most recent \(what): \(String(describing: a?.mostRecent)) vs \(String(describing: b?.mostRecent))")
        #expect(
            same(a?.duration, b?.duration),
            "duration \(what): \(String(describing: a?.duration)) vs \(String(describing: b?.duration))")
    }

    static func expectSame(_ a: HKStatistics?, _ b: HKStatistics?, _ what: String) {
        #expect((a == nil) == (b == nil), "presence \(what)")
        guard let a, let b else { return }
        #expect(a.startDate == b.startDate && a.endDate == b.endDate, "interval \(what)")
        expectSame(a.merged, b.merged, what)
        #expect(Set(a.bySource.keys) == Set(b.bySource.keys), "sources \(what)")
        for (source, values) in a.bySource { expectSame(values, b.bySource[source], "\(what) for \(source.name)") }
    }

    /// Sixty generated workouts on SQLite; twelve on PostgreSQL, each in a database of its own (the rule that cuts
    /// runs is one, ``CondenseRuns``; what differs is how each backend reads the rows and stores the series).
    @Test(arguments: StoreKind.available) func everyStatisticSurvivesCondensing(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        await propertyCheck(
            count: kind == .sqlite ? 60 : 12, input: Gen.int(in: 0 ... 999).array(of: 2 ... 150),
            Gen.int(in: 0 ... 999).array(of: 2 ... 60)
        ) { heart, energy in
            let store = try await kind.authorizedStore(directory)
            let workout = try await Self.makeWorkout(heart: heart, energy: energy, in: store)
            let before = try await Self.snapshot(store, workout)
            let report = try await store.condenseWorkout(workout)
            #expect(report.samplesRemoved > 0)
            let after = try await Self.snapshot(store, workout)
            for (index, (a, b)) in zip(before.statistics, after.statistics).enumerated() {
                Self.expectSame(a, b, "statistics query \(index)")
            }
            for (index, (a, b)) in zip(before.collections, after.collections).enumerated() {
                #expect(a.count == b.count, "collection \(index) intervals")
                for (x, y) in zip(a, b) { Self.expectSame(x, y, "collection \(index) at \(x.startDate)") }
            }
            let again = try await store.condenseWorkout(workout)
            #expect(again.samplesRemoved == 0 && again.seriesCreated == 0)
        }
    }
}
