import FitnessSensors
import FixtureSynthesis
import Foundation
import Testing

/// The committed fixtures are the generator's output for their seeds, byte for byte.
@Suite(.timeLimit(.minutes(1))) struct GeneratorTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures")

    @Test(arguments: FixtureScenario.committed)
    func generatorReproducesTheCommittedFile(_ scenario: FixtureScenario) throws {
        let committed = Self.fixtures.appendingPathComponent(scenario.fileName)
        let header = try FixtureReader(path: committed.path).header
        #expect(header.source?["scenario"] == scenario.rawValue)
        let seedText: String? = header.source?["seed"]
        let seed = try #require(seedText.flatMap { UInt64($0) })
        let path = NSTemporaryDirectory() + "ohk-gen-" + UUID().uuidString + ".jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try FixtureSynthesizer.generate(scenario, seed: seed, to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(contentsOf: committed))
    }

    @Test func anotherSeedGivesAnotherRecording() throws {
        let a = NSTemporaryDirectory() + "ohk-gen-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: a) }
        try FixtureSynthesizer.generate(.malformed, seed: 14, to: a)
        let committed = Self.fixtures.appendingPathComponent(FixtureScenario.malformed.fileName)
        #expect(try Data(contentsOf: URL(fileURLWithPath: a)) != Data(contentsOf: committed))
    }

    @Test func heartRateLagsEffortAndRRMatchesTheRate() {
        var random = SeededRandom(seed: 1)
        var heart = HeartModel(start: 60)
        var rates: [UInt16] = []
        var beats = 0
        for second in 0 ..< 300 {
            let (bpm, rr) = heart.step(second: Double(second), effort: 0.8, random: &random)
            rates.append(bpm)
            if second >= 240 { beats += rr.count }
        }
        // First-order response, τ = 25 s: about 63 % of the way after 25 s, settled after 5 τ.
        let target = 55 + 0.8 * (188 - 55.0)
        #expect(abs(Double(rates[24]) - (60 + 0.63 * (target - 60))) < 6)
        #expect(abs(Double(rates[299]) - target) < 4)
        // 60 s at ~161 bpm holds ~161 beats.
        #expect(abs(Double(beats) - target) < 6)
    }
}
