import ArgumentParser
import Foundation
import OpenHealthKit

/// The workout whose UUID starts with `prefix` (case-insensitive); one clear error when none or several do.
func findWorkout(_ prefix: String, store: HKHealthStore) async throws -> HKWorkout {
    let workouts = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: store)
    let matches = workouts.filter { $0.uuid.uuidString.lowercased().hasPrefix(prefix.lowercased()) }
    guard !prefix.isEmpty, matches.count == 1, let workout = matches.first else {
        throw HKError(
            .errorInvalidArgument,
            matches.isEmpty || prefix.isEmpty
                ? "No workout's ID starts with '\(prefix)'; `workout list` shows them."
                : "'\(prefix)' matches \(matches.count) workouts; give more of the ID.")
    }
    return workout
}

extension Workout {
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a workout and the samples recorded with it.",
            discussion: """
                ID is the workout's UUID or a unique prefix of it, as `workout list` prints. Only workouts this tool \
                saved (recorded, replayed, demo) can be deleted. Deleted objects are remembered for anchored queries.

                Examples:
                  workout delete 3F2A91C0
                  workout delete 3F2A91C0 --keep-samples
                """
        )

        @OptionGroup var options: StoreOptions
        @Argument(help: "The workout's UUID or a unique prefix of it.") var id: String
        @Flag(help: "Delete only the workout; keep its samples in the store.") var keepSamples = false

        func run() async throws {
            try await reportingErrors {
                let store = try await options.open()
                let workout = try await findWorkout(id, store: store)
                var deleted = 0
                if !keepSamples {
                    for type in try await associatedTypes(of: workout, store: store) {
                        deleted += try await store.deleteObjects(
                            of: type, predicate: HKQuery.predicateForObjects(from: workout))
                    }
                }
                try await store.delete(workout)
                print(
                    "Deleted the \(workout.workoutActivityType.name) workout of \(Format.date(workout.startDate))"
                        + (keepSamples
                            ? "; its samples are kept." : " and \(deleted) sample\(deleted == 1 ? "" : "s")."))
            }
        }

        private func associatedTypes(of workout: HKWorkout, store: HKHealthStore) async throws -> [HKSampleType] {
            let identifiers: [HKQuantityTypeIdentifier] = [
                .heartRate, .activeEnergyBurned, .basalEnergyBurned, .distanceWalkingRunning, .distanceCycling,
                .distanceSwimming, .cyclingPower, .cyclingCadence, .cyclingSpeed, .runningSpeed, .stepCount,
            ]
            // Only types this tool may save can hold its samples (and be deleted by it).
            return (identifiers.map { HKQuantityType($0) as HKSampleType } + [HKSeriesType.heartbeat()])
                .filter { store.authorizationStatus(for: $0) == .sharingAuthorized }
        }
    }

    struct Recover: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Offer back a workout that was interrupted (a crash, a kill, a power cut).",
            discussion: """
                Without a flag it shows what was recovered and how to keep or drop it. Every reading older than a \
                second before the interruption is in the store's journal.

                Examples:
                  workout recover
                  workout recover --finish      save it, ending when its last data arrived
                  workout recover --discard     drop it
                """
        )

        @OptionGroup var options: StoreOptions
        @Flag(help: "Save the interrupted workout.") var finish = false
        @Flag(help: "Drop the interrupted workout.") var discard = false

        func validate() throws {
            if finish && discard { throw ValidationError("Choose --finish or --discard, not both.") }
        }

        func run() async throws {
            try await reportingErrors {
                let store = try await options.open()
                guard let session = try await store.recoverActiveWorkoutSession() else {
                    print("No interrupted workout to recover in \(store.databasePath ?? "the store").")
                    return
                }
                let builder = session.associatedWorkoutBuilder()
                let start = builder.startDate ?? session.startDate ?? Date()
                let heartRate = builder.statistics(for: HKQuantityType(.heartRate))
                let lastData =
                    builder.allStatistics.values.compactMap { $0.mostRecentQuantityDateInterval()?.end }.max() ?? start
                print(
                    "Interrupted \(session.workoutConfiguration.activityType.name) workout, started \(Format.date(start)), "
                        + "session \(session.state.name).")
                // A workout of one activity has none listed (it was printed "  activities " with nothing after it).
                if !builder.workoutActivities.isEmpty {
                    print(
                        "  activities \(builder.workoutActivities.map { $0.workoutConfiguration.activityType.name }.joined(separator: ", "))"
                    )
                }
                // The minute alone does not say how much was kept: the time into the workout does.
                print(
                    "  data until \(Format.date(lastData)), \(Format.duration(lastData.timeIntervalSince(start))) in"
                        + (heartRate?.averageQuantity().map {
                            ", average heart rate \(Int($0.doubleValue(for: HKUnit.count().unitDivided(by: .minute())).rounded())) bpm"
                        } ?? ""))
                if discard {
                    session.end()
                    builder.discardWorkout()
                    print("Discarded.")
                } else if finish {
                    session.end()
                    let end = max(lastData, start.addingTimeInterval(1))
                    if builder.endDate == nil { try await builder.endCollection(at: end) }
                    guard let workout = try await builder.finishWorkout() else {
                        throw HKError(.unknownError, "The recovered workout could not be saved.")
                    }
                    print(
                        "Saved as workout \(workout.uuid.uuidString.prefix(8)) (\(Format.duration(workout.duration))).")
                } else {
                    print("Run `workout recover --finish` to save it or `workout recover --discard` to drop it.")
                }
            }
        }
    }
}
