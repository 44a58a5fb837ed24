import Foundation

/// What the move ring measures. Raw values as HealthKit's. HealthKit: HKActivityMoveMode.
public enum HKActivityMoveMode: Int, Sendable, Hashable {
    case activeEnergy = 1
    case appleMoveTime = 2
}

/// The type of activity summaries: asked for in a read set, as every Apple workout sample does.
/// HealthKit: HKActivitySummaryType.
public final class HKActivitySummaryType: HKObjectType, @unchecked Sendable {
    package static let shared = HKActivitySummaryType(identifier: HKActivitySummaryTypeIdentifier)
}

/// The activity summary type's identifier. HealthKit: HKActivitySummaryTypeIdentifier.
public let HKActivitySummaryTypeIdentifier = "HKActivitySummaryTypeIdentifier"

extension HKObjectType {
    /// The activity summary type. HealthKit: HKObjectType.activitySummaryType().
    public class func activitySummaryType() -> HKActivitySummaryType { HKActivitySummaryType.shared }
}

/// The move, exercise and stand figures of one day, with the person's goals. HealthKit: HKActivitySummary.
///
/// As in HealthKit, summaries are read with ``HKActivitySummaryQuery`` (or its descriptor), are mutable, and are
/// never saved. OpenHealthKit computes them from the store for each calendar day (see
/// `HKHealthStore.activitySummaries(matching:)`):
/// - **move**: the active energy burned that day (`activeEnergyBurned` samples of every source, prorated across
///   midnight as statistics are), in kcal; move mode is always `.activeEnergy` and move time 0;
/// - **exercise**: the full minutes of workout time that day (running time between pauses, overlapping workouts
///   counted once);
/// - **stand**: not measured here (no sensor tells whether the person stood): `appleStandHours` is 0;
/// - **goals**: from the person's ``WorkoutProfile`` (`workout profile --move-goal … --exercise-goal …
///   --stand-goal …`), else 400 kcal (OpenHealthKit's choice; a watch asks at setup), 30 minutes and 12 hours
///   (Apple's defaults).
public final class HKActivitySummary: NSObject, NSCopying, @unchecked Sendable {
    /// The day, in the calendar it was computed with (era, year, month, day).
    package var day: DateComponents?
    /// The day's first instant, in the calendar it was computed with.
    package var dayStart: Date?
    public var activityMoveMode: HKActivityMoveMode = .activeEnergy
    /// Whether the person paused their rings that day; never, here. HealthKit: HKActivitySummary.isPaused.
    public var isPaused = false
    public var activeEnergyBurned = HKQuantity(unit: .kilocalorie(), doubleValue: 0)
    public var activeEnergyBurnedGoal = HKQuantity(unit: .kilocalorie(), doubleValue: 0)
    public var appleMoveTime = HKQuantity(unit: .minute(), doubleValue: 0)
    public var appleMoveTimeGoal = HKQuantity(unit: .minute(), doubleValue: 0)
    public var appleExerciseTime = HKQuantity(unit: .minute(), doubleValue: 0)
    public var exerciseTimeGoal: HKQuantity?
    public var appleStandHours = HKQuantity(unit: .count(), doubleValue: 0)
    public var standHoursGoal: HKQuantity?

    public override init() { super.init() }

    @available(*, deprecated, renamed: "exerciseTimeGoal")
    public var appleExerciseTimeGoal: HKQuantity {
        get { exerciseTimeGoal ?? HKQuantity(unit: .minute(), doubleValue: 0) }
        set { exerciseTimeGoal = newValue }
    }

    @available(*, deprecated, renamed: "standHoursGoal")
    public var appleStandHoursGoal: HKQuantity {
        get { standHoursGoal ?? HKQuantity(unit: .count(), doubleValue: 0) }
        set { standHoursGoal = newValue }
    }

    /// The summary's day as era, year, month and day in `calendar`. HealthKit:
    /// HKActivitySummary.dateComponents(for:).
    public func dateComponents(for calendar: Calendar) -> DateComponents {
        guard let day, let date = (day.calendar ?? calendar).date(from: day) else { return DateComponents() }
        var components = calendar.dateComponents([.era, .year, .month, .day], from: date)
        components.calendar = calendar
        return components
    }

    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = HKActivitySummary()
        copy.day = day
        copy.dayStart = dayStart
        copy.activityMoveMode = activityMoveMode
        copy.isPaused = isPaused
        copy.activeEnergyBurned = activeEnergyBurned
        copy.activeEnergyBurnedGoal = activeEnergyBurnedGoal
        copy.appleMoveTime = appleMoveTime
        copy.appleMoveTimeGoal = appleMoveTimeGoal
        copy.appleExerciseTime = appleExerciseTime
        copy.exerciseTimeGoal = exerciseTimeGoal
        copy.appleStandHours = appleStandHours
        copy.standHoursGoal = standHoursGoal
        return copy
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKActivitySummary else { return false }
        return other.day == day && other.activityMoveMode == activityMoveMode && other.isPaused == isPaused
            && other.activeEnergyBurned == activeEnergyBurned && other.activeEnergyBurnedGoal == activeEnergyBurnedGoal
            && other.appleMoveTime == appleMoveTime && other.appleMoveTimeGoal == appleMoveTimeGoal
            && other.appleExerciseTime == appleExerciseTime && other.exerciseTimeGoal == exerciseTimeGoal
            && other.appleStandHours == appleStandHours && other.standHoursGoal == standHoursGoal
    }

    public override var hash: Int { day.hashValue }

    public override var description: String {
        let day = day.map { "\($0.year ?? 0)-\($0.month ?? 0)-\($0.day ?? 0)" } ?? "no day"
        return
            "HKActivitySummary(\(day): move \(activeEnergyBurned)/\(activeEnergyBurnedGoal), exercise \(appleExerciseTime), stand \(appleStandHours))"
    }
}
