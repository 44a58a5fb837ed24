// Writes the fixtures in fixtures/ from their seeds: `swift run FixtureGenerator` (all of them) or
// `swift run FixtureGenerator --scenario ride-90min --seed 7 --output /tmp/ride.jsonl`.
import ArgumentParser
import FixtureSynthesis
import Foundation

/// The command-line front of ``FixtureSynthesizer``.
@main
struct FixtureGenerator: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate workout fixtures (raw BLE notifications, JSON Lines) from physiological models.",
        discussion: """
            Without --scenario, writes every committed fixture into --directory with its own seed.

            Examples:
              swift run FixtureGenerator                                  regenerate fixtures/
              swift run FixtureGenerator --scenario ride-90min --seed 7 --output /tmp/ride.jsonl
              swift run FixtureGenerator --scenario benchmark --hours 10 --output /tmp/long.jsonl
            """)

    @Option(
        help: ArgumentHelp(
            "One of: \(FixtureScenario.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "NAME"))
    var scenario: String?
    @Option(help: "The random seed (default: the scenario's own).") var seed: UInt64?
    @Option(help: "Hours, for the benchmark scenario.") var hours: Double = 10
    @Option(help: ArgumentHelp("The file to write (with --scenario).", valueName: "FILE")) var output: String?
    @Option(help: ArgumentHelp("Where the committed fixtures go.", valueName: "DIR")) var directory = "fixtures"

    func validate() throws {
        if let scenario, FixtureScenario(rawValue: scenario) == nil {
            throw ValidationError(
                "--scenario must be one of \(FixtureScenario.allCases.map(\.rawValue).joined(separator: ", ")), not '\(scenario)'."
            )
        }
        guard hours > 0 else { throw ValidationError("--hours must be positive.") }
    }

    func run() throws {
        if let scenario = scenario.flatMap(FixtureScenario.init(rawValue:)) {
            let path = output ?? (directory as NSString).appendingPathComponent(scenario.fileName)
            let count = try FixtureSynthesizer.generate(scenario, seed: seed, hours: hours, to: path)
            print("Wrote \(path): \(count) notifications.")
            return
        }
        for scenario in FixtureScenario.committed {
            let path = (directory as NSString).appendingPathComponent(scenario.fileName)
            let count = try FixtureSynthesizer.generate(scenario, to: path)
            print("Wrote \(path): \(count) notifications.")
        }
        for machine in MachineFixture.allCases {
            let path = (directory as NSString).appendingPathComponent(machine.fileName)
            let count = try machine.generate(to: path)
            print("Wrote \(path): \(count) notifications.")
        }
    }
}
