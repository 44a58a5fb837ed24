// Store benchmark: heart-rate samples associated with workouts, saved in batches of 100 (as a live builder
// saves them) and read back per workout with `predicateForObjects(from:)`; and, in the same run, the same work
// with raw SQL on a plain table. Prints both and the ratio.
//
//     swift run -c release StoreBenchmark [samples] [samples-per-workout]
//
// Defaults: 1,000,000 samples, 3,600 per workout (one hour at 1 Hz).
//
// The two sides run interleaved, batch by batch and workout by workout, so that whatever else the machine is
// doing slows both alike; each side's time is the sum of its own slices. Both create a UUID per sample.
import Foundation
import GRDB
import OpenHealthKit

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let sampleCount = arguments.first ?? 1_000_000
let perWorkout = arguments.dropFirst().first ?? 3_600
let batchSize = 100
let workoutCount = (sampleCount + perWorkout - 1) / perWorkout
let origin = Date(timeIntervalSinceReferenceDate: 700_000_000)

let directory = NSTemporaryDirectory() + "ohk-bench-" + UUID().uuidString
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

/// Accumulated wall time of one side.
final class Stopwatch {
    var seconds = 0.0
    func time<T>(_ body: () async throws -> T) async rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { seconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        return try await body()
    }
}

func bpm(_ i: Int) -> Double { 120 + Double(i % 60) }

// OpenHealthKit side.
let store = try HKHealthStore(databasePath: directory + "/health.sqlite", clientIdentifier: "benchmark")
let heartRate = HKQuantityType(.heartRate)
let bpmUnit = HKUnit.count().unitDivided(by: .minute())
try await store.requestAuthorization(toShare: [heartRate, .workoutType()], read: [heartRate, .workoutType()])
var workouts: [HKWorkout] = []
for w in 0 ..< workoutCount {
    let start = origin + Double(w * (perWorkout + 600))
    workouts.append(legacy.workout(activityType: .cycling, start: start, end: start + Double(perWorkout)))
}
try await store.save(workouts)

// Raw side: one plain table with an index on the workout.
var configuration = Configuration()
configuration.label = "raw"
let raw = try DatabasePool(path: directory + "/raw.sqlite", configuration: configuration)
try raw.write { db in
    try db.execute(sql: """
        CREATE TABLE heart_rate (id INTEGER PRIMARY KEY, uuid BLOB NOT NULL, workout INTEGER NOT NULL,
                                 start REAL NOT NULL, "end" REAL NOT NULL, bpm REAL NOT NULL);
        CREATE INDEX heart_rate_by_workout ON heart_rate(workout);
        """)
}

let ohkWrite = Stopwatch()
let rawWrite = Stopwatch()
var written = 0
for (w, workout) in workouts.enumerated() {
    var i = 0
    while i < perWorkout && written < sampleCount {
        let range = i ..< min(i + batchSize, perWorkout, i + sampleCount - written)
        try await ohkWrite.time {
            var batch: [HKSample] = []
            batch.reserveCapacity(range.count)
            for k in range {
                let t = workout.startDate + Double(k)
                batch.append(HKQuantitySample(type: heartRate, quantity: HKQuantity(unit: bpmUnit, doubleValue: bpm(w + k)),
                                              start: t, end: t))
            }
            try await legacy.add(batch, to: workout, in: store)
        }
        let start = workout.startDate.timeIntervalSinceReferenceDate
        try await rawWrite.time {
            try await raw.write { db in
                let statement = try db.cachedStatement(sql: "INSERT INTO heart_rate (uuid, workout, start, \"end\", bpm) VALUES (?, ?, ?, ?, ?)")
                for k in range {
                    try statement.execute(arguments: [UUID(), w, start + Double(k), start + Double(k), bpm(w + k)])
                }
            }
        }
        i += range.count
        written += range.count
    }
}

let ohkRead = Stopwatch()
let rawRead = Stopwatch()
var ohkCount = 0
var rawCount = 0
for (w, workout) in workouts.enumerated() {
    ohkCount += try await ohkRead.time {
        let descriptor = HKSampleQueryDescriptor(
            predicates: [.quantitySample(type: heartRate, predicate: HKQuery.predicateForObjects(from: workout))],
            sortDescriptors: [])
        return try await descriptor.result(for: store).reduce(0) { $0 + ($1.quantity.doubleValue(for: bpmUnit) > 0 ? 1 : 0) }
    }
    rawCount += try await rawRead.time {
        let rows = try raw.read { db in
            try Row.fetchAll(db, sql: "SELECT uuid, start, \"end\", bpm FROM heart_rate WHERE workout = ?", arguments: [w])
        }
        return rows.reduce(0) { $0 + (($1[3] as Double) > 0 ? 1 : 0) }
    }
}

func size(_ name: String) -> Int {
    ["", "-wal"].reduce(0) { total, suffix in
        total + ((try? FileManager.default.attributesOfItem(atPath: directory + "/" + name + suffix)[.size] as? Int) ?? 0)
    }
}

precondition(ohkCount == sampleCount && rawCount == sampleCount, "read back \(ohkCount) and \(rawCount) of \(sampleCount)")
func line(_ name: String, _ ohk: Double, _ raw: Double) -> String {
    String(format: "%@  OpenHealthKit %7.2f s (%8.0f samples/s)   raw SQL %7.2f s (%8.0f samples/s)   ratio %.2f×",
           name, ohk, Double(sampleCount) / ohk, raw, Double(sampleCount) / raw, ohk / raw)
}
print("samples: \(sampleCount) in \(workoutCount) workouts, batches of \(batchSize)")
print(line("write", ohkWrite.seconds, rawWrite.seconds))
print(line("read ", ohkRead.seconds, rawRead.seconds))
print(String(format: "total  ratio %.2f×   (target: within 2×)",
             (ohkWrite.seconds + ohkRead.seconds) / (rawWrite.seconds + rawRead.seconds)))
print("file   OpenHealthKit \(size("health.sqlite") / sampleCount) bytes/sample   raw SQL \(size("raw.sqlite") / sampleCount) bytes/sample")

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
