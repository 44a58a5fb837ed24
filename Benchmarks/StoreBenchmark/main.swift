// Store benchmark: heart-rate samples associated with workouts, saved in batches of 100 (as a live builder
// saves them) and read back per workout with `predicateForObjects(from:)`; and, in the same run, the same work
// with raw SQL on a plain table. Prints both and the ratio.
//
//     swift run -c release StoreBenchmark [samples] [samples-per-workout]
//
// Defaults: 1,000,000 samples, 3,600 per workout (one hour at 1 Hz).
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

func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func bpm(_ i: Int) -> Double { 120 + Double(i % 60) }

// MARK: OpenHealthKit

let store = try HKHealthStore(databasePath: directory + "/health.sqlite", clientIdentifier: "benchmark")
let heartRate = HKQuantityType(.heartRate)
let bpmUnit = HKUnit.count().unitDivided(by: .minute())
try await store.requestAuthorization(toShare: [heartRate, .workoutType()], read: [heartRate, .workoutType()])
var workouts: [HKWorkout] = []
for w in 0 ..< workoutCount {
    let start = origin + Double(w * (perWorkout + 600))
    workouts.append(HKWorkout(activityType: .cycling, start: start, end: start + Double(perWorkout)))
}
try await store.save(workouts)

let ohkWrite = try await seconds {
    var written = 0
    for (w, workout) in workouts.enumerated() {
        var i = 0
        while i < perWorkout && written < sampleCount {
            let n = min(batchSize, perWorkout - i, sampleCount - written)
            var batch: [HKSample] = []
            batch.reserveCapacity(n)
            for k in i ..< i + n {
                let t = workout.startDate + Double(k)
                batch.append(HKQuantitySample(type: heartRate, quantity: HKQuantity(unit: bpmUnit, doubleValue: bpm(w + k)),
                                              start: t, end: t))
            }
            try await store.add(batch, to: workout)
            i += n
            written += n
        }
    }
}


var ohkRead = 0
let ohkReadTime = try await seconds {
    for workout in workouts {
        let descriptor = HKSampleQueryDescriptor(
            predicates: [.quantitySample(type: heartRate, predicate: HKQuery.predicateForObjects(from: workout))],
            sortDescriptors: [])
        for sample in try await descriptor.result(for: store) {
            ohkRead += sample.quantity.doubleValue(for: bpmUnit) > 0 ? 1 : 0
        }
    }
}

// MARK: Raw SQL baseline: one plain table, same batches, same reads.

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
let rawWrite = try await seconds {
    var written = 0
    for w in 0 ..< workoutCount {
        let start = origin.timeIntervalSinceReferenceDate + Double(w * (perWorkout + 600))
        var i = 0
        while i < perWorkout && written < sampleCount {
            let n = min(batchSize, perWorkout - i, sampleCount - written)
            let range = i ..< i + n
            try await raw.write { db in
                let statement = try db.cachedStatement(sql: "INSERT INTO heart_rate (uuid, workout, start, \"end\", bpm) VALUES (?, ?, ?, ?, ?)")
                for k in range {
                    try statement.execute(arguments: [UUID(), w, start + Double(k), start + Double(k), bpm(w + k)])
                }
            }
            i += n
            written += n
        }
    }
}
var rawRead = 0
let rawReadTime = try await seconds {
    for w in 0 ..< workoutCount {
        let rows = try await raw.read { db in
            try Row.fetchAll(db, sql: "SELECT uuid, start, \"end\", bpm FROM heart_rate WHERE workout = ?", arguments: [w])
        }
        for row in rows { rawRead += (row[3] as Double) > 0 ? 1 : 0 }
    }
}

func size(_ name: String) -> Int {
    ["", "-wal"].reduce(0) { total, suffix in
        total + ((try? FileManager.default.attributesOfItem(atPath: directory + "/" + name + suffix)[.size] as? Int) ?? 0)
    }
}

precondition(ohkRead == sampleCount && rawRead == sampleCount, "read back \(ohkRead) and \(rawRead) of \(sampleCount)")
print("samples: \(sampleCount) in \(workoutCount) workouts, batches of \(batchSize)")
print(String(format: "write  OpenHealthKit %7.2f s (%9.0f samples/s)   raw SQL %7.2f s (%9.0f samples/s)   ratio %.2f×",
             ohkWrite, Double(sampleCount) / ohkWrite, rawWrite, Double(sampleCount) / rawWrite, ohkWrite / rawWrite))
print(String(format: "read   OpenHealthKit %7.2f s (%9.0f samples/s)   raw SQL %7.2f s (%9.0f samples/s)   ratio %.2f×",
             ohkReadTime, Double(sampleCount) / ohkReadTime, rawReadTime, Double(sampleCount) / rawReadTime, ohkReadTime / rawReadTime))
print(String(format: "total  ratio %.2f×   (target: within 2×)", (ohkWrite + ohkReadTime) / (rawWrite + rawReadTime)))
print("file   OpenHealthKit \(size("health.sqlite") / sampleCount) bytes/sample   raw SQL \(size("raw.sqlite") / sampleCount) bytes/sample")
