import ArgumentParser
import Foundation
import OpenHealthKit

extension Workout {
    struct Profile: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show or change what workout zones and activity summaries are computed from.",
            discussion: """
                With no option, prints the profile. Each option sets one field; --reset clears them all first. \
                System heart-rate zones use the resting and maximum heart rate (220 - age without a maximum); \
                system power zones need a functional threshold power. The move, exercise and stand goals are those of \
                HKActivitySummary (defaults: 400 kcal, 30 minutes, 12 hours).

                Examples:
                  workout profile --born 1986-04-12 --resting-heart-rate 58
                  workout profile --maximum-heart-rate 188 --ftp 240
                  workout profile --move-goal 500 --exercise-goal 45 --stand-goal 10
                """
        )

        @OptionGroup var options: StoreOptions
        @Option(help: ArgumentHelp("Date of birth.", valueName: "YYYY-MM-DD")) var born: String?
        @Option(help: ArgumentHelp("Resting heart rate in beats per minute.", valueName: "BPM")) var restingHeartRate:
            String?
        @Option(help: ArgumentHelp("Maximum heart rate in beats per minute.", valueName: "BPM")) var maximumHeartRate:
            String?
        @Option(help: ArgumentHelp("Functional threshold power in watts.", valueName: "WATTS")) var ftp: String?
        @Option(help: ArgumentHelp("Daily move goal in kcal of active energy (default 400).", valueName: "KCAL"))
        var moveGoal: String?
        @Option(help: ArgumentHelp("Daily exercise goal in minutes (default 30).", valueName: "MINUTES"))
        var exerciseGoal: String?
        @Option(help: ArgumentHelp("Daily stand goal in hours (default 12).", valueName: "HOURS")) var standGoal:
            String?
        @Flag(help: "Clear the profile (and the person's own zones) before setting anything.") var reset = false

        func run() async throws {
            try await reportingErrors {
                let store = try await options.open()
                var profile = reset ? WorkoutProfile() : try await store.workoutProfile()
                if let born {
                    guard let date = parseDay(born) else {
                        throw HKError(
                            .errorInvalidArgument, "The date of birth '\(born)' is not a date in the form YYYY-MM-DD.")
                    }
                    profile.dateOfBirth = date
                }
                if let restingHeartRate {
                    profile.restingHeartRate = try number(restingHeartRate, "resting heart rate")
                }
                if let maximumHeartRate {
                    profile.maximumHeartRate = try number(maximumHeartRate, "maximum heart rate")
                }
                if let ftp { profile.functionalThresholdPower = try number(ftp, "functional threshold power") }
                if let moveGoal { profile.moveGoal = try number(moveGoal, "move goal") }
                if let exerciseGoal { profile.exerciseGoal = try number(exerciseGoal, "exercise goal") }
                if let standGoal { profile.standGoal = try number(standGoal, "stand goal") }
                if reset || born != nil || restingHeartRate != nil || maximumHeartRate != nil || ftp != nil
                    || moveGoal != nil || exerciseGoal != nil || standGoal != nil
                {
                    try await store.setWorkoutProfile(profile)
                }
                func show(_ value: Double?, _ unit: String) -> String {
                    value.map { "\(format($0)) \(unit)" } ?? "not set"
                }
                let birth = profile.dateOfBirth.flatMap { components in
                    components.year.map {
                        String(format: "%04d-%02d-%02d", $0, components.month ?? 0, components.day ?? 0)
                    }
                }
                print("date of birth        \(birth ?? "not set")")
                print("resting heart rate   \(show(profile.restingHeartRate, "bpm"))")
                print("maximum heart rate   \(show(profile.maximumHeartRate, "bpm"))")
                print("FTP                  \(show(profile.functionalThresholdPower, "W"))")
                func goal(_ value: Double?, _ fallback: Double, _ unit: String) -> String {
                    value.map { "\(format($0)) \(unit)" } ?? "\(format(fallback)) \(unit) (default)"
                }
                print("move goal            \(goal(profile.moveGoal, WorkoutProfile.defaultMoveGoal, "kcal"))")
                print("exercise goal        \(goal(profile.exerciseGoal, WorkoutProfile.defaultExerciseGoal, "min"))")
                print("stand goal           \(goal(profile.standGoal, WorkoutProfile.defaultStandGoal, "hours"))")
            }
        }
    }

    struct Zones: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the preferred heart-rate and cycling-power zones, or set the person's own.",
            discussion: """
                --set takes the upper boundaries of the zones, ascending, comma-separated (2 to 8 of them make 3 to 9 \
                zones); --clear goes back to the system zones. Both need --type.

                Examples:
                  workout zones
                  workout zones --type heart-rate --set 120,140,155,170
                  workout zones --type cycling-power --clear
                """
        )

        @OptionGroup var options: StoreOptions
        @Option(help: ArgumentHelp("heart-rate or cycling-power.", valueName: "TYPE")) var type: String?
        @Option(help: ArgumentHelp("The person's own zone boundaries.", valueName: "B1,B2,…")) var set: String?
        @Flag(help: "Remove the person's own zones of --type.") var clear = false

        func run() async throws {
            try await reportingErrors {
                let quantityType: HKQuantityType? = try type.map { name in
                    switch name {
                    case "heart-rate": return HKQuantityType(.heartRate)
                    case "cycling-power": return HKQuantityType(.cyclingPower)
                    default:
                        throw HKError(
                            .errorInvalidArgument, "The zone type '\(name)' is neither heart-rate nor cycling-power.")
                    }
                }
                if (set != nil || clear) && quantityType == nil {
                    throw HKError(
                        .errorInvalidArgument,
                        "Say which zones to change with --type heart-rate or --type cycling-power.")
                }
                if set != nil && clear { throw HKError(.errorInvalidArgument, "Give --set or --clear, not both.") }
                let store = try await options.open()
                if let quantityType, set != nil || clear {
                    let boundaries = try set.map { list in
                        try list.split(separator: ",", omittingEmptySubsequences: false).map {
                            try number(String($0).trimmingCharacters(in: .whitespaces), "zone boundary")
                        }
                    }
                    var profile = try await store.workoutProfile()
                    if quantityType == HKQuantityType(.heartRate) {
                        profile.heartRateZoneBoundaries = boundaries
                    } else {
                        profile.cyclingPowerZoneBoundaries = boundaries
                    }
                    try await store.setWorkoutProfile(profile)
                }
                for shown in quantityType.map({ [$0] }) ?? [HKQuantityType(.heartRate), HKQuantityType(.cyclingPower)] {
                    try await printZones(of: shown, store: store)
                }
            }
        }

        /// Prints the preferred zones of `type`: each as the summaries and the live view show it, then its exact
        /// bounds.
        private func printZones(of type: HKQuantityType, store: HKHealthStore) async throws {
            let (name, unit) = type == HKQuantityType(.heartRate) ? ("Heart rate", "count/min") : ("Cycling power", "W")
            // People read heart rate in bpm (HealthKit's unit string for it is count/min).
            let unitName = Format.unitName(HKUnit(from: unit))
            guard let configuration = try await store.preferredWorkoutZoneConfiguration(for: type) else {
                print("\(name) zones: none (set an FTP with `workout profile --ftp WATTS`, or zones with --set).")
                return
            }
            let source =
                switch configuration.source {
                case .system: "system"
                case .user: "the person's own"
                case .app: "an app's"
                }
            print("\(name) zones (\(source), \(unitName)):")
            // Whole numbers first: readings are whole bpm and watts.
            let boundaries = configuration.zones.dropLast().compactMap {
                $0.maximum?.doubleValue(for: HKUnit(from: unit))
            }
            for zone in configuration.zones {
                let low = zone.minimum.map { format($0.doubleValue(for: HKUnit(from: unit))) }
                let high = zone.maximum.map { format($0.doubleValue(for: HKUnit(from: unit))) }
                let range =
                    switch (low, high) {
                    case (nil, let high?): "below \(high)"
                    case (let low?, nil): "\(low) and above"
                    case (let low?, let high?): "\(low) to \(high)"
                    default: "any"
                    }
                print(
                    "  " + pad("Z\(zone.index + 1)", 4) + pad(LiveView.range(zone.index, boundaries), 10) + "(\(range))"
                )
            }
        }
    }
}

private func number(_ text: String, _ what: String) throws -> Double {
    guard let value = Double(text), value.isFinite else {
        throw HKError(.errorInvalidArgument, "The \(what) '\(text)' is not a number.")
    }
    return value
}

private func parseDay(_ text: String) -> DateComponents? {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
    guard parts.count == 3, let year = parts[0], let month = parts[1], let day = parts[2] else { return nil }
    return DateComponents(year: year, month: month, day: day)
}

private func format(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
}
