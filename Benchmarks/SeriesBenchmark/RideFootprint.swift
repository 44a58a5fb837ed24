import Foundation
import GRDB
import OpenHealthKit

/// Part 3 of the series benchmark: what the 90-minute ride fixture adds to a store file, uncondensed and condensed,
/// against the same ride as a FIT activity file.
///
/// Every store size is the main file after `VACUUM` and `PRAGMA wal_checkpoint(TRUNCATE)` (the WAL is then empty),
/// minus the same store once the workout, its samples and every deletion record are gone (so the rows for the
/// store's types, sources and devices, shared with every other workout, are not counted).
///
/// The FIT size is computed from the FIT record layout (there is no FIT writer in this package yet), for the
/// records an activity file of this workout holds: a 14-byte header and 2-byte CRC; file_id, device_info per
/// sensor, timer start and stop events, one lap, one session and the activity message, each with its definition;
/// and one `record` message per second that has any sample, with timestamp (4 bytes), heart_rate (1), cadence (1),
/// distance (4), speed (2) and power (2) under one definition: 15 bytes with its header (11 with
/// compressed-timestamp headers, which drop the 4-byte timestamp).
enum RideFootprint {
    struct Sizes {
        var file: Int
        var tables: [String: Int]
    }

    static func run(fixture: String, directory: String) async throws {
        let path = directory + "/ride.sqlite"
        let store = try HKHealthStore(databasePath: path, clientIdentifier: "benchmark")
        let types: [HKQuantityType] = [HKQuantityType(.heartRate), HKQuantityType(.cyclingPower),
                                       HKQuantityType(.cyclingCadence), HKQuantityType(.cyclingSpeed),
                                       HKQuantityType(.activeEnergyBurned), HKQuantityType(.distanceCycling)]
        let sampleTypes: Set<HKSampleType> = Set(types.map { $0 as HKSampleType }).union([.workoutType(), HKSeriesType.heartbeat()])
        try await store.requestAuthorization(toShare: sampleTypes, read: Set(sampleTypes.map { $0 as HKObjectType }))
        let workout = try await WorkoutReplay(fixtureAt: fixture, healthStore: store).run(pace: .instant)
        let raw = try DatabasePool(path: path)

        // The records a FIT file of this workout would hold: one per second with any sample.
        var seconds = Set<Int>()
        var sampleCount = 0
        for type in types {
            let samples = try await HKSampleQueryDescriptor(
                predicates: [.quantitySample(type: type, predicate: HKQuery.predicateForObjects(from: workout))],
                sortDescriptors: []).result(for: store)
            sampleCount += samples.count
            for sample in samples { seconds.insert(Int(sample.startDate.timeIntervalSince(workout.startDate))) }
        }
        let sensors = try await raw.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM devices") ?? 0 }

        let uncondensed = try measure(raw, path)
        let report = try await store.condenseWorkout(workout)
        let condensed = try measure(raw, path)
        _ = try await store.purgeDeletedObjects(deletedBefore: .distantFuture)
        let purged = try measure(raw, path)
        for type in types {
            _ = try await store.deleteObjects(of: type, predicate: HKQuery.predicateForObjects(from: workout))
        }
        _ = try await store.deleteObjects(of: HKSeriesType.heartbeat(), predicate: HKQuery.predicateForObjects(from: workout))
        try await store.delete(workout)
        _ = try await store.purgeDeletedObjects(deletedBefore: .distantFuture)
        let empty = try measure(raw, path)

        let fit = fitBytes(records: seconds.sorted(), sensors: sensors, compressed: false)
        let fitCompressed = fitBytes(records: seconds.sorted(), sensors: sensors, compressed: true)
        func kb(_ bytes: Int) -> String { String(format: "%8.1f KB", Double(bytes) / 1000) }
        print("\nThe 90-minute ride fixture: \(sampleCount) samples, \(seconds.count) seconds with data")
        print("  condensed: \(report.samplesRemoved) samples into \(report.seriesCreated) series of \(report.quantitiesStored) quantities")
        print("  What the workout adds to the store file (after VACUUM and a checkpoint, minus the store without it):")
        func line(_ label: String, _ bytes: Int, _ note: String = "") {
            print("    \(label.padding(toLength: 50, withPad: " ", startingAt: 0))\(kb(bytes))\(note)")
        }
        line("uncondensed", uncondensed.file - empty.file)
        line("condensed, deletion records kept (30 days)", condensed.file - empty.file)
        line("condensed, after the deletion records' retention", purged.file - empty.file)
        line("FIT activity file, normal headers", fit, "   (computed from the record layout)")
        line("FIT activity file, compressed timestamps", fitCompressed)
        print("  Condensed, by table (deletion records kept):")
        for (name, bytes) in condensed.tables.sorted(by: { $0.value > $1.value }) where bytes > (empty.tables[name] ?? 0) {
            line(name, bytes - (empty.tables[name] ?? 0))
        }
    }

    static func measure(_ raw: DatabasePool, _ path: String) throws -> Sizes {
        try raw.writeWithoutTransaction { db in
            try db.execute(sql: "VACUUM")
            _ = try Row.fetchAll(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let file = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        let tables = try raw.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT name, sum(pgsize) FROM dbstat GROUP BY name")
                .map { ($0[0] as String, $0[1] as Int) })
        }
        return Sizes(file: file, tables: tables)
    }

    /// A FIT activity file's size: header 14 + CRC 2; definition = 6 + 3 per field; data = 1 + field bytes.
    /// `records`: the seconds (from the workout's start, ascending) that have a record message.
    static func fitBytes(records: [Int], sensors: Int, compressed: Bool) -> Int {
        func message(fields: [Int]) -> Int { (6 + 3 * fields.count) + (1 + fields.reduce(0, +)) }
        var total = 14 + 2
        total += message(fields: [1, 2, 2, 4, 4])                          // file_id: type, manufacturer, product, serial, time_created
        total += message(fields: [4, 1, 1, 2, 4, 2, 1]) + (1 + 15) * max(0, sensors - 1)  // device_info per sensor
        total += message(fields: [4, 1, 1]) + (1 + 6)                       // event: timer start, then stop_all
        let summary = [4, 4, 4, 4, 4, 2, 1, 1, 1, 1, 2, 2, 1, 1, 1, 1]      // lap / session: times, distance, calories, HR, cadence, power, sport, event
        total += message(fields: summary) + message(fields: summary + [2])  // lap; session (+ num_laps)
        total += message(fields: [4, 4, 2, 1, 1, 1])                        // activity
        let record = [1, 1, 4, 2, 2]                                        // heart_rate, cadence, distance, speed, power
        let fields = record.reduce(0, +)
        total += 6 + 3 * (record.count + 1)                                 // record definition with the timestamp
        if compressed {
            // A second definition without the timestamp; a record 32 s or more after the previous one (or the first)
            // needs a normal header and timestamp, the others a 1-byte compressed header.
            total += 6 + 3 * record.count
            var last = Int.min / 2
            for second in records {
                total += second - last >= 32 ? 1 + 4 + fields : 1 + fields
                last = second
            }
        } else {
            total += records.count * (1 + 4 + fields)
        }
        return total
    }
}
