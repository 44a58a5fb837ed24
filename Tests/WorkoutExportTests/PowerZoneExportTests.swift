import FITFile
import Foundation
import OpenHealthKit
import TestSupport
import Testing
import WorkoutExport

/// A ride with power zones: the FIT session carries the time in each power zone (`time_in_power_zone`, field 68),
/// and Garmin's SDK and fitparse both read it.
@Suite(.blockingWaits) struct PowerZoneExportTests {
    static let start = Date(timeIntervalSince1970: 1_731_065_600)  // FIT time 1 100 000 000

    /// Ten minutes at 1 Hz in zones with boundaries 150/200/250 W: 100 W for 2 min (Z1), 175 W for 3 min (Z2),
    /// 225 W for 3 min (Z3), 275 W for 2 min (Z4). Each reading holds until the next one, the last until the end.
    static func watts(_ t: Int) -> Double { t < 120 ? 100 : t < 300 ? 175 : t < 480 ? 225 : 275 }

    @Test(.timeLimit(.minutes(2)))
    func aRideWithPowerZonesExportsTheTimeInEach() async throws {
        let store = try await FITExportTests.store()
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .cycling
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: nil)
        let zones = try HKWorkoutZoneConfiguration(
            quantityType: HKQuantityType(.cyclingPower),
            zoneBoundaries: [150, 200, 250].map { HKQuantity(unit: .watt(), doubleValue: $0) })
        try await builder.setCustomZoneConfiguration(zones, for: HKQuantityType(.cyclingPower))
        try await builder.beginCollection(at: Self.start)
        try await builder.addSamples(
            (0 ..< 600).map { t in
                HKQuantitySample(
                    type: HKQuantityType(.cyclingPower),
                    quantity: HKQuantity(unit: .watt(), doubleValue: Self.watts(t)),
                    start: Self.start + TimeInterval(t), end: Self.start + TimeInterval(t))
            })
        try await builder.endCollection(at: Self.start + 600)
        let workout = try #require(try await builder.finishWorkout())
        #expect(
            workout.zoneGroup(for: HKQuantityType(.cyclingPower))?.zoneDurations.map(\.duration) == [
                120, 180, 180, 120,
            ])

        let fit = FITExportTests.temporaryPath("power-zones.fit")
        defer { try? FileManager.default.removeItem(atPath: fit) }
        try ExportFile.write(
            try ExportFormat.fit.encode(try await WorkoutExportData.load(workout, from: store)), to: fit)
        for reader in ["decode-garmin", "decode-fitparse"] {
            let messages = try ExportOracle.decode(reader, path: fit)
            let session = try #require(messages.first { $0.number == Int(FITMessageNumber.session) }, "\(reader)")
            // Seconds scaled by 1000, as the profile has it; no heart rate, so no time in heart-rate zones.
            #expect(
                session.numbers(68).compactMap { $0 } == [120_000, 180_000, 180_000, 120_000],
                "\(reader): time in power zones")
            #expect(session.numbers(65).compactMap { $0 }.isEmpty, "\(reader): no heart-rate zones")
        }
    }
}
