import Foundation
import HealthKitModel
import WorkoutEngine

extension HKLiveWorkoutBuilder {
    /// A run's cadence at `date`: the steps a minute of the last step sample the builder collected (a foot pod's
    /// last reading, ``RunningCadence``), or nil when it has none or it ended more than ``RunningCadence/maximumGap``
    /// before `date` (a silent pod shows nothing, never a frozen value). For display, as a watch shows it.
    ///
    /// OpenHealthKit extension; HealthKit has no running cadence.
    public func runningCadence(at date: Date) -> HKQuantity? {
        guard let statistics = statistics(for: HKQuantityType(.stepCount)),
            let interval = statistics.mostRecentQuantityDateInterval(),
            date.timeIntervalSince(interval.end) <= RunningCadence.maximumGap,
            let steps = statistics.mostRecentQuantity()?.doubleValue(for: .count()),
            let cadence = RunningCadence.stepsPerMinute(steps: steps, over: interval)
        else { return nil }
        return HKQuantity(unit: RunningCadence.unit, doubleValue: cadence)
    }
}
