import Foundation
import HealthKitModel
import WorkoutEngine

extension HKLiveWorkoutBuilder {
    /// The 3-second power at `date`: the mean of the power readings (cycling or running power) the builder collected
    /// in the 3 s up to `date`, or nil when there is none (a silent meter shows nothing, never a frozen value).
    ///
    /// The builder keeps it as it collects, so every reading counts, including readings coalesced into one
    /// delegate call. For display only: samples stay raw.
    ///
    /// OpenHealthKit extension; HealthKit has no rolling average.
    public func threeSecondPower(at date: Date) -> HKQuantity? {
        withCore { $0.threeSecondPower(at: date) }.map { HKQuantity(unit: .watt(), doubleValue: $0) }
    }
}
