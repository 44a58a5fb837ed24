import ArgumentParser
import Foundation
import OpenHealthKit
import WorkoutImport

extension Workout {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import workouts from FIT, TCX and GPX files.",
            discussion: """
                Each file's activity is saved through HKWorkoutBuilder as an app would save it: heart rate, power, \
                cadence, speed, distance and energy samples at their own times, beat-to-beat intervals as a \
                heartbeat series, pauses, laps, a multisport file's legs as workout activities, positions as the \
                workout's route, the recording device. A file already imported (same HKMetadataKeyExternalUUID) is not saved again. A damaged \
                file is one sentence with its byte offset and saves nothing; the other files still import, and the \
                exit status is 1. With --salvage a damaged FIT file imports its complete records before the damage.

                Examples:
                  workout import ride.fit
                  workout import ~/Garmin/Activities/*.fit --store /tmp/demo.sqlite
                  workout import truncated.fit --salvage
                """
        )

        @OptionGroup var options: StoreOptions
        @Argument(help: ArgumentHelp("FIT, TCX or GPX files.", valueName: "FILE")) var files: [String]
        @Flag(help: "Import the complete records of a damaged FIT file, and say how much was lost.") var salvage = false

        func validate() throws {
            if files.isEmpty { throw ValidationError("Give at least one FIT, TCX or GPX file.") }
        }

        func run() async throws {
            var failures = 0
            try await reportingErrors {
                let store = try await options.open()
                try await store.requestAuthorization(
                    toShare: WorkoutImporter.shareTypes,
                    read: Set(WorkoutImporter.shareTypes.map { $0 as HKObjectType }))
                var printed = false
                for file in files {
                    do {
                        let imported = try WorkoutImporter.read(path: file, salvage: salvage)
                        let (workout, saved) = try await WorkoutImporter.save(imported, to: store)
                        if printed { print("") }
                        printed = true
                        guard saved else {
                            print("\(file) was already imported as workout \(workout.uuid.uuidString); nothing saved.")
                            continue
                        }
                        print("Imported \(file) (\(imported.format), \(imported.recordCount) records).")
                        var skipped = "nothing"
                        if let damage = imported.damage {
                            skipped =
                                "\(damage.bytesLost) bytes from byte offset \(damage.offset) on, lost: \(damage.reason)"
                        }
                        print(
                            try await WorkoutSummary.lines(workout, store: store, sensors: [], skipped: skipped).joined(
                                separator: "\n"))
                    } catch let error as ImportError {
                        failures += 1
                        FileHandle.standardError.write(Data("workout: \(error.description)\n".utf8))
                    } catch let error as HKError {
                        failures += 1
                        FileHandle.standardError.write(Data("workout: \(file): \(error.message)\n".utf8))
                    }
                }
            }
            if failures > 0 { throw ExitCode(1) }
        }
    }
}
