import FITFile
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
/// The FIT file is a real one, written with `FITFileBuilder` (FITFile target) from the workout's samples as read back
/// through the library and decoded again to check it: a 14-byte header and 2-byte CRC; file_id; device_info per
/// sensor; timer start and stop events; one `record` per second that has any sample, with timestamp, heart_rate,
/// cadence, distance (cumulative, cm), speed (mm/s) and power at the profile's resolutions; one lap, one session and
/// the activity message. A second file uses compressed-timestamp headers for records (no 4-byte timestamp; a normal
/// record after any gap of 32 s or more).
enum RideFootprint {
    struct Sizes {
        var file: Int
        var tables: [String: Int]
    }

    static func run(fixture: String, directory: String) async throws {
        let path = directory + "/ride.sqlite"
        let store = try HKHealthStore(databasePath: path, clientIdentifier: "benchmark")
        let types: [HKQuantityType] = [
            HKQuantityType(.heartRate), HKQuantityType(.cyclingPower),
            HKQuantityType(.cyclingCadence), HKQuantityType(.cyclingSpeed),
            HKQuantityType(.activeEnergyBurned), HKQuantityType(.distanceCycling),
        ]
        let sampleTypes: Set<HKSampleType> = Set(types.map { $0 as HKSampleType }).union([
            .workoutType(), HKSeriesType.heartbeat(),
        ])
        try await store.requestAuthorization(toShare: sampleTypes, read: Set(sampleTypes.map { $0 as HKObjectType }))
        let workout = try await WorkoutReplay(fixtureAt: fixture, healthStore: store).run(pace: .instant)
        let raw = try DatabasePool(path: path)

        // The records a FIT file of this workout holds: one per second with any sample, each field the last value
        // of its type in that second (distance: the cumulative sum).
        var seconds: [Int: RideSecond] = [:]
        var sampleCount = 0
        for type in types {
            let samples = try await HKSampleQueryDescriptor(
                predicates: [.quantitySample(type: type, predicate: HKQuery.predicateForObjects(from: workout))],
                sortDescriptors: [SortDescriptor(\.startDate)]
            ).result(for: store)
            sampleCount += samples.count
            var distance = 0.0
            for sample in samples {
                let second = Int(sample.startDate.timeIntervalSince(workout.startDate))
                var entry = seconds[second] ?? RideSecond()
                switch type.identifier {
                case HKQuantityTypeIdentifier.heartRate.rawValue:
                    entry.heartRate = sample.quantity.doubleValue(for: HKUnit(from: "count/min"))
                case HKQuantityTypeIdentifier.cyclingPower.rawValue:
                    entry.power = sample.quantity.doubleValue(for: .watt())
                case HKQuantityTypeIdentifier.cyclingCadence.rawValue:
                    entry.cadence = sample.quantity.doubleValue(for: HKUnit(from: "count/min"))
                case HKQuantityTypeIdentifier.cyclingSpeed.rawValue:
                    entry.speed = sample.quantity.doubleValue(for: HKUnit(from: "m/s"))
                case HKQuantityTypeIdentifier.distanceCycling.rawValue:
                    distance += sample.quantity.doubleValue(for: .meter())
                    entry.distance = distance
                default: break
                }
                seconds[second] = entry
            }
        }
        let sensors = try await raw.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM devices") ?? 0 }

        let uncondensed = try measure(raw, path)
        let report = try await store.condenseWorkout(workout)
        let condensed = try measure(raw, path)
        _ = try await store.purgeDeletedObjects(deletedBefore: .distantFuture)
        let purged = try measure(raw, path)
        let breakdown = try seriesBreakdown(raw)
        if let output = ProcessInfo.processInfo.environment["RIDE_STORE"] {  // to study the condensed store
            try? FileManager.default.removeItem(atPath: output)
            try FileManager.default.copyItem(atPath: path, toPath: output)
        }
        for type in types {
            _ = try await store.deleteObjects(of: type, predicate: HKQuery.predicateForObjects(from: workout))
        }
        _ = try await store.deleteObjects(
            of: HKSeriesType.heartbeat(), predicate: HKQuery.predicateForObjects(from: workout))
        try await store.delete(workout)
        _ = try await store.purgeDeletedObjects(deletedBefore: .distantFuture)
        let empty = try measure(raw, path)

        let timeline = seconds.sorted { $0.key < $1.key }
        let fitFile = fitActivity(timeline, workout: workout, sensors: sensors, compressed: false)
        let fitCompressedFile = fitActivity(timeline, workout: workout, sensors: sensors, compressed: true)
        for file in [fitFile, fitCompressedFile] {
            let records = try FITDecoder.messages(file).filter { $0.globalMessageNumber == FITMessageNumber.record }
                .count
            guard records == timeline.count else {
                fatalError("the FIT file decodes to \(records) records, not \(timeline.count)")
            }
        }
        if let output = ProcessInfo.processInfo.environment["FIT_OUT"] {  // to check it with another decoder
            try Data(fitFile).write(to: URL(fileURLWithPath: output))
        }
        let fit = fitFile.count
        let fitCompressed = fitCompressedFile.count
        func kb(_ bytes: Int) -> String { String(format: "%8.1f KB", Double(bytes) / 1000) }
        print("\nThe 90-minute ride fixture: \(sampleCount) samples, \(timeline.count) seconds with data")
        print(
            "  condensed: \(report.samplesRemoved) samples into \(report.seriesCreated) series of \(report.quantitiesStored) quantities"
        )
        print("  What the workout adds to the store file (after VACUUM and a checkpoint, minus the store without it):")
        func line(_ label: String, _ bytes: Int, _ note: String = "") {
            print("    \(label.padding(toLength: 50, withPad: " ", startingAt: 0))\(kb(bytes))\(note)")
        }
        line("uncondensed", uncondensed.file - empty.file)
        line("condensed, deletion records kept (30 days)", condensed.file - empty.file)
        line("condensed, after the deletion records' retention", purged.file - empty.file)
        line("FIT activity file, normal headers", fit, "   (written with FITFileBuilder, decoded back)")
        line("FIT activity file, compressed timestamps", fitCompressed)
        print("  Condensed, by table (deletion records kept):")
        for (name, bytes) in condensed.tables.sorted(by: { $0.value > $1.value })
        where bytes > (empty.tables[name] ?? 0) {
            line(name, bytes - (empty.tables[name] ?? 0))
        }
        print("  Condensed, by table (after the retention):")
        for (name, bytes) in purged.tables.sorted(by: { $0.value > $1.value }) where bytes > (empty.tables[name] ?? 0) {
            line(name, bytes - (empty.tables[name] ?? 0))
        }
        print("  Series points by type (bytes of the points blobs; quantities; bytes per quantity):")
        for entry in breakdown {
            let perQuantity = entry.quantities > 0 ? Double(entry.bytes) / Double(entry.quantities) : 0
            line(
                entry.type, entry.bytes,
                String(
                    format: "   %6d quantities in %d series, %.2f B each", entry.quantities,
                    entry.series, perQuantity))
        }
    }

    /// One type's series: the bytes of their points (``quantity_series.points``), how many series and quantities.
    struct SeriesShare {
        var type: String
        var series: Int
        var quantities: Int
        var bytes: Int
    }

    static func seriesBreakdown(_ raw: DatabasePool) throws -> [SeriesShare] {
        try raw.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT t.identifier, count(*), sum(q.count), sum(length(q.points)) FROM quantity_series q
                    JOIN samples s ON s.id = q.sample_id JOIN types t ON t.id = s.type_id
                    GROUP BY t.identifier ORDER BY sum(length(q.points)) DESC
                    """
            ).map { row in
                let identifier: String = row[0]
                return SeriesShare(
                    type: String(identifier.split(separator: "Identifier").last ?? ""), series: row[1],
                    quantities: row[2], bytes: row[3])
            }
        }
    }

    static func measure(_ raw: DatabasePool, _ path: String) throws -> Sizes {
        try raw.writeWithoutTransaction { db in
            try db.execute(sql: "VACUUM")
            _ = try Row.fetchAll(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let file = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        let tables = try raw.read { db in
            try Dictionary(
                uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT name, sum(pgsize) FROM dbstat GROUP BY name")
                    .map { ($0[0] as String, $0[1] as Int) })
        }
        return Sizes(file: file, tables: tables)
    }

    /// A FIT activity file's size: header 14 + CRC 2; definition = 6 + 3 per field; data = 1 + field bytes.
    /// One second of the ride: the last value of each type in it.
    struct RideSecond {
        var heartRate: Double?
        var power: Double?
        var cadence: Double?
        var speed: Double?
        var distance: Double?
    }

    /// A FIT activity file of the ride, written with FITFileBuilder.
    static func fitActivity(
        _ timeline: [(key: Int, value: RideSecond)], workout: HKWorkout, sensors: Int,
        compressed: Bool
    ) -> [UInt8] {
        let fitEpoch = Date(timeIntervalSince1970: 631_065_600)
        let start = UInt64(workout.startDate.timeIntervalSince(fitEpoch))
        let end = UInt64(workout.endDate.timeIntervalSince(fitEpoch))
        func field(_ number: UInt8, _ size: UInt8, _ type: FITBaseType) -> FITFieldDefinition {
            FITFieldDefinition(number: number, size: size, baseType: type)
        }
        func value(_ number: Double?, scale: Double = 1) -> FITValue {
            number.map { .unsigned(UInt64(max(0, ($0 * scale).rounded()))) } ?? .invalid
        }
        var file = FITFileBuilder()
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.fileId,
                fields: [
                    field(0, 1, .enum), field(1, 2, .uint16), field(2, 2, .uint16), field(3, 4, .uint32z),
                    field(4, 4, .uint32),
                ]),
            localType: 0)
        file.write([.unsigned(4), .unsigned(255), .unsigned(1), .unsigned(1), .unsigned(start)], localType: 0)
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.deviceInfo,
                fields: [
                    field(253, 4, .uint32), field(0, 1, .uint8), field(1, 1, .uint8), field(2, 2, .uint16),
                    field(3, 4, .uint32z),
                    field(4, 2, .uint16), field(25, 1, .enum),
                ]), localType: 1)
        for index in 0 ..< max(1, sensors) {
            file.write(
                [
                    .unsigned(start), .unsigned(UInt64(index)), .unsigned(120), .unsigned(255),
                    .unsigned(UInt64(index + 1)),
                    .unsigned(1), .unsigned(3),
                ], localType: 1)
        }
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.event,
                fields: [
                    field(253, 4, .uint32), field(0, 1, .enum), field(1, 1, .enum),
                ]), localType: 2)
        file.write([.unsigned(start), .unsigned(0), .unsigned(0)], localType: 2)
        let recordFields = [
            field(3, 1, .uint8), field(4, 1, .uint8), field(5, 4, .uint32), field(6, 2, .uint16),
            field(7, 2, .uint16),
        ]
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.record,
                fields: [field(253, 4, .uint32)] + recordFields), localType: 3)
        if compressed {
            file.define(
                FITMessageDefinition(globalMessageNumber: FITMessageNumber.record, fields: recordFields), localType: 0)
        }
        var last = -Int.max / 2
        for (second, entry) in timeline {
            let values = [
                value(entry.heartRate), value(entry.cadence), value(entry.distance, scale: 100),
                value(entry.speed, scale: 1000), value(entry.power),
            ]
            let time = start + UInt64(max(0, second))
            if compressed && second - last < 32 {
                file.write(values, localType: 0, timeOffset: UInt8(time & 0x1F))
            } else {
                file.write([.unsigned(time)] + values, localType: 3)
            }
            last = second
        }
        file.write([.unsigned(end), .unsigned(0), .unsigned(4)], localType: 2)
        // Lap and session: start, timestamp, elapsed and timer time (ms), distance (cm), calories, average and
        // maximum heart rate, cadence and power, sport, event, event type (the session adds num_laps).
        let summary = [
            field(2, 4, .uint32), field(253, 4, .uint32), field(7, 4, .uint32), field(8, 4, .uint32),
            field(9, 4, .uint32), field(11, 2, .uint16), field(15, 1, .uint8), field(16, 1, .uint8),
            field(17, 1, .uint8), field(18, 1, .uint8), field(19, 2, .uint16), field(20, 2, .uint16),
            field(5, 1, .enum), field(0, 1, .enum), field(1, 1, .enum),
        ]
        let duration = UInt64(workout.endDate.timeIntervalSince(workout.startDate) * 1000)
        let distance = timeline.compactMap(\.value.distance).last
        let totals: [FITValue] = [
            .unsigned(start), .unsigned(end), .unsigned(duration), .unsigned(duration),
            value(distance, scale: 100),
        ]
        file.define(FITMessageDefinition(globalMessageNumber: FITMessageNumber.lap, fields: summary), localType: 4)
        file.write(totals, localType: 4)
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.session,
                fields: summary + [field(26, 2, .uint16)]), localType: 5)
        file.write(totals, localType: 5)
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.activity,
                fields: [
                    field(253, 4, .uint32), field(0, 4, .uint32), field(1, 2, .uint16), field(2, 1, .enum),
                    field(3, 1, .enum),
                    field(4, 1, .enum),
                ]), localType: 6)
        file.write(
            [.unsigned(end), .unsigned(duration), .unsigned(1), .unsigned(0), .unsigned(26), .unsigned(1)], localType: 6
        )
        return file.finish()
    }
}
