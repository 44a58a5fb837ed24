import ArgumentParser
import Foundation
import OpenHealthKit

@main
struct Workout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workout",
        abstract: "Record, inspect and manage workouts in an OpenHealthKit store.",
        discussion: """
            The store is a SQLite file: --store PATH, else $OPENHEALTHKIT_STORE, else
            $XDG_DATA_HOME/openhealthkit/health.sqlite, else ~/.local/share/openhealthkit/health.sqlite.

            Examples:
              workout demo                      save a sample run with heart rate, energy and distance
              workout list                      list the workouts in the store
              workout show 3F2A                 show a workout by (a prefix of) its UUID
              workout condense --all            fold workouts' samples into compact series
            """,
        subcommands: [Demo.self, List.self, Show.self, Condense.self]
    )
}

/// Options every command shares.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store file to use.", valueName: "PATH"))
    var store: String?

    /// Opens the store for the `workout` client, asking for the types the tool reads and writes.
    func open() async throws -> HKHealthStore {
        let path = store ?? HKHealthStore.defaultStorePath
        let healthStore = try HKHealthStore(databasePath: path, clientIdentifier: "workout")
        let types: Set<HKSampleType> = [
            .workoutType(), HKQuantityType(.heartRate), HKQuantityType(.activeEnergyBurned),
            HKQuantityType(.distanceWalkingRunning), HKQuantityType(.distanceCycling), HKQuantityType(.cyclingPower),
        ]
        try await healthStore.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
        return healthStore
    }
}

/// Turns any error into one sentence on standard error and a non-zero exit.
func reportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as HKError {
        FileHandle.standardError.write(Data("workout: \(error.message)\n".utf8))
        throw ExitCode(1)
    }
}
