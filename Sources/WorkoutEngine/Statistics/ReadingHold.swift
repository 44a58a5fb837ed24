import Foundation
import HealthKitModel

/// How long a reading stands for: the hold of each kind of reading, named once, here.
///
/// A sensor's reading is a value at an instant. Everything that needs it over time — time-weighted statistics, time
/// in zones, normalized power, energy from power, the gaps a chart draws, a lap's figures — takes it to hold its
/// value until the next reading of its stream, and no longer than its kind's hold: a longer silence is a dropout,
/// missing rather than the old value and never zero. HealthKit publishes no hold; these are OpenHealthKit's:
/// - **heart rate**, and any other time-weighted kind: 10 s. A strap reports about once a second; ten seconds
///   bridge a few lost notifications without crediting a dead strap with its last value for long.
/// - **power** (cycling and running power, and the energy integrated from it): 5 s. A power meter reports one to
///   four times a second; five seconds without one is a dropout. A file whose records are further apart (a watch's
///   "smart recording") loses the time beyond the hold, as a live recording would.
///
/// OpenHealthKit. Pure constants.
public enum ReadingHold {
    /// How long a heart-rate reading (and any time-weighted reading other than power) holds at most.
    public static let heartRate: TimeInterval = 10
    /// How long a power reading holds at most.
    public static let power: TimeInterval = 5

    /// The hold of a reading of `type`: ``power`` for cycling and running power, ``heartRate`` for the rest.
    public static func hold(for type: HKQuantityType) -> TimeInterval {
        type == HKQuantityType(.cyclingPower) || type == HKQuantityType(.runningPower) ? power : heartRate
    }
}

/// Active energy from power: the one rule, for the live data source and for imports.
///
/// A power reading holds its watts from its time until the next reading, at most ``ReadingHold/power``; the energy
/// of that stretch is the mechanical work, watts × seconds, in kJ counted as kcal burned (a cyclist's gross
/// efficiency of about 24 % cancels the 4.184 kJ per kcal, the usual rule of bike computers). A reading of 0 W adds
/// nothing; a silence longer than the hold adds only the hold's worth of the reading before it; a pause ends the
/// hold (nothing is integrated across a pause: a live recording forgets its last reading when its session pauses,
/// an import does not pair readings on either side of a pause).
///
/// OpenHealthKit. Pure.
public enum PowerEnergy {
    /// The energy a reading of `watts` at `time` stands for until the next reading at `next` (seconds on one
    /// clock): kilocalories and the end of the stretch it covers, or nil when it covers nothing.
    public static func energy(watts: Double, at time: Double, next: Double) -> (kilocalories: Double, end: Double)? {
        guard watts > 0, watts.isFinite, next > time else { return nil }
        let end = min(next, time + ReadingHold.power)
        return (watts * (end - time) / 1000, end)
    }
}
