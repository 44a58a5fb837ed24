import FitnessSensors
import Foundation
import HealthKitModel
import WorkoutEngine

extension HKHealthStore {
    /// The normalized power of a workout (see ``NormalizedPower``) from the cycling-power samples associated with
    /// it (its running-power samples when it has none), its pauses (``WorkoutPauses``) left out; nil with under
    /// 30 s of power. With `interval`, only the samples starting in it (a lap, an activity).
    ///
    /// OpenHealthKit extension.
    public func normalizedPower(
        for workout: HKWorkout, during interval: DateInterval? = nil
    ) async throws -> HKQuantity? {
        var predicate: NSPredicate = HKQuery.predicateForObjects(from: workout)
        if let interval {
            predicate = NSCompoundPredicate(andPredicateWithSubpredicates: [
                predicate,
                HKQuery.predicateForSamples(withStart: interval.start, end: interval.end, options: .strictStartDate),
            ])
        }
        var samples: [HKQuantitySample] = []
        for identifier in [HKQuantityTypeIdentifier.cyclingPower, .runningPower] where samples.isEmpty {
            samples = try await HKSampleQueryDescriptor(
                predicates: [.quantitySample(type: HKQuantityType(identifier), predicate: predicate)],
                sortDescriptors: [SortDescriptor(\.startDate)]
            ).result(for: self)
        }
        let power = samples.map {
            NormalizedPower.Sample(start: $0.startDate, end: $0.endDate, watts: $0.quantity.doubleValue(for: .watt()))
        }
        let pauses = WorkoutPauses.intervals(
            in: workout.workoutEvents ?? [], from: workout.startDate,
            to: workout.endDate)
        return NormalizedPower.normalized(power, pauses: pauses).map { HKQuantity(unit: .watt(), doubleValue: $0) }
    }
}

extension HKHealthStore {
    /// The step samples associated with a workout, each quantity of a condensed series on its own (see
    /// ``RunningCadence``), in time order.
    ///
    /// OpenHealthKit extension.
    public func stepSamples(for workout: HKWorkout) async throws -> [(interval: DateInterval, steps: Double)] {
        let predicate = HKSamplePredicate.quantitySample(
            type: HKQuantityType(.stepCount), predicate: HKQuery.predicateForObjects(from: workout))
        var samples: [(interval: DateInterval, steps: Double)] = []
        for try await result in HKQuantitySeriesSampleQueryDescriptor(predicate: predicate, options: [])
            .results(for: self)
        {
            samples.append((result.dateInterval, result.quantity.doubleValue(for: .count())))
        }
        return samples.sorted { $0.interval.start < $1.interval.start }
    }

    /// The running cadence of a workout (``RunningCadence``: average and maximum steps a minute) from the step
    /// samples associated with it; with `interval`, of the samples starting in it (a lap, an activity). Nil when it
    /// has no step samples spanning time.
    ///
    /// OpenHealthKit extension: HealthKit has no running cadence.
    public func runningCadence(
        for workout: HKWorkout, during interval: DateInterval? = nil
    ) async throws -> RunningCadence.Statistics? {
        RunningCadence.statistics(try await stepSamples(for: workout), within: interval)
    }
}

extension HKHealthStore {
    /// The statistics of a workout's samples during `interval` (a lap), for each type the workout has statistics
    /// of: sums for cumulative types, average, minimum and maximum for discrete ones; a type with no sample in the
    /// interval is left out. See ``WorkoutLaps`` for the rules.
    ///
    /// OpenHealthKit extension.
    public func statistics(
        for workout: HKWorkout,
        during interval: DateInterval
    ) async throws -> [HKQuantityType: HKStatistics] {
        let within = NSCompoundPredicate(andPredicateWithSubpredicates: [
            HKQuery.predicateForObjects(from: workout),
            HKQuery.predicateForSamples(withStart: interval.start, end: interval.end, options: []),
        ])
        var result: [HKQuantityType: HKStatistics] = [:]
        for type in workout.allStatistics.keys.sorted(by: { $0.identifier < $1.identifier }) {
            let options: HKStatisticsOptions =
                type.aggregationStyle == .cumulative
                ? .cumulativeSum
                : [.discreteAverage, .discreteMin, .discreteMax]
            let statistics = try await HKStatisticsQueryDescriptor(
                predicate: .quantitySample(type: type, predicate: within), options: options
            ).result(for: self)
            if let statistics { result[type] = statistics }
        }
        return result
    }
}
