import Foundation
import HealthKitModel
import WorkoutEngine

extension HKHealthStore {
    /// Time in zones of a saved workout under another zone configuration: its samples of the configuration's type
    /// (associated with the workout) timed by the same engine and rule a builder uses (`ZoneAccumulator`: a reading
    /// holds until the next, at most its ``ReadingHold``, pauses count nothing), over the workout or over `interval`
    /// within it.
    ///
    /// The workout's own zones are `workout.zoneGroup(for:)`; this is for showing a workout in zones it was not
    /// recorded with (`workout show --chart --max-heart-rate`). OpenHealthKit extension.
    public func zoneGroup(
        of workout: HKWorkout, configuration: HKWorkoutZoneConfiguration,
        during interval: DateInterval? = nil
    ) async throws -> HKWorkoutZoneGroup {
        let type = configuration.quantityType
        let samples = try await HKSampleQueryDescriptor(
            predicates: [.quantitySample(type: type, predicate: HKQuery.predicateForObjects(from: workout))],
            sortDescriptors: [SortDescriptor(\.startDate)]
        ).result(for: self)
        var accumulator = ZoneAccumulator(
            boundaries: configuration.boundaryValues,
            maximumHold: ReadingHold.hold(for: type))
        accumulator.setPauses(ZonePause.from(workout.workoutEvents ?? []))
        let unit = type.storageUnit
        for sample in samples {
            accumulator.add(
                start: sample.startDate.storeValue, end: sample.endDate.storeValue,
                value: sample.quantity.doubleValue(for: unit))
        }
        let span = interval ?? DateInterval(start: workout.startDate, end: workout.endDate)
        return HKWorkoutZoneGroup(
            configuration: configuration,
            durations: accumulator.durations(from: span.start.storeValue, to: span.end.storeValue))
    }
}
