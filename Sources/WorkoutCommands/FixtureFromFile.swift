import ArgumentParser
import Foundation
import OpenHealthKit
import WorkoutImport

extension Workout {
    struct Fixture: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fixture",
            abstract: "Turn a FIT (or TCX) activity into a fixture of raw BLE notifications.",
            discussion: """
                Heart rate becomes Heart Rate Measurements (0x2A37) with the RR intervals of the file's hrv \
                messages; power becomes Cycling Power Measurements (0x2A63) with crank revolutions synthesized from \
                cadence and wheel revolutions from speed (2.105 m wheel), counters wrapping. A run, walk or hike \
                becomes a foot pod's RSC Measurements (0x2A53) instead: speed, steps a minute (twice FIT's strides), \
                stride length and the file's distance, with its power (a running power meter's) alone; pauses, laps \
                and legs become session actions. `workout replay` then drives the real ride through the same decoders, \
                builder and zone callbacks a strap's bytes go through. Nothing is written to the store.

                Examples:
                  workout fixture ride.fit --output ride.jsonl
                  workout fixture run.fit --output run.jsonl
                  workout replay ride.jsonl --instant
                """
        )

        @Argument(help: ArgumentHelp("The FIT or TCX file.", valueName: "FILE")) var file: String
        @Option(name: .shortAndLong, help: ArgumentHelp("The fixture to write (JSON Lines).", valueName: "FILE.jsonl"))
        var output: String
        @Flag(help: "Use the complete records of a damaged FIT file.") var salvage = false

        func run() async throws {
            do {
                let imported = try WorkoutImporter.read(path: file, salvage: salvage)
                let pod = WorkoutFixture.isOnFoot(imported.activityType) && !imported.speed.isEmpty
                guard !imported.heartRate.isEmpty || !imported.power.isEmpty || pod else {
                    throw ImportError(
                        "\(file): holds no heart rate, power or (on foot) speed, so a fixture would hold no notifications."
                    )
                }
                let summary = try WorkoutFixture.write(
                    imported, to: output, source: (file as NSString).lastPathComponent)
                print(
                    "Wrote \(output): \(imported.activityType.name), \(Format.duration(summary.duration)), \(summary.notifications) notifications from \(imported.recordCount) records."
                )
                if let damage = imported.damage {
                    print(
                        "Lost \(damage.bytesLost) bytes of \(file) from byte offset \(damage.offset) on: \(damage.reason)"
                    )
                }
            } catch let error as ImportError {
                FileHandle.standardError.write(Data("workout: \(error.description)\n".utf8))
                throw ExitCode(1)
            }
        }
    }
}
