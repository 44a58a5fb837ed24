import ArgumentParser
import Foundation
import OpenHealthKit
import WorkoutExport

extension ExportFormat: ExpressibleByArgument {}

extension Workout {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Export a workout to a FIT, TCX or GPX file.",
            discussion: """
                FIT is an activity file as Garmin's FIT SDK describes it (file_id, device_info, timer events, \
                records, hrv, laps, sessions, activity), for Strava, Garmin Connect, intervals.icu, TrainingPeaks \
                and GoldenCheetah. TCX carries heart rate and cadence, and power and speed in Garmin's \
                ActivityExtension v2. GPX 1.1 needs a route: a workout without one has no GPX. The default file \
                name is the start and the activity (2024-11-08-1133-cycling.fit), with -2, -3… when a file has \
                it: only a file --output names is written over. --output - writes to standard output. The file is \
                written whole or not at all (a temporary file, then a rename).

                Examples:
                  workout export 3F2A91C0
                  workout export 3F2A91C0 --format tcx --output ride.tcx
                  workout export 3F2A91C0 --format gpx --output - > ride.gpx
                """
        )

        @OptionGroup var options: StoreOptions
        @Argument(help: "The workout's UUID or a unique prefix of it.") var id: String
        @Option(help: "The file format.") var format: ExportFormat = .fit
        @Option(
            name: [.short, .long], help: ArgumentHelp("The file to write; - for standard output.", valueName: "FILE"))
        var output: String?

        func run() async throws {
            try await reportingErrors {
                let store = try await options.open()
                try await store.requestAuthorization(toShare: [], read: WorkoutExportData.readTypes)
                let workout = try await findWorkout(id, store: store)
                do {
                    let data = try await WorkoutExportData.load(workout, from: store)
                    let bytes = try format.encode(data)
                    let path =
                        output
                        ?? ExportFile.freeName(
                            ExportFile.defaultName(
                                start: workout.startDate,
                                activityType: workout.workoutActivityType,
                                format: format))
                    if path == "-" {
                        FileHandle.standardOutput.write(Data(bytes))
                        return
                    }
                    try ExportFile.write(bytes, to: path)
                    let route = data.hasRoute ? ", with its route" : ""
                    let sessions = data.sessions.count == 1 ? "1 session" : "\(data.sessions.count) sessions"
                    print(
                        "Wrote \(path): \(workout.workoutActivityType.name), \(data.records.count) records, \(sessions)\(route)."
                    )
                } catch let error as ExportError {
                    throw CommandFailure(error.description)
                }
            }
        }
    }
}
