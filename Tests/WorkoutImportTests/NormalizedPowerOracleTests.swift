import Foundation
import OpenHealthKit
import TestSupport
import Testing
import WorkoutImport

/// Normalized power against GoldenCheetah's rule, computed by `fit_oracle.py coggan-np` (fitparse reading the file,
/// the rule of GoldenCheetah's `Coggan.cpp`) on a ride Garmin's encoder wrote; ours is the store's figure after the
/// import (`HKHealthStore.normalizedPower(for:)`, ``NormalizedPower``).
///
/// The two rules differ in one documented place: GoldenCheetah's rolling window starts empty, so its mean of 4th
/// powers also takes the 29 windows before the 30th record, each a partial sum over 30; ours starts at the first full
/// window. Everything else (1 Hz, the trailing 30 s mean, the 4th-power mean, the pause left out: the file has no
/// records in it and ours leaves paused seconds out) is the same, so, with N records and p₀…p₂₈ the first powers,
///
///     NP_GC⁴ · N  =  NP⁴ · (N − 29)  +  Σₖ₌₀…₂₈ ((p₀ + … + pₖ) / 30)⁴
///
/// holds to rounding. A difference anywhere else (a second more or less, a window across the pause counted
/// differently, a value held or dropped) breaks it by at least one 4th power of a window's mean, about 1/30 of the
/// 29-window term.
@Suite(.blockingWaits, .timeLimit(.minutes(2))) struct NormalizedPowerOracleTests {
    struct Coggan: Decodable {
        var np: Double
        var count: Int
        var head: [Double]
    }

    @Test func theStoresNormalizedPowerIsGoldenCheetahsButForTheFirstWindows() async throws {
        let path = NSTemporaryDirectory() + "ohk-np-oracle-\(UUID().uuidString).fit"
        defer { try? FileManager.default.removeItem(atPath: path) }
        // An hour less the 30 s pause in the middle; power 150 + 13t mod 200 W, a sawtooth NP weighs above its mean.
        try ExportOracle.run(["encode-activity", path, "3600"])
        let coggan = try JSONDecoder().decode(Coggan.self, from: try ExportOracle.run(["coggan-np", path]))
        #expect(coggan.count == 3_570 && coggan.head.count == 29)

        let store = HKHealthStore.inMemory(clientIdentifier: "oracle")
        try await store.requestAuthorization(
            toShare: WorkoutImporter.shareTypes, read: Set(WorkoutImporter.shareTypes.map { $0 as HKObjectType }))
        let workout = try await WorkoutImporter.save(try WorkoutImporter.read(path: path), to: store).workout
        let ours = try #require(try await store.normalizedPower(for: workout)?.doubleValue(for: .watt()))

        var running = 0.0
        let firstWindows = coggan.head.reduce(0.0) { total, power in
            running += power
            return total + pow(running / 30, 4)
        }
        let n = Double(coggan.count)
        let left = pow(coggan.np, 4) * n
        let right = pow(ours, 4) * (n - 29) + firstWindows
        #expect(abs(left - right) <= 1e-9 * left, "GoldenCheetah \(coggan.np) W, ours \(ours) W")
        // Over an hour the first windows move the figure by well under a watt, and GoldenCheetah's is the lower.
        #expect(ours > coggan.np && ours - coggan.np < 1, "GoldenCheetah \(coggan.np) W, ours \(ours) W")
    }
}
