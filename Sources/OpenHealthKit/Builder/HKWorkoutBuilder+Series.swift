import Foundation
import HealthKitModel
import Synchronization
import WorkoutEngine

extension HKWorkoutBuilder {
    /// The series builder of a series type for this workout, made on the first call and the same object after:
    /// for `HKSeriesType.workoutRoute()` an ``HKWorkoutRouteBuilder`` on the builder's store and device, which a live
    /// workout feeds with locations and finishes with the workout this builder saves:
    ///
    /// ```swift
    /// let routeBuilder = builder.seriesBuilder(for: .workoutRoute()) as? HKWorkoutRouteBuilder
    /// try await routeBuilder?.insertRouteData(locations)
    /// let workout = try await builder.finishWorkout()
    /// try await routeBuilder?.finishRoute(with: workout!, metadata: nil)
    /// ```
    ///
    /// Other series types have no builder here: a heartbeat series is built with `HKHeartbeatSeriesBuilder`, which needs
    /// its start date (HealthKit documents only routes for this method). Returns nil for them.
    /// HealthKit: HKWorkoutBuilder.seriesBuilder(for:).
    public func seriesBuilder(for seriesType: HKSeriesType) -> HKSeriesBuilder? {
        guard seriesType.identifier == HKWorkoutRouteTypeIdentifier else { return nil }
        return seriesBuilders.withLock { made in
            if let builder = made[seriesType.identifier] { return builder }
            let builder = HKWorkoutRouteBuilder(healthStore: healthStore, device: device)
            made[seriesType.identifier] = builder
            return builder
        }
    }
}
