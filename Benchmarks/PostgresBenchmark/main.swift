// PostgreSQL store benchmark, on a throwaway durable server of its own (fsync on; loopback; the tests' cluster
// harness). Three parts, each against a baseline in the same run:
//
// 1. Recorders: `recorders` people (default 20) record at once, each a live session with a strap, a second strap, a
//    power meter and a speed/cadence sensor at 4 Hz (the live path, as `LiveBenchmark` drives it), in real time for
//    `minutes` (default 10). Readings lost: each workout's stored samples against the same readings recorded into a
//    SQLite file. Delay from reading to row: each journaled sample's reading time against the time its journal row
//    reached the server (`live_journal.written`), p50/p99/max. Server CPU: the server's processes' CPU time over the
//    run's wall time.
// 2. Sync: `people` people's (default 10) year of rides (3 an hour long each week, heart rate every 5 s) made in
//    SQLite files and copied with `workout sync`'s code into the server: time and rows per second.
// 3. Daily averages: a daily-average heart-rate `HKStatisticsCollectionQuery` over each person's year on the server,
//    against the same query on their SQLite file and a plain `SELECT day, avg(value) … GROUP BY day` on the server,
//    median of 5 per person.
//
//     swift run -c release PostgresBenchmark [recorders] [minutes] [people] [weeks]
import FitnessSensors
import Foundation
import Logging
import OpenHealthKit
import PostgresNIO
import TestSupport
import WorkoutEngine

/// Prints a line at once (standard output may be a pipe).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
func trace(_ line: String) {
    if ProcessInfo.processInfo.environment["TRACE"] != nil { FileHandle.standardError.write(Data((line + "\n").utf8)) }
}
let numbers = CommandLine.arguments.dropFirst().compactMap { Double($0) }
let recorderCount = Int(numbers.first ?? 20)
let minutes = numbers.dropFirst().first ?? 10
let people = Int(numbers.dropFirst(2).first ?? 10)
let weeks = Int(numbers.dropFirst(3).first ?? 52)
let directory = NSTemporaryDirectory() + "ohk-pg-bench-" + UUID().uuidString
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

trace("launching")
let cluster = try await PostgresCluster.launchPrivate(durable: true)
trace("launched")
try await cluster.createRole("bench_owner", password: "pw", options: "CREATEROLE")
let database = try await cluster.createDatabase(owner: "bench_owner")
_ = try await HKHealthStore.open(databasePath: cluster.url(user: "bench_owner", password: "pw", database: database))
func person(_ i: Int) async throws -> String {
    try await cluster.createRole("bench_p\(i)", password: "pw", groups: ["openhealthkit_person"])
    return cluster.url(user: "bench_p\(i)", password: "pw", database: database)
}
func seconds(since start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

/// The CPU seconds the server has used: the postmaster's, its exited children's, and its live backends'.
func serverCPUSeconds() -> Double {
    guard let pidText = try? String(contentsOfFile: cluster.directory + "/data/postmaster.pid", encoding: .utf8),
        let postmaster = pidText.split(separator: "\n").first.map(String.init)
    else { return 0 }
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    func fields(_ pid: String) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }
    var total = 0.0
    // After the name: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
    if let own = fields(postmaster) { total += own[11 ... 14].compactMap { Double($0) }.reduce(0, +) }
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(entry) != nil {
        guard let f = fields(entry), f.count > 12, f[1] == postmaster else { continue }
        total += (Double(f[11]) ?? 0) + (Double(f[12]) ?? 0)
    }
    return total / ticks
}

// MARK: 1. Recorders

/// The readings of one tick for sensor `k` (as in LiveBenchmark).
func reading(_ k: Int, _ i: Int) -> SensorReadingValue {
    switch k {
    case 0, 1: .heartRate(HeartRateReading(bpm: 120 + (i + k) % 50, contact: .detected))
    case 2: .power(PowerReading(watts: 150 + i % 120))
    default:
        i % 2 == 0
            ? .cadence(CadenceReading(rpm: 85 + Double(i % 10)))
            : .speed(SpeedReading(metresPerSecond: 9 + Double(i % 5) / 10))
    }
}

let recordedTypes: Set<HKSampleType> = [
    .workoutType(), HKQuantityType(.heartRate), HKQuantityType(.cyclingPower), HKQuantityType(.cyclingCadence),
    HKQuantityType(.cyclingSpeed), HKQuantityType(.activeEnergyBurned), HKQuantityType(.distanceCycling),
]
final class Recorder: Sendable {
    let store: HKHealthStore
    let session: HKWorkoutSession
    let builder: HKLiveWorkoutBuilder
    let sensors: [ScriptedSensor]

    init(_ path: String) async throws {
        store = try await HKHealthStore.open(databasePath: path, clientIdentifier: "benchmark")
        try await store.requestAuthorization(
            toShare: recordedTypes, read: Set(recordedTypes.map { $0 as HKObjectType }))
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .cycling
        session = try HKWorkoutSession(healthStore: store, configuration: configuration)
        builder = session.associatedWorkoutBuilder()
        let source = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration)
        sensors = [
            ScriptedSensor(identifier: "bench:strap", name: "Strap", capabilities: .heartRateStrap),
            ScriptedSensor(identifier: "bench:strap2", name: "Strap 2", capabilities: .heartRateStrap),
            ScriptedSensor(identifier: "bench:meter", name: "Meter", capabilities: .powerMeter),
            ScriptedSensor(identifier: "bench:csc", name: "CSC", capabilities: [.cadence, .speed, .distance]),
        ]
        for sensor in sensors { source.attach(sensor) }
        builder.dataSource = source
    }

    func begin(at date: Date) async throws {
        session.startActivity(with: date)
        try await builder.beginCollection(at: date)
    }

    func tick(_ i: Int, at date: Date) {
        for (k, sensor) in sensors.enumerated() { sensor.send(reading(k, i), at: date) }
    }

    /// Ends and saves the workout; returns how many samples are stored with it.
    func finish(at date: Date) async throws -> Int {
        session.end()
        try await builder.endCollection(at: date)
        guard let workout = try await builder.finishWorkout() else { return -1 }
        var count = 0
        for type in recordedTypes where type != .workoutType() {
            count += try await HKSampleQueryDescriptor(
                predicates: [.sample(type: type, predicate: HKQuery.predicateForObjects(from: workout))],
                sortDescriptors: []
            ).result(for: store).count
        }
        return count
    }
}

let logger = Logger(label: "bench")
/// A plain connection to the benchmark's database.
func connect(_ user: String, _ password: String, id: Int) async throws -> PostgresConnection {
    let configuration = PostgresConnection.Configuration(
        host: "127.0.0.1", port: cluster.port, username: user, password: password, database: database, tls: .disable)
    return try await PostgresConnection.connect(
        on: PostgresClient.defaultEventLoopGroup.any(), configuration: configuration, id: id, logger: logger)
}
if recorderCount > 0 && minutes > 0 {
    let ticks = Int(minutes * 60 * 4)
    var recorders: [Recorder] = []
    for i in 0 ..< recorderCount { recorders.append(try await Recorder(try await person(i))) }
    trace("recorders made")
    let control = try await Recorder(directory + "/control.sqlite")
    say("1. \(recorderCount) recorders × 4 sensors at 4 Hz into one server for \(minutes) min (\(ticks) ticks each)")
    let begin = Date()
    for recorder in recorders + [control] { try await recorder.begin(at: begin) }
    let cpuBefore = serverCPUSeconds()
    let runStart = DispatchTime.now().uptimeNanoseconds
    for i in 0 ..< ticks {
        // Real time: tick i is due i / 4 s after the start.
        let due = runStart + UInt64(i) * 250_000_000
        let now = DispatchTime.now().uptimeNanoseconds
        if due > now { try await Task.sleep(nanoseconds: due - now) }
        let date = begin + Double(i) / 4
        for recorder in recorders { recorder.tick(i, at: date) }
        control.tick(i, at: date)
    }
    let runSeconds = seconds(since: runStart)
    for recorder in recorders { try await recorder.builder.waitForJournal() }
    let serverCPU = serverCPUSeconds() - cpuBefore
    // Reading-to-row delays, from the journal rows before the workouts are finished (which deletes them).
    var delays: [Double] = []
    let superuser = try await connect("ohk_admin", cluster.superuserPassword, id: 1)
    for try await (payload, written) in try await superuser.query(
        "SELECT payload, extract(epoch FROM written)::float8 FROM live_journal WHERE kind = 1", logger: logger
    ).decode((ByteBuffer, Double).self) {
        for record in try SampleBatchCodec.decode(Array(payload.readableBytesView)) {
            delays.append(written - (record.end + Date.timeIntervalBetween1970AndReferenceDate))
        }
    }
    try await superuser.close().get()
    let end = begin + Double(ticks) / 4
    let expected = try await control.finish(at: end)
    var lost = 0
    for recorder in recorders { lost += expected - (try await recorder.finish(at: end)) }
    say(
        String(
            format: """
                  readings sent        %d (%.0f a second in all, over %.1f s)
                  samples per workout  %d (the same readings into a SQLite file: %d)
                  readings lost        %d
                  reading → row        p50 %.0f ms, p99 %.0f ms, max %.0f ms (%d journaled samples)
                  server CPU           %.1f s over %.1f s: %.2f of a core (this machine has %d)

                """, recorderCount * ticks * 4, Double(recorderCount * ticks * 4) / runSeconds, runSeconds,
            expected - lost / max(recorderCount, 1), expected, lost, percentile(delays, 0.5) * 1000,
            percentile(delays, 0.99) * 1000, (delays.max() ?? 0) * 1000, delays.count, serverCPU, runSeconds,
            serverCPU / runSeconds, ProcessInfo.processInfo.activeProcessorCount))
} else {
    say("1. no recorders (recorders or minutes 0)\n")
}

// MARK: 2. A year of rides each, synced into the server

let dayOrigin = Date(timeIntervalSinceReferenceDate: 788_918_400)  // 2026-01-01 00:00 UTC
let rideLength = 3600.0
let everySeconds = 5.0
say("2. \(people) people × \(weeks) weeks of rides (3 a week, 1 h, heart rate every 5 s) synced SQLite → PostgreSQL")
var files: [String] = []
var urls: [String] = []
var rowsSynced = 0
var syncSeconds = 0.0
for p in 0 ..< people {
    let file = directory + "/person\(p).sqlite"
    let store = try await HKHealthStore.open(databasePath: file, clientIdentifier: "workout")
    try await store.requestAuthorization(
        toShare: [HKQuantityType(.heartRate), .workoutType()], read: [HKQuantityType(.heartRate), .workoutType()])
    for week in 0 ..< weeks {
        for ride in 0 ..< 3 {
            let start = dayOrigin + Double(week * 7 + ride * 2) * 86_400 + 17 * 3600 + Double(p * 60)
            let builder = HKWorkoutBuilder(
                healthStore: store,
                configuration: { () -> HKWorkoutConfiguration in
                    let configuration = HKWorkoutConfiguration()
                    configuration.activityType = .cycling
                    return configuration
                }(), device: nil)
            try await builder.beginCollection(at: start)
            try await builder.addSamples(
                stride(from: 0, to: rideLength, by: everySeconds).map { offset in
                    HKQuantitySample(
                        type: HKQuantityType(.heartRate),
                        quantity: HKQuantity(
                            unit: .count().unitDivided(by: .minute()),
                            doubleValue: 110 + 40 * sin(offset / 600 + Double(week + p))),
                        start: start + offset, end: start + offset)
                })
            try await builder.endCollection(at: start + rideLength)
            _ = try await builder.finishWorkout()
        }
    }
    files.append(file)
    let url = try await person(100 + p)
    urls.append(url)
    let destination = try await HKHealthStore.open(databasePath: url, clientIdentifier: "workout")
    let started = DispatchTime.now().uptimeNanoseconds
    let report = try await store.copyWorkouts(to: destination)
    syncSeconds += seconds(since: started)
    rowsSynced += report.samplesCopied + report.workoutsCopied
}
say(
    String(
        format: "  synced               %d rows in %.1f s: %.0f rows a second (%d workouts of %d samples each)\n",
        rowsSynced, syncSeconds, Double(rowsSynced) / syncSeconds, people * weeks * 3, Int(rideLength / everySeconds)))

// MARK: 3. Daily averages over each person's year

say("3. Daily average heart rate over a year, per person, median of 5")
func median(_ body: () async throws -> Void) async rethrows -> Double {
    var times: [Double] = []
    for _ in 0 ..< 5 {
        let started = DispatchTime.now().uptimeNanoseconds
        try await body()
        times.append(seconds(since: started))
    }
    return percentile(times, 0.5)
}
func dailyAverages(_ store: HKHealthStore) async throws -> Int {
    let collection = try await HKStatisticsCollectionQueryDescriptor(
        predicate: .quantitySample(type: HKQuantityType(.heartRate)), options: .discreteAverage,
        anchorDate: dayOrigin, intervalComponents: DateComponents(day: 1)
    ).result(for: store)
    var days = 0
    collection.enumerateStatistics(from: dayOrigin, to: dayOrigin + 366 * 86_400) { statistics, _ in
        if statistics.averageQuantity() != nil { days += 1 }
    }
    return days
}
var onServer: [Double] = []
var inFile: [Double] = []
var plain: [Double] = []
for p in 0 ..< people {
    let server = try await HKHealthStore.open(databasePath: urls[p], clientIdentifier: "workout")
    try await server.requestAuthorization(toShare: [], read: [HKQuantityType(.heartRate)])
    let file = try await HKHealthStore.open(databasePath: files[p], clientIdentifier: "workout")
    var days = (0, 0, 0)
    onServer.append(try await median { days.0 = try await dailyAverages(server) })
    inFile.append(try await median { days.1 = try await dailyAverages(file) })
    let connection = try await connect("bench_p\(100 + p)", "pw", id: 2 + p)
    plain.append(
        try await median {
            var rows = 0
            for try await _ in try await connection.query(
                """
                SELECT floor((start - \(dayOrigin.timeIntervalSinceReferenceDate)) / 86400) AS day, avg(value)
                FROM samples WHERE type_id = (SELECT id FROM types WHERE identifier = 'HKQuantityTypeIdentifierHeartRate')
                GROUP BY day
                """, logger: logger
            ) { rows += 1 }
            days.2 = rows
        })
    try await connection.close().get()
    precondition(days.0 == days.1 && days.1 == days.2, "days differ: \(days)")
}
let (server, file, raw) = (percentile(onServer, 0.5), percentile(inFile, 0.5), percentile(plain, 0.5))
say(
    String(
        format: """
              PostgreSQL, HKStatisticsCollectionQuery   %.1f ms
              SQLite file, the same query              %.1f ms   (PostgreSQL / SQLite %.2f×)
              PostgreSQL, plain GROUP BY day            %.1f ms   (HealthKit query / plain %.2f×)
              (medians over the \(people) people of each one's median of 5; \(weeks * 3 * Int(rideLength / everySeconds)) samples each)
            """, server * 1000, file * 1000, server / file, raw * 1000, server / raw))
try await cluster.stop()
