import Foundation

/// What a step or a single-goal workout aims for: a time, a distance, an energy, a pool-swim distance within a
/// time, or nothing (open, ended by the person). WorkoutKit: WorkoutGoal.
///
/// A goal keeps the unit it was given: `.distance(5, .kilometers)` and `.distance(5000, .meters)` are different
/// goals and different bytes in a `.workout` file, as in Apple's.
public enum WorkoutGoal: Hashable, Sendable {
    /// No goal: the step or workout ends when the person ends it.
    case open
    /// A distance.
    case distance(Double, UnitLength)
    /// A duration.
    case time(Double, UnitDuration)
    /// Active energy.
    case energy(Double, UnitEnergy)
    /// A distance swum in a pool within a time (the remaining time is rest).
    case poolSwimDistanceWithTime(Measurement<UnitLength>, Measurement<UnitDuration>)
}
