import FitnessSensors
import Foundation
import Testing

@testable import OpenHealthKit
@testable import WorkoutImport

/// Energy from power has one rule (``PowerEnergy``): the live data source and an import make the same energy
/// samples from the same readings.
@Suite(.timeLimit(.minutes(1))) struct PowerEnergyImportTests {
    static let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
    /// (seconds, watts): gaps of 1, 1, 4, 8, 1, 1 s.
    static let readings: [(Double, Int)] = [(0, 200), (1, 300), (2, 250), (6, 400), (14, 100), (15, 0), (16, 300)]

    /// Each reading holds its watts until the next, at most 5 s: 200 J over 0–1, 300 J over 1–2, 250 × 4 = 1000 J
    /// over 2–6, 400 × 5 = 2000 J over 6–11 (8 s of silence, 5 held), 100 J over 14–15; the 0 W reading adds
    /// nothing and the last has no next. kJ counted as kcal.
    static let expected: [[Double]] = [[0, 1, 0.2], [1, 2, 0.3], [2, 6, 1.0], [6, 11, 2.0], [14, 15, 0.1]]

    @Test func theLiveDataSourceAndAnImportIntegrateTheSameEnergy() {
        var mapper = ReadingMapper()
        var live: [CollectedSample] = []
        for (second, watts) in Self.readings {
            mapper.samples(
                for: .power(PowerReading(watts: watts)), at: (Self.start + second).storeValue, activity: .cycling,
                deviceCode: 0, into: &live)
        }
        let liveEnergy = live.filter { $0.typeCode == HKQuantityType(.activeEnergyBurned).code }
            .map { [$0.start - Self.start.storeValue, $0.end - Self.start.storeValue, $0.value] }

        var imported = ImportedWorkout(
            format: "test", externalIdentifier: "energy", activityType: .cycling,
            locationType: .indoor, start: Self.start, end: Self.start + 20)
        imported.power = Self.readings.map { ImportedWorkout.Reading(date: Self.start + $0.0, value: Double($0.1)) }
        let importedEnergy = WorkoutImporter.samples(imported, device: nil)
            .filter { $0.quantityType == HKQuantityType(.activeEnergyBurned) }
            .map {
                [
                    $0.startDate.timeIntervalSince(Self.start), $0.endDate.timeIntervalSince(Self.start),
                    $0.quantity.doubleValue(for: .kilocalorie()),
                ]
            }

        for (name, energy) in [("live", liveEnergy), ("import", importedEnergy)] {
            #expect(energy.count == Self.expected.count, "\(name): \(energy)")
            for (got, want) in zip(energy, Self.expected) {
                #expect(zip(got, want).allSatisfy { abs($0 - $1) < 1e-6 }, "\(name): \(got) for \(want)")
            }
        }
    }

    /// An import pairs no readings across a pause, as a live recording forgets its last reading when it pauses:
    /// with a pause over 8–12 s, the 6–11 s stretch goes.
    @Test func noEnergyIsIntegratedAcrossAPause() {
        var imported = ImportedWorkout(
            format: "test", externalIdentifier: "energy", activityType: .cycling,
            locationType: .indoor, start: Self.start, end: Self.start + 20)
        imported.power = Self.readings.map { ImportedWorkout.Reading(date: Self.start + $0.0, value: Double($0.1)) }
        imported.pauses = [DateInterval(start: Self.start + 8, end: Self.start + 12)]
        let total = WorkoutImporter.samples(imported, device: nil)
            .filter { $0.quantityType == HKQuantityType(.activeEnergyBurned) }
            .reduce(0) { $0 + $1.quantity.doubleValue(for: .kilocalorie()) }
        #expect(abs(total - 1.6) < 1e-9)
    }
}
