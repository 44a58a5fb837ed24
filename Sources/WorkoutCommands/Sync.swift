import ArgumentParser
import Foundation
import OpenHealthKit

extension Workout {
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy the workouts one store has and another lacks, keeping their UUIDs.",
            discussion: """
                Each workout is copied whole (its samples, series, heartbeat series, routes, activities, events, \
                metadata, zones, sensors, plan and effort relationships) or not at all; running it again copies \
                only what is still missing, so an interrupted sync completes the next time. Workouts deleted in FROM \
                are not deleted in TO. FROM must exist; TO is created if needed.

                Examples:
                  workout sync ~/.local/share/openhealthkit/health.sqlite backup.sqlite
                """
        )

        @Argument(help: ArgumentHelp("The store to copy from.", valueName: "FROM")) var from: String
        @Argument(help: ArgumentHelp("The store to copy into.", valueName: "TO")) var to: String

        func run() async throws {
            try await reportingErrors {
                let report = try await StoreSync(from: from, to: to).run { line in print(line) }
                print(report)
            }
        }
    }
}

/// One `workout sync` (and `workout record --sync`'s copy of the workout it saved): opens both stores, copies, and
/// words what happened. The copying is the library's (``HKHealthStore/copyWorkouts(to:only:progress:)``).
struct StoreSync {
    var from: String
    var to: String
    var only: Set<UUID>? = nil

    /// Copies, printing one line per workout copied; returns the closing line.
    func run(_ print: @escaping @Sendable (String) -> Void) async throws -> String {
        guard from.contains("://") || FileManager.default.fileExists(atPath: from) else {
            throw CommandFailure("There is no store at \(from) to sync from.")
        }
        let source = try await HKHealthStore.open(databasePath: from, clientIdentifier: "workout")
        let destination = try await HKHealthStore.open(databasePath: to, clientIdentifier: "workout")
        let report = try await source.copyWorkouts(to: destination, only: only) { workout, copied in
            guard copied else { return }
            print(
                "copied  " + pad(String(workout.uuid.uuidString.prefix(8)), 10)
                    + pad(Format.date(workout.startDate), 18)
                    + pad(workout.workoutActivityType.name, 16) + Format.duration(workout.duration))
        }
        let workouts = report.workoutsCopied == 1 ? "1 workout" : "\(report.workoutsCopied) workouts"
        let samples = report.samplesCopied == 1 ? "1 sample" : "\(report.samplesCopied) samples"
        // The stores as they name themselves: a PostgreSQL URL without its password.
        let (fromName, toName) = (source.databasePath ?? from, destination.databasePath ?? to)
        var line = "Copied \(workouts) (\(samples)) from \(fromName) to \(toName)"
        if report.workoutsAlreadyPresent > 0 {
            line += "; \(report.workoutsAlreadyPresent) already there"
        }
        if report.effortRelationshipsCopied > 0 {
            line += "; \(report.effortRelationshipsCopied) effort relationships"
        }
        return line + "."
    }
}
