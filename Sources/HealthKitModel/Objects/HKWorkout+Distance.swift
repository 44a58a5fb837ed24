import Foundation

extension HKWorkout {
    /// HealthKit's distance types: a workout's distance is made of these.
    package static let distanceTypeIdentifiers: [HKQuantityTypeIdentifier] = [
        .distanceWalkingRunning, .distanceCycling, .distanceSwimming, .distanceWheelchair, .distanceDownhillSnowSports,
        .distanceCrossCountrySkiing, .distancePaddleSports, .distanceRowing, .distanceSkatingSports,
    ]

    /// The distance the workout covered, or nil when it has none: the sum of its statistics for the distance type
    /// of its activity (``distanceType(for:)``); for a multisport workout (swim-bike-run, or several activities),
    /// the sum over every distance type it has statistics of, each leg having collected its own (a swim's
    /// swimming distance, a ride's cycling distance, a run's walking-running distance).
    ///
    /// OpenHealthKit extension. HealthKit's deprecated `totalDistance` reads the workout's own type only, which for
    /// a swim-bike-run is none of its legs'.
    public var distanceCovered: HKQuantity? {
        let multisport = workoutActivityType == .swimBikeRun || workoutActivities.count > 1
        let identifiers = multisport ? Self.distanceTypeIdentifiers : [HKWorkout.distanceType(for: workoutActivityType)]
        let metres = identifiers.compactMap {
            allStatistics[HKQuantityType($0)]?.sumQuantity()?.doubleValue(for: .meter())
        }
        guard !metres.isEmpty else { return nil }
        return HKQuantity(unit: .meter(), doubleValue: metres.reduce(0, +))
    }
}
