// Store benchmark: heart-rate samples associated with workouts, saved in batches of 100 (as a live builder
// saves them) and read back per workout with `predicateForObjects(from:)`; and, in the same run, the same work
// with raw SQL on a plain table. Prints both and the ratio.
//
// Then two writer processes on one store (an import while a recording runs): each saves heart-rate samples in
// batches of 100 at once with the other, against one such writer alone; rounds alternate (alone, together) so that
// the machine's other load falls on both. Prints each writer's throughput and its ratio to the lone writer's.
//
// Then a store of five years of condensed rides and the queries people and apps run on it, timed (FiveYears.swift).
//
//     swift run -c release StoreBenchmark [samples] [samples-per-workout] [samples-per-writer] [rides]
//
// Defaults: 1,000,000 samples, 3,600 per workout (one hour at 1 Hz), 100,000 per writer, 1,040 rides (five years of
// four a week). A part given 0 is skipped.
//
// The two sides run interleaved, batch by batch and workout by workout, so that whatever else the machine is
// doing slows both alike; each side's time is the sum of its own slices. Both create a UUID per sample.
import Foundation
import GRDB
import OpenHealthKit

if CommandLine.arguments.dropFirst().first == "--writer" {
    try await WriterProcess.main(Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let sampleCount = arguments.first ?? 1_000_000
let perWorkout = arguments.dropFirst().first ?? 3_600
let perWriter = arguments.dropFirst(2).first ?? 100_000
let rides = arguments.dropFirst(3).first ?? 1_040
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

if sampleCount > 0 {
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
        try db.execute(
            sql: """
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
                    batch.append(
                        HKQuantitySample(
                            type: heartRate, quantity: HKQuantity(unit: bpmUnit, doubleValue: bpm(w + k)),
                            start: t, end: t))
                }
                try await legacy.add(batch, to: workout, in: store)
            }
            let start = workout.startDate.timeIntervalSinceReferenceDate
            try await rawWrite.time {
                try await raw.write { db in
                    let statement = try db.cachedStatement(
                        sql: "INSERT INTO heart_rate (uuid, workout, start, \"end\", bpm) VALUES (?, ?, ?, ?, ?)")
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
            return try await descriptor.result(for: store).reduce(0) {
                $0 + ($1.quantity.doubleValue(for: bpmUnit) > 0 ? 1 : 0)
            }
        }
        rawCount += try await rawRead.time {
            let rows = try raw.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT uuid, start, \"end\", bpm FROM heart_rate WHERE workout = ?", arguments: [w])
            }
            return rows.reduce(0) { $0 + (($1[3] as Double) > 0 ? 1 : 0) }
        }
    }

    func size(_ name: String) -> Int {
        ["", "-wal"].reduce(0) { total, suffix in
            total
                + ((try? FileManager.default.attributesOfItem(atPath: directory + "/" + name + suffix)[.size] as? Int)
                    ?? 0)
        }
    }

    precondition(
        ohkCount == sampleCount && rawCount == sampleCount, "read back \(ohkCount) and \(rawCount) of \(sampleCount)")
    func line(_ name: String, _ ohk: Double, _ raw: Double) -> String {
        String(
            format: "%@  OpenHealthKit %7.2f s (%8.0f samples/s)   raw SQL %7.2f s (%8.0f samples/s)   ratio %.2f×",
            name, ohk, Double(sampleCount) / ohk, raw, Double(sampleCount) / raw, ohk / raw)
    }
    print("samples: \(sampleCount) in \(workoutCount) workouts, batches of \(batchSize)")
    print(line("write", ohkWrite.seconds, rawWrite.seconds))
    print(line("read ", ohkRead.seconds, rawRead.seconds))
    print(
        String(
            format: "total  ratio %.2f×   (target: within 2×)",
            (ohkWrite.seconds + ohkRead.seconds) / (rawWrite.seconds + rawRead.seconds)))
    print(
        "file   OpenHealthKit \(size("health.sqlite") / sampleCount) bytes/sample   raw SQL \(size("raw.sqlite") / sampleCount) bytes/sample"
    )
}

if perWriter > 0 {
    // Two writer processes against one alone, three rounds each, alternating.
    var alone: [Double] = []
    var together: [[Double]] = [[], []]
    for round in 0 ..< 3 {
        alone += try WriterProcess.race(count: 1, samples: perWriter, path: directory + "/alone-\(round).sqlite")
        let pair = try WriterProcess.race(count: 2, samples: perWriter, path: directory + "/together-\(round).sqlite")
        together[0].append(pair[0])
        together[1].append(pair[1])
    }
    let aloneRate = Double(3 * perWriter) / alone.reduce(0, +)
    print(String(format: "writers  one alone %8.0f samples/s", aloneRate))
    for (k, seconds) in together.enumerated() {
        let rate = Double(3 * perWriter) / seconds.reduce(0, +)
        print(
            String(
                format: "writers  %@ of two  %8.0f samples/s   ratio to one alone %.2f×", k == 0 ? "first " : "second",
                rate, rate / aloneRate))
    }
}

if rides > 0 { try await FiveYearStore.run(rides: rides, directory: directory) }

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

/// A writer process of the two-writer part: it opens the store, says `ready`, waits for `go` on its standard input,
/// saves its samples in batches of 100 and prints the seconds that took.
enum WriterProcess {
    static func main(_ arguments: [String]) async throws {
        guard arguments.count == 3, let count = Int(arguments[1]) else { fatalError("--writer PATH SAMPLES CLIENT") }
        let store = try HKHealthStore(databasePath: arguments[0], clientIdentifier: arguments[2])
        let heartRate = HKQuantityType(.heartRate)
        try await store.requestAuthorization(toShare: [heartRate], read: [heartRate])
        let unit = HKUnit.count().unitDivided(by: .minute())
        let origin = Date(timeIntervalSinceReferenceDate: 700_000_000)
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        _ = readLine()
        let start = DispatchTime.now().uptimeNanoseconds
        for first in stride(from: 0, to: count, by: 100) {
            try await store.save(
                (first ..< min(first + 100, count)).map { k in
                    HKQuantitySample(
                        type: heartRate, quantity: HKQuantity(unit: unit, doubleValue: bpm(k)),
                        start: origin + Double(k), end: origin + Double(k))
                })
        }
        FileHandle.standardOutput.write(Data("\(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)\n".utf8))
    }

    /// Starts `count` writers on one store, lets them go together, and returns each one's seconds.
    static func race(count: Int, samples: Int, path: String) throws -> [Double] {
        let children = try (0 ..< count).map { k -> (Process, Pipe, Pipe) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["--writer", path, "\(samples)", "writer\(k)"]
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            return (process, input, output)
        }
        var lines = children.map { LineReader($0.2.fileHandleForReading) }
        for k in lines.indices { precondition(lines[k].next() == "ready", "writer \(k) did not start") }
        for child in children { child.1.fileHandleForWriting.write(Data("go\n".utf8)) }
        let seconds = lines.indices.map { k in Double(lines[k].next() ?? "") }
        for child in children { child.0.waitUntilExit() }
        precondition(
            children.allSatisfy { $0.0.terminationStatus == 0 } && seconds.allSatisfy { $0 != nil },
            "a writer failed: both must succeed (WAL and the busy timeout)")
        return seconds.map { $0! }
    }

    /// Lines of a pipe.
    struct LineReader {
        let handle: FileHandle
        var buffer = Data()
        init(_ handle: FileHandle) { self.handle = handle }

        mutating func next() -> String? {
            while true {
                if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[buffer.startIndex ..< end], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex ... end)
                    return line
                }
                let more = handle.availableData
                if more.isEmpty { return nil }
                buffer.append(more)
            }
        }
    }
}
