import Foundation
import OpenHealthKit

/// `workout show`'s list of a workout's associated samples: every quantity type the store holds samples of for the
/// workout, with how many and the figures the summary shows for it, from the library: the workout's statistics
/// (`HKWorkout.statistics(for:)`: totals of cumulative types, average and maximum of discrete ones), and for step
/// samples the running cadence (`HKHealthStore.runningCadence(for:)`).
enum AssociatedSamples {
    struct Row: Equatable {
        var name: String
        var count: Int
        var figures: String
    }

    /// The types in the order they are listed, with their names and the unit their figures are given in.
    static let known: [(HKQuantityTypeIdentifier, String, HKUnit)] = [
        (.heartRate, "heart rate", WorkoutSummary.bpm),
        (.activeEnergyBurned, "active energy", .kilocalorie()),
        (.distanceWalkingRunning, "distance", .meter()),
        (.distanceCycling, "distance", .meter()),
        (.distanceSwimming, "distance", .meter()),
        (.distanceRowing, "distance", .meter()),
        (.distanceWheelchair, "distance", .meter()),
        (.cyclingPower, "power", .watt()),
        (.runningPower, "power", .watt()),
        (.cyclingCadence, "cadence", WorkoutSummary.bpm),
        (.stepCount, "steps", .count()),
        (.cyclingSpeed, "speed", .meter().unitDivided(by: .second())),
        (.runningSpeed, "speed", .meter().unitDivided(by: .second())),
        (.rowingSpeed, "speed", .meter().unitDivided(by: .second())),
        (.runningStrideLength, "stride length", .meter()),
        (.runningVerticalOscillation, "vertical oscillation", .meterUnit(with: .centi)),
        (.runningGroundContactTime, "ground contact time", .secondUnit(with: .milli)),
        (.swimmingStrokeCount, "strokes", .count()),
        (.pushCount, "pushes", .count()),
    ]

    static func rows(of workout: HKWorkout, store: HKHealthStore) async throws -> [Row] {
        // The listed types first, in their order, then any other type the workout has statistics of.
        var types = known.map { (HKQuantityType($0.0), $0.1, $0.2) }
        for type in workout.allStatistics.keys.sorted(by: { $0.identifier < $1.identifier })
        where !types.contains(where: { $0.0 == type }) {
            types.append(
                (
                    type, type.identifier.replacingOccurrences(of: "HKQuantityTypeIdentifier", with: ""),
                    type.storageUnit
                ))
        }
        var rows: [Row] = []
        for (type, name, unit) in types {
            let samples = try await HKSampleQueryDescriptor(
                predicates: [.quantitySample(type: type, predicate: HKQuery.predicateForObjects(from: workout))],
                sortDescriptors: []
            ).result(for: store)
            guard !samples.isEmpty else { continue }
            let statistics = try await statistics(of: type, workout: workout, store: store)
            let value = { (quantity: HKQuantity?) in Format.number(quantity?.doubleValue(for: unit) ?? 0) }
            var figures =
                type.aggregationStyle == .cumulative
                ? "total \(value(statistics?.sumQuantity())) \(unit.unitString)"
                : "average \(value(statistics?.averageQuantity())), max \(value(statistics?.maximumQuantity())) "
                    + (type == HKQuantityType(.cyclingCadence) ? "rpm" : Format.unitName(unit))
            if type == HKQuantityType(.stepCount), let cadence = try await store.runningCadence(for: workout) {
                figures +=
                    ", cadence average \(Format.number(cadence.averageStepsPerMinute.rounded())), "
                    + "max \(Format.number(cadence.maximumStepsPerMinute.rounded())) steps/min"
            }
            rows.append(Row(name: name, count: samples.count, figures: figures))
        }
        return rows
    }

    /// The workout's statistics of a type, as the summary reads them; the store's statistics of its samples when
    /// the workout keeps none for the type (a workout saved without them).
    static func statistics(
        of type: HKQuantityType, workout: HKWorkout, store: HKHealthStore
    ) async throws
        -> HKStatistics?
    {
        if let kept = workout.statistics(for: type) { return kept }
        return try await HKStatisticsQueryDescriptor(
            predicate: .quantitySample(type: type, predicate: HKQuery.predicateForObjects(from: workout)),
            options: type.aggregationStyle == .cumulative ? .cumulativeSum : [.discreteAverage, .discreteMax]
        ).result(for: store)
    }
}
