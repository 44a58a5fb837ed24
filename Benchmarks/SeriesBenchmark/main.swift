// Series benchmark, in one run:
//
// 1. Bytes per 1 Hz heart-rate sample on disk: uncondensed sample rows vs the same data condensed into series
//    (SQLite's dbstat: pages of the sample tables and indexes), vs the same data as FIT `record` messages
//    (computed from the FIT protocol, per workout file: 14-byte header, definition message, data messages,
//    2-byte CRC; with normal headers and with compressed-timestamp headers).
// 2. A daily-average heart-rate HKStatisticsCollectionQuery over a year of condensed workouts vs
//    `SELECT day, avg(value) … GROUP BY day` on a plain table in the same SQLite file; both run alternately,
//    five times each, median reported.
//
//     swift run -c release SeriesBenchmark [samples] [samples-per-workout]
//
// 3. What the 90-minute ride fixture adds to a store file, uncondensed and condensed, against the same ride as a FIT
//    activity file written with FITFileBuilder (see RideFootprint.swift). `SeriesBenchmark ride` runs only this part.
//
// Defaults: 1,000,000 samples in workouts of 3,600 (one hour at 1 Hz), one workout every 1.3 days (a year).
// Heart rate is a seeded random walk in whole bpm (changes on 40% of seconds), as a chest strap reports it.
import Foundation
import GRDB
import OpenHealthKit

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let sampleCount = arguments.first ?? 1_000_000
let perWorkout = arguments.dropFirst().first ?? 3_600
let workoutCount = (sampleCount + perWorkout - 1) / perWorkout
var utc = Calendar(identifier: .gregorian)
utc.timeZone = TimeZone(identifier: "UTC")!
let origin = utc.date(from: DateComponents(year: 2025, month: 1, day: 1, hour: 7))!

let directory = NSTemporaryDirectory() + "ohk-series-bench-" + UUID().uuidString
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }
let path = directory + "/health.sqlite"

let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../fixtures/ride-90min.jsonl").standardized.path
try await RideFootprint.run(fixture: fixture, directory: directory)
if CommandLine.arguments.contains("ride") {
    try? FileManager.default.removeItem(atPath: directory)
    exit(0)
}
print("")

/// A small deterministic generator (SplitMix64), so every run measures the same data.
struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: UInt64) -> Int { Int(next() % n) }
}

func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

// MARK: Data

print("Series benchmark: \(sampleCount) heart-rate samples at 1 Hz in \(workoutCount) workouts of \(perWorkout)")
let store = try HKHealthStore(databasePath: path, clientIdentifier: "benchmark")
let heartRate = HKQuantityType(.heartRate)
let bpm = HKUnit.count().unitDivided(by: .minute())
try await store.requestAuthorization(toShare: [heartRate, .workoutType()], read: [heartRate, .workoutType()])
let raw = try DatabasePool(path: path)
try raw.write { db in
    try db.execute(sql: "CREATE TABLE bench_heart_rate (start REAL NOT NULL, value REAL NOT NULL)")
}
var random = SplitMix(state: 2026)
var value = 120
var remaining = sampleCount
var workoutStarts: [[Double]] = []
let saving = try await seconds {
    for index in 0 ..< workoutCount {
        let count = min(perWorkout, remaining)
        remaining -= count
        let start = origin + Double(index) * 1.3 * 86_400
        let workout = legacy.workout(activityType: .running, start: start, end: start + Double(count))
        try await store.save(workout)
        var samples: [HKSample] = []
        var rows: [(Double, Double)] = []
        var starts: [Double] = []
        samples.reserveCapacity(count)
        for second in 0 ..< count {
            if random.below(10) < 4 { value = min(185, max(85, value + [-2, -1, 1, 2][random.below(4)])) }
            let time = start + Double(second)
            samples.append(
                HKQuantitySample(
                    type: heartRate, quantity: HKQuantity(unit: bpm, doubleValue: Double(value)),
                    start: time, end: time))
            rows.append((time.timeIntervalSinceReferenceDate, Double(value)))
            starts.append(time.timeIntervalSinceReferenceDate)
        }
        workoutStarts.append(starts)
        try await legacy.add(samples, to: workout, in: store)
        let batch = rows
        try await raw.write { db in
            let insert = try db.makeStatement(sql: "INSERT INTO bench_heart_rate (start, value) VALUES (?, ?)")
            for row in batch { try insert.execute(arguments: [row.0, row.1]) }
        }
    }
}
print(String(format: "  saved in %.1f s", saving))

// MARK: 1. Bytes per sample

func sampleBytes() throws -> (samples: Int, series: Int, tombstones: Int) {
    try raw.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
    return try raw.read { db in
        func bytes(_ names: [String]) throws -> Int {
            let list = names.map { "'\($0)'" }.joined(separator: ",")
            return try Int.fetchOne(db, sql: "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN (\(list))") ?? 0
        }
        return (
            try bytes(["samples", "samples_by_type_start", "samples_by_workout"]), try bytes(["quantity_series"]),
            try bytes(["deleted_objects", "deleted_objects_by_type", "deleted_ranges"])
        )
    }
}

let before = try sampleBytes()
let condensing = try await seconds {
    let report = try await store.condenseWorkouts(olderThan: .distantFuture)
    print(
        "  condensed: \(report.samplesRemoved) samples into \(report.seriesCreated) series of \(report.quantitiesStored) quantities"
    )
}
print(String(format: "  condensed in %.1f s", condensing))
let after = try sampleBytes()

/// FIT sizes per workout file: header (14) + definition(s) + data messages + CRC (2).
/// Definition message: header 1, reserved 1, architecture 1, global message number 2, field count 1, 3 per field.
/// Normal data message: header 1 + timestamp (field 253, uint32) 4 + heart_rate (field 3, uint8) 1.
/// Compressed-timestamp data message: header 1 (5-bit time offset) + heart_rate 1, using a definition without the
/// timestamp; a normal message (with its own definition) is needed first and whenever 32 s or more pass.
func fitBytes(_ workoutStarts: [[Double]], compressed: Bool) -> Int {
    var total = 0
    for starts in workoutStarts {
        let withTimestamp = 6 + 3 * 2
        total += 14 + 2 + withTimestamp
        guard compressed else {
            total += starts.count * 6
            continue
        }
        total += 6 + 3  // definition without the timestamp
        var last = -Double.infinity
        for time in starts {
            if time - last >= 32 { total += 6 } else { total += 2 }
            last = time
        }
    }
    return total
}

let perSample = { (bytes: Int) in Double(bytes) / Double(sampleCount) }
let uncondensed = perSample(before.samples + before.series)
let condensed = perSample(after.samples + after.series)
let fitNormal = perSample(fitBytes(workoutStarts, compressed: false))
let fitCompressed = perSample(fitBytes(workoutStarts, compressed: true))
print("\nBytes per 1 Hz heart-rate sample")
print(String(format: "  uncondensed sample rows    %7.2f", uncondensed))
print(String(format: "  condensed series           %7.2f   (%.0fx smaller)", condensed, uncondensed / condensed))
print(
    String(
        format: "  FIT, normal headers        %7.2f   (condensed is %.1fx smaller)", fitNormal, fitNormal / condensed))
print(
    String(
        format: "  FIT, compressed timestamps %7.2f   (condensed is %.1fx smaller)", fitCompressed,
        fitCompressed / condensed))
let blobBytes = try raw.read { db in try Int.fetchOne(db, sql: "SELECT sum(length(points)) FROM quantity_series") ?? 0 }
print(String(format: "  (series points alone       %7.2f)", perSample(blobBytes)))
print(
    String(
        format:
            "  deletion records kept for anchored queries after condensing: %.2f per sample (for 30 days; an app's samples, random UUIDs)",
        perSample(after.tombstones)))

// MARK: 2. Daily average heart rate over the year

let anchor = utc.startOfDay(for: origin)
let query = HKStatisticsCollectionQueryDescriptor(
    predicate: .quantitySample(type: heartRate), options: .discreteAverage,
    anchorDate: anchor, intervalComponents: DateComponents(day: 1))
var healthKitTimes: [Double] = []
var rawTimes: [Double] = []
var days = 0
var rawDays = 0
for _ in 0 ..< 5 {
    healthKitTimes.append(try await seconds { days = try await query.result(for: store).statistics().count })
    rawTimes.append(
        try await seconds {
            rawDays = try raw.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT date(start + 978307200, 'unixepoch') AS day, avg(value) FROM bench_heart_rate GROUP BY day
                        """
                ).count
            }
        })
}
print("\nDaily average heart rate over \(days) days (raw SQL: \(rawDays) days), median of 5")
print(String(format: "  HKStatisticsCollectionQuery (condensed)  %8.1f ms", median(healthKitTimes) * 1000))
print(String(format: "  SELECT day, avg(value) GROUP BY day      %8.1f ms", median(rawTimes) * 1000))
print(String(format: "  ratio raw / OpenHealthKit                %8.1fx", median(rawTimes) / median(healthKitTimes)))

/// HealthKit's deprecated `HKWorkout` initializer and `add(_:to:)`, which this benchmark measures on purpose (the way
/// apps written before HKWorkoutBuilder save workouts and associate samples). Called through a protocol whose
/// requirements are not deprecated, so the warnings the API carries stay out of the build.
protocol LegacyWorkoutAPI: Sendable {
    static func workout(activityType: HKWorkoutActivityType, start: Date, end: Date) -> HKWorkout
    static func add(_ samples: [HKSample], to workout: HKWorkout, in store: HKHealthStore) async throws
}

enum Legacy: LegacyWorkoutAPI {
    @available(*, deprecated, message: "measures HealthKit's deprecated API on purpose")
    static func workout(activityType: HKWorkoutActivityType, start: Date, end: Date) -> HKWorkout {
        HKWorkout(activityType: activityType, start: start, end: end)
    }

    @available(*, deprecated, message: "measures HealthKit's deprecated API on purpose")
    static func add(_ samples: [HKSample], to workout: HKWorkout, in store: HKHealthStore) async throws {
        try await store.add(samples, to: workout)
    }
}

var legacy: any LegacyWorkoutAPI.Type { Legacy.self }
