import ArgumentParser
import BlueZDBus
import BlueZTransport
import FitnessSensors
import Foundation
import OpenHealthKit
import WorkoutWeb

/// The `workout` tool: its commands, run by the `workout` executable's `Workout.main()`.
public struct Workout: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "workout",
        abstract: "Record, inspect and manage workouts in an OpenHealthKit store.",
        discussion: """
            The store is a SQLite file: --store PATH, else $OPENHEALTHKIT_STORE, else \
            $XDG_DATA_HOME/openhealthkit/health.sqlite, else ~/.local/share/openhealthkit/health.sqlite; \
            or a shared PostgreSQL store: --store postgres://USER@HOST/DATABASE.

            Examples:
              workout demo                      save a sample run with its samples
              workout replay fixtures/run-45min.jsonl --instant
                                                replay a recorded workout and save it
              workout import ride.fit           import a FIT, TCX or GPX file
              workout export 3F2A --format fit  export a workout to FIT, TCX or GPX
              workout fixture ride.fit -o ride.jsonl
                                                turn a FIT ride into a fixture to replay
              workout list                      list the workouts in the store
              workout show 3F2A                 show a workout by (a prefix of) its UUID
              workout show 3F2A --json          the same as JSON
              workout delete 3F2A               delete a workout and its samples
              workout recover --finish          save a workout interrupted by a crash
              workout condense --all            fold workouts' samples into compact series
              workout serve 8080                browse the workouts in a browser
              workout sync health.sqlite backup.sqlite
                                                copy the workouts backup.sqlite lacks
              workout share coach               let coach read your PostgreSQL store
              workout sources                   list each type's sources by priority
              workout profile --born 1986-04-12 set what system zones are computed from
              workout zones                     show the heart-rate and power zones
              workout doctor                    check Bluetooth recording, suggest fixes
              workout scan                      find straps, trainers, meters, foot pods
              workout pair AA:BB:CC:DD:EE:FF    pair a sensor (unix:PATH: a simulated one)
              workout sensors                   list paired sensors
              workout record --activity cycling record from paired sensors until Ctrl-C
              workout watch                     watch a record --mirror from elsewhere
              workout peripheral --profile heart-rate --listen /tmp/strap.sock
                                                run a simulated strap
              workout decode 2a37 16463803      decode a notification payload to JSON
            """,
        subcommands: [
            Demo.self, Replay.self, Import.self, Export.self, Fixture.self, List.self, Show.self, Delete.self,
            Recover.self, Condense.self, SourcesCommand.self, Profile.self, Zones.self, Activity.self, Record.self,
            Watch.self, Pair.self, Sensors.self, Scan.self, Adapters.self, Doctor.self, Peripheral.self, Decode.self,
            Plan.self, Sync.self, Share.self, Serve.self,
        ]
    )

    public init() {}
}

/// Options every command shares.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .long, help: ArgumentHelp("The store to use: a SQLite file, or a postgres:// URL.", valueName: "PATH"))
    var store: String?

    /// Opens the store for the `workout` client, asking for the types the tool reads and writes.
    func open() async throws -> HKHealthStore {
        let path = store ?? HKHealthStore.defaultStorePath
        let healthStore = try await HKHealthStore.open(databasePath: path, clientIdentifier: "workout")
        let types = HKLiveWorkoutDataSource.collectableTypes
        try await healthStore.requestAuthorization(
            toShare: types,
            read: Set(types.map { $0 as HKObjectType } + [HKObjectType.activitySummaryType()]))
        return healthStore
    }
}

/// What a recorder says when its store does not answer as it saves (the library waits: ``StoreOutage``).
@Sendable func reportStoreOutage(_ error: HKError) {
    let minutes = Int(StoreOutage.limit.components.seconds / 60)
    let seconds = Int(StoreOutage.interval.components.seconds)
    FileHandle.standardError.write(
        Data(
            """
            workout: \(error.message) The workout is kept and saved when the store answers: trying every \(seconds) s \
            for up to \(minutes) minutes (Ctrl-C gives up; workout recover then offers what reached the store).

            """.utf8))
}

/// Turns any error into one sentence on standard error and a non-zero exit.
func reportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch {
        throw oneSentence(error)
    }
}

/// Turns any error into one sentence on standard error and a non-zero exit (synchronous commands).
func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch {
        throw oneSentence(error)
    }
}

/// Writes the sentence for a known error and returns the exit to throw; other errors pass through.
private func oneSentence(_ error: any Error) -> any Error {
    let message: String
    switch error {
    case let error as HKError: message = error.message
    case let error as BlueZError: message = error.message
    case let error as CommandFailure: message = error.message
    case let error as WebError: message = error.message
    case let error as FixtureError: message = error.description
    case let error as BluetoothBackendError: message = error.message
    case let error as DBusError: message = "bluetoothd cannot be reached: \(error.message)."
    default: return error
    }
    FileHandle.standardError.write(Data("workout: \(message)\n".utf8))
    return ExitCode(1)
}
