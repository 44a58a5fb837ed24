import FITFile
import Foundation
import OpenHealthKit
import TestSupport
import Testing
import WorkoutExport
import WorkoutImport

/// Export, then import: the workout that comes back has the same statistics, time in zones, events, activities
/// and heartbeats as the one exported. The first workout comes from a file Garmin's encoder wrote (single sport
/// and multisport), so neither side of the comparison is made by the exporter alone.
@Suite(.blockingWaits) struct RoundTripTests {
    func heartbeats(_ workout: HKWorkout, _ store: HKHealthStore) async throws -> [(TimeInterval, Bool)] {
        let series = try await HKSampleQueryDescriptor(
            predicates: [
                .sample(type: HKSeriesType.heartbeat(), predicate: HKQuery.predicateForObjects(from: workout))
            ],
            sortDescriptors: []
        ).result(for: store).compactMap { $0 as? HKHeartbeatSeriesSample }
        var beats: [(TimeInterval, Bool)] = []
        for sample in series {
            for try await beat in HKHeartbeatSeriesQueryDescriptor(sample).results(for: store) {
                beats.append(
                    (
                        sample.startDate.timeIntervalSince(workout.startDate) + beat.timeIntervalSinceStart,
                        beat.precededByGap
                    ))
            }
        }
        return beats
    }

    func statistics(_ all: [HKQuantityType: HKStatistics]) -> [String: [Double]] {
        var out: [String: [Double]] = [:]
        for (type, statistic) in all {
            let unit = type.storageUnit
            let quantities =
                type.aggregationStyle == .cumulative
                ? [statistic.sumQuantity()]
                : [statistic.averageQuantity(), statistic.minimumQuantity(), statistic.maximumQuantity()]
            out[type.identifier] = quantities.compactMap { $0?.doubleValue(for: unit) }
        }
        return out
    }

    func close(
        _ a: [String: [Double]], _ b: [String: [Double]], ignoring: Set<String> = [], tolerance: Double = 1e-6
    ) -> Bool {
        let a = a.filter { !ignoring.contains($0.key) }, b = b.filter { !ignoring.contains($0.key) }
        return a.keys.sorted() == b.keys.sorted()
            && a.allSatisfy { key, values in
                let others = b[key] ?? []
                return values.count == others.count
                    && zip(values, others).allSatisfy { abs($0 - $1) <= tolerance * max(1, abs($1)) }
            }
    }

    @Test(.timeLimit(.minutes(2)), arguments: [false, true])
    func exportThenImportGivesTheSameWorkout(multisport: Bool) async throws {
        let first = try await FITExportTests.store()
        let original = try await FITExportTests.importedGarminRide(first, multisport: multisport)
        let path = FITExportTests.temporaryPath("round-trip.fit")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try ExportFile.write(
            try ExportFormat.fit.encode(try await WorkoutExportData.load(original, from: first)), to: path)

        let second = try await FITExportTests.store()
        let back = try await WorkoutImporter.save(try WorkoutImporter.read(path: path), to: second).workout

        #expect(back.workoutActivityType == original.workoutActivityType)
        #expect(
            back.startDate == original.startDate && back.endDate == original.endDate
                && back.duration == original.duration)
        #expect(
            back.metadata?[HKMetadataKeyIndoorWorkout] as? Bool == original.metadata?[HKMetadataKeyIndoorWorkout]
                as? Bool)
        // Energy is integrated from power on import. Garmin's multisport file has power in its swim and transition
        // legs too, which HealthKit has no power type for, so the first import already drops it from the samples;
        // the second integrates what was kept. Single-sport energy is compared.
        let energy: Set<String> = multisport ? [HKQuantityTypeIdentifier.activeEnergyBurned.rawValue] : []
        #expect(
            close(statistics(back.allStatistics), statistics(original.allStatistics), ignoring: energy),
            "\(statistics(back.allStatistics)) against \(statistics(original.allStatistics))")
        let zones = { (w: HKWorkout) in
            w.zoneGroup(for: HKQuantityType(.heartRate))?.zoneDurations.map(\.duration) ?? []
        }
        #expect(!zones(original).isEmpty && zones(back) == zones(original))
        let events = { (w: HKWorkout) in (w.workoutEvents ?? []).map { "\($0.type.name) \($0.dateInterval)" }.sorted() }
        #expect(events(back) == events(original))
        let activities = { (w: HKWorkout) in
            w.workoutActivities.map {
                "\($0.workoutConfiguration.activityType.name) \($0.startDate) \(String(describing: $0.endDate))"
            }
        }
        #expect(activities(back) == activities(original))
        if multisport { #expect(activities(original).count == 3, "swim, transition, ride") }
        for (a, b) in zip(back.workoutActivities, original.workoutActivities) {
            #expect(close(statistics(a.allStatistics), statistics(b.allStatistics), ignoring: energy))
        }
        let beatsBack = try await heartbeats(back, second), beatsOriginal = try await heartbeats(original, first)
        #expect(beatsOriginal.count == 174, "870 records, an hrv message of 2 intervals every 10 s: 87 × 2")
        #expect(beatsBack.count == beatsOriginal.count)
        #expect(zip(beatsBack, beatsOriginal).allSatisfy { abs($0.0 - $1.0) < 1e-6 && $0.1 == $1.1 })
    }
}
