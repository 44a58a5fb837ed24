import ArgumentParser
import Foundation
import OpenHealthKit

extension Workout {
    /// `workout sources`: the sources of each type in priority order, and setting that order.
    struct SourcesCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sources",
            abstract: "List the apps that saved each type, in priority order, or set that order.",
            discussion: """
                Where two sources recorded the same time (a ride recorded live and also \
                imported from a bike computer), merged distance, energy and step totals \
                count the higher source, and take from the lower one only the time the \
                higher one left uncovered. The default order is the order in which \
                sources first saved the type. Averages, minimum and maximum use every \
                source.

                Examples:
                  workout sources                    every type with its sources
                  workout sources distanceCycling    one type
                  workout sources distanceCycling --set com.example.bike workout
                                                     put these first, in this order
                  workout sources distanceCycling --reset
                                                     back to the order of first saves
                """
        )

        @OptionGroup var options: StoreOptions
        @Argument(
            help: ArgumentHelp(
                "A quantity type: distanceCycling, activeEnergyBurned, heartRate, …",
                valueName: "TYPE"))
        var type: String?
        @Option(
            parsing: .upToNextOption,
            help: ArgumentHelp("Source bundle identifiers, highest priority first.", valueName: "SOURCE"))
        var set: [String] = []
        @Flag(help: "Restore the default order (the order in which sources first saved the type).")
        var reset = false

        func validate() throws {
            if (!set.isEmpty || reset) && type == nil { throw ValidationError("Give the TYPE whose order to change.") }
            if !set.isEmpty && reset { throw ValidationError("Give --set or --reset, not both.") }
        }

        func run() async throws {
            try await reportingErrors {
                let types = try type.map { [try parseQuantityType($0)] } ?? Self.listedTypes
                let store = try await options.open()
                try await store.requestAuthorization(toShare: [], read: Set(types.map { $0 as HKObjectType }))
                if let type = types.first, !set.isEmpty || reset {
                    let known = try await store.sourcePriority(for: type)
                    let chosen = try set.map { bundle in
                        guard let source = known.first(where: { $0.bundleIdentifier == bundle }) else {
                            throw CommandFailure(
                                "No source '\(bundle)' has saved \(Self.name(type)); `workout sources \(Self.name(type))` lists them."
                            )
                        }
                        return source
                    }
                    try await store.setSourcePriority(chosen, for: type)
                }
                var printed = false
                for type in types {
                    let sources = try await store.sourcePriority(for: type)
                    guard !sources.isEmpty || self.type != nil else { continue }
                    print("\(Self.name(type)):")
                    if sources.isEmpty { print("  no samples") }
                    for (rank, source) in sources.enumerated() {
                        print(
                            "  \(rank + 1). \(source.bundleIdentifier)"
                                + (source.name == source.bundleIdentifier ? "" : " (\(source.name))"))
                    }
                    printed = true
                }
                if !printed { print("No samples in the store yet.") }
            }
        }

        /// The types `workout sources` lists when no TYPE is given: those the tool reads and writes.
        static let listedTypes: [HKQuantityType] = [
            HKQuantityType(.activeEnergyBurned), HKQuantityType(.distanceCycling),
            HKQuantityType(.distanceWalkingRunning),
            HKQuantityType(.heartRate), HKQuantityType(.cyclingPower), HKQuantityType(.cyclingCadence),
            HKQuantityType(.cyclingSpeed),
        ]

        static func name(_ type: HKQuantityType) -> String {
            let prefix = "HKQuantityTypeIdentifier"
            guard type.identifier.hasPrefix(prefix) else { return type.identifier }
            let rest = type.identifier.dropFirst(prefix.count)
            return rest.prefix(1).lowercased() + rest.dropFirst()
        }
    }
}

/// A quantity type from `distanceCycling`, `DistanceCycling` or `HKQuantityTypeIdentifierDistanceCycling`.
func parseQuantityType(_ text: String) throws -> HKQuantityType {
    let prefix = "HKQuantityTypeIdentifier"
    let identifier = text.hasPrefix(prefix) ? text : prefix + text.prefix(1).uppercased() + text.dropFirst()
    guard let type = HKObjectType.quantityType(forIdentifier: HKQuantityTypeIdentifier(rawValue: identifier)) else {
        throw CommandFailure("'\(text)' is not a quantity type this store knows (try distanceCycling or heartRate).")
    }
    return type
}
