import ArgumentParser
import Foundation
import OpenHealthKit

extension Workout {
    struct Activity: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the daily activity summaries: move, exercise and stand against their goals.",
            discussion: """
                Each day with active energy or a workout, from HKActivitySummaryQuery: move is the day's active \
                energy, exercise the day's workout time (pauses excluded), stand is not measured here. Goals come \
                from `workout profile` (defaults: 400 kcal, 30 minutes, 12 hours).

                Example:
                  workout activity --days 14
                """
        )

        @OptionGroup var options: StoreOptions
        @Option(help: ArgumentHelp("How many days, ending today (1 to 3660).", valueName: "N")) var days = 7

        func validate() throws {
            guard (1 ... 3660).contains(days) else {
                throw ValidationError("--days must be between 1 and 3660, not \(days).")
            }
        }

        func run() async throws {
            try await reportingErrors {
                let store = try await options.open()
                let calendar = Calendar.current
                let today = calendar.startOfDay(for: store.wallClock())
                guard let first = calendar.date(byAdding: .day, value: -(days - 1), to: today) else { return }
                var start = calendar.dateComponents([.era, .year, .month, .day], from: first)
                var end = calendar.dateComponents([.era, .year, .month, .day], from: today)
                start.calendar = calendar
                end.calendar = calendar
                let summaries = try await HKActivitySummaryQueryDescriptor(
                    predicate: HKQuery.predicate(forActivitySummariesBetweenStart: start, end: end)
                ).result(for: store)
                guard !summaries.isEmpty else {
                    print("No activity in the last \(days == 1 ? "day" : "\(days) days").")
                    return
                }
                print("Day         Move             Exercise       Stand")
                for summary in summaries {
                    let day = summary.dateComponents(for: calendar)
                    let date = String(format: "%04d-%02d-%02d", day.year ?? 0, day.month ?? 0, day.day ?? 0)
                    let move =
                        "\(Int(summary.activeEnergyBurned.doubleValue(for: .kilocalorie()).rounded()))/"
                        + "\(Int(summary.activeEnergyBurnedGoal.doubleValue(for: .kilocalorie()).rounded())) kcal"
                    let exercise =
                        "\(Int(summary.appleExerciseTime.doubleValue(for: .minute())))/"
                        + "\(Int(summary.exerciseTimeGoal?.doubleValue(for: .minute()) ?? 0)) min"
                    let stand =
                        "\(Int(summary.appleStandHours.doubleValue(for: .count())))/"
                        + "\(Int(summary.standHoursGoal?.doubleValue(for: .count()) ?? 0)) h (not measured)"
                    print(
                        date.padding(toLength: 12, withPad: " ", startingAt: 0)
                            + move.padding(toLength: 17, withPad: " ", startingAt: 0)
                            + exercise.padding(toLength: 15, withPad: " ", startingAt: 0) + stand)
                }
            }
        }
    }
}
