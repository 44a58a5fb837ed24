import Foundation
import HealthKitModel

/// What the person says about themselves for workout zones: the inputs of the system zones, and their own zones.
///
/// HealthKit keeps these in Health Settings, out of apps' reach; OpenHealthKit keeps them in the store, set with
/// `HKHealthStore.setWorkoutProfile(_:)` or `workout profile` / `workout zones`. OpenHealthKit, not HealthKit.
public struct WorkoutProfile: Sendable, Equatable, Codable {
    /// The date of birth (year, month, day): with it, the maximum heart rate is 220 − age.
    public var dateOfBirth: DateComponents?
    /// Resting heart rate in count/min, used when the store holds no `restingHeartRate` sample.
    public var restingHeartRate: Double?
    /// Maximum heart rate in count/min; overrides 220 − age.
    public var maximumHeartRate: Double?
    /// Functional threshold power in W, used when the store holds no `cyclingFunctionalThresholdPower` sample.
    public var functionalThresholdPower: Double?
    /// The person's own heart-rate zones: upper thresholds in count/min (2 to 8, ascending). They replace the
    /// system zones (source `.user`).
    public var heartRateZoneBoundaries: [Double]?
    /// The person's own cycling-power zones: upper thresholds in W (2 to 8, ascending); source `.user`.
    public var cyclingPowerZoneBoundaries: [Double]?
    /// The daily move goal in kcal of active energy (``HKActivitySummary``); nil: ``defaultMoveGoal``.
    public var moveGoal: Double?
    /// The daily exercise goal in minutes; nil: ``defaultExerciseGoal``.
    public var exerciseGoal: Double?
    /// The daily stand goal in hours; nil: ``defaultStandGoal``.
    public var standGoal: Double?

    /// 400 kcal: OpenHealthKit's choice (a watch asks the person at setup and publishes no default).
    public static let defaultMoveGoal = 400.0
    /// 30 minutes: Apple's default exercise goal.
    public static let defaultExerciseGoal = 30.0
    /// 12 hours: Apple's default stand goal.
    public static let defaultStandGoal = 12.0

    public init(
        dateOfBirth: DateComponents? = nil, restingHeartRate: Double? = nil, maximumHeartRate: Double? = nil,
        functionalThresholdPower: Double? = nil, heartRateZoneBoundaries: [Double]? = nil,
        cyclingPowerZoneBoundaries: [Double]? = nil, moveGoal: Double? = nil, exerciseGoal: Double? = nil,
        standGoal: Double? = nil
    ) {
        self.moveGoal = moveGoal
        self.exerciseGoal = exerciseGoal
        self.standGoal = standGoal
        self.dateOfBirth = dateOfBirth
        self.restingHeartRate = restingHeartRate
        self.maximumHeartRate = maximumHeartRate
        self.functionalThresholdPower = functionalThresholdPower
        self.heartRateZoneBoundaries = heartRateZoneBoundaries
        self.cyclingPowerZoneBoundaries = cyclingPowerZoneBoundaries
    }

    /// Checks every field, throwing `errorInvalidArgument` with one sentence naming the first one wrong.
    package func validate(now: Date) throws {
        if let born = dateOfBirth {
            guard let date = Self.date(born), date <= now else {
                throw HKError(
                    .errorInvalidArgument, "The date of birth must be a valid date (year, month, day) in the past.")
            }
        }
        if let resting = restingHeartRate, !(20 ... 150).contains(resting) {
            throw HKError(
                .errorInvalidArgument, "A resting heart rate must be between 20 and 150 count/min, not \(resting).")
        }
        if let maximum = maximumHeartRate, !(80 ... 250).contains(maximum) {
            throw HKError(
                .errorInvalidArgument, "A maximum heart rate must be between 80 and 250 count/min, not \(maximum).")
        }
        if let resting = restingHeartRate, let maximum = maximumHeartRate, maximum <= resting {
            throw HKError(
                .errorInvalidArgument,
                "The maximum heart rate (\(maximum)) must be above the resting heart rate (\(resting)).")
        }
        if let ftp = functionalThresholdPower, !(ftp > 0 && ftp <= 2500) {
            throw HKError(
                .errorInvalidArgument, "A functional threshold power must be above 0 and at most 2500 W, not \(ftp).")
        }
        if let goal = moveGoal, !(goal > 0 && goal <= 10_000) {
            throw HKError(.errorInvalidArgument, "A move goal must be above 0 and at most 10000 kcal, not \(goal).")
        }
        if let goal = exerciseGoal, !(goal >= 1 && goal <= 1440) {
            throw HKError(.errorInvalidArgument, "An exercise goal must be between 1 and 1440 minutes, not \(goal).")
        }
        if let goal = standGoal, !(goal >= 1 && goal <= 24) {
            throw HKError(.errorInvalidArgument, "A stand goal must be between 1 and 24 hours, not \(goal).")
        }
        if let zones = heartRateZoneBoundaries {
            try HKWorkoutZoneConfiguration.check(zones, of: HKQuantityType(.heartRate))
        }
        if let zones = cyclingPowerZoneBoundaries {
            try HKWorkoutZoneConfiguration.check(zones, of: HKQuantityType(.cyclingPower))
        }
    }

    package static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// The date a year-month-day names (UTC), if it is a real date.
    package static func date(_ components: DateComponents) -> Date? {
        guard let year = components.year, let month = components.month, let day = components.day else { return nil }
        let date = calendar.date(from: DateComponents(year: year, month: month, day: day))
        guard let date,
            calendar.dateComponents([.year, .month, .day], from: date)
                == DateComponents(year: year, month: month, day: day)
        else { return nil }
        return date
    }

    /// Whole years of age at `now`.
    package static func age(born: DateComponents, at now: Date) -> Int? {
        guard let birth = date(born) else { return nil }
        return calendar.dateComponents([.year], from: birth, to: now).year
    }

    /// `YYYY-MM-DD` → components, or nil.
    package static func parseDate(_ text: String) -> DateComponents? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 3, let year = parts[0], let month = parts[1], let day = parts[2] else { return nil }
        let components = DateComponents(year: year, month: month, day: day)
        return date(components) == nil ? nil : components
    }

    package static func formatDate(_ components: DateComponents) -> String? {
        guard let year = components.year, let month = components.month, let day = components.day else { return nil }
        return String(format: "%04d-%02d-%02d", year, month, day)
    }
}
