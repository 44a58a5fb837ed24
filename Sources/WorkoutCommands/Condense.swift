import ArgumentParser
import Foundation
import OpenHealthKit

extension Workout {
    struct Condense: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fold a workout's samples into compact quantity series, keeping every statistic.",
            discussion: """
                Every type the workout recorded (heart rate, energy, distance, power, \
                cadence, speed, …) becomes one series per type and source. The originals \
                are deleted; anchored queries learn of it for 30 days. Every statistic \
                stays the same. Condensing again changes nothing. --all also drops \
                deletion records older than 30 days.

                Examples:
                  workout condense 3F2A91C0
                  workout condense --all --store /tmp/demo.sqlite
                """
        )

        @OptionGroup var options: StoreOptions
        @Argument(help: "The workout's UUID or a unique prefix of it.") var id: String?
        @Flag(help: "Condense every workout in the store.") var all = false

        func validate() throws {
            if all && id != nil { throw ValidationError("Give a workout ID or --all, not both.") }
            if !all && id == nil { throw ValidationError("Give a workout ID, or --all to condense every workout.") }
        }

        func run() async throws {
            try await reportingErrors {
                let store = try await options.open()
                let report: CondenseReport
                if let id {
                    let workouts = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: [])
                        .result(for: store)
                    let matches = workouts.filter { $0.uuid.uuidString.lowercased().hasPrefix(id.lowercased()) }
                    guard matches.count == 1, let workout = matches.first else {
                        throw HKError(
                            .errorInvalidArgument,
                            matches.isEmpty
                                ? "No workout's ID starts with '\(id)'; `workout list` shows them."
                                : "'\(id)' matches \(matches.count) workouts; give more of the ID.")
                    }
                    report = try await store.condenseWorkout(workout)
                } else {
                    report = try await store.condenseWorkouts(olderThan: .distantFuture)
                }
                let workouts = report.workouts == 1 ? "1 workout" : "\(report.workouts) workouts"
                if report.samplesRemoved == 0 {
                    print("Nothing to condense in \(workouts).")
                } else {
                    print(
                        "Condensed \(workouts): \(report.samplesRemoved) samples into \(report.seriesCreated) series holding \(report.quantitiesStored) quantities."
                    )
                }
                if report.deletedObjectsPurged > 0 {
                    print("Dropped \(report.deletedObjectsPurged) deletion records older than 30 days.")
                }
            }
        }
    }
}
