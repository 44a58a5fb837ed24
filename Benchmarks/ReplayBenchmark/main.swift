// Replay benchmark: instant replay of a generated 4-sensor fixture, end to end (decoding, data source, builder,
// journal, saved workout), against a baseline in the same run that only reads the fixture lines and decodes the
// payloads into readings, and against the storage floor: the time raw SQL takes to insert as many rows as the replay
// saved. Peak resident memory (taken when the workout is saved) is compared between a 1-hour and a 10-hour file.
//
//     swift run -c release ReplayBenchmark [hours]
//     swift run -c release ReplayBenchmark treadmill     a 60-minute treadmill run (FTMS Treadmill Data at 1 Hz)
import FitnessSensors
import FixtureSynthesis
import Foundation
import GRDB
import GRDBSQLite
import OpenHealthKit

let hours = CommandLine.arguments.dropFirst().compactMap { Double($0) }.first ?? 10
let treadmillOnly = CommandLine.arguments.dropFirst().contains("treadmill")
let directory = NSTemporaryDirectory() + "ohk-replay-bench-" + UUID().uuidString
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

/// Peak resident memory so far (VmHWM), in MB.
func peakMegabytes() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kb = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
    else { return 0 }
    return kb / 1024
}

/// Resets the peak (writing 5 to clear_refs resets VmHWM on Linux).
func resetPeak() { try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8) }

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Reads and decodes every line; returns the readings the payloads yield.
func baseline(_ path: String) throws -> Int {
    let reader = try FixtureReader(path: path)
    var interpreters = Array(repeating: SensorReadingInterpreter(), count: reader.header.sensors.count)
    var readings = 0
    while let event = try reader.next() {
        guard case let .notification(sensor, characteristic, bytes) = event.kind,
            let payload = try? SensorPayload.decode(characteristic: characteristic, bytes: bytes)
        else { continue }
        readings += interpreters[sensor].readings(from: payload, at: event.seconds).count
    }
    return readings
}

/// Replays a fixture instantly into a fresh store file; returns readings, seconds, the peak resident memory when
/// the workout was saved (before anything here reads the store back), and the sample rows saved.
func replay(_ path: String) async throws -> (readings: Int, seconds: Double, peak: Double, rows: Int) {
    let storePath = directory + "/\(UUID().uuidString).sqlite"
    let store = try HKHealthStore(databasePath: storePath, clientIdentifier: "benchmark")
    let types = HKLiveWorkoutDataSource.collectableTypes
    try await store.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
    let clock = ContinuousClock()
    let start = clock.now
    let run = try WorkoutReplay(fixtureAt: path, healthStore: store)
    _ = try await run.run(pace: .instant)
    let elapsed = seconds(start.duration(to: clock.now))
    let peak = peakMegabytes()
    let rows = try await DatabaseQueue(path: storePath).read { db in
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM samples WHERE workout_id IS NOT NULL") ?? 0
    }
    return (run.readings, elapsed, peak, rows)
}

/// The storage floor: the same number of rows inserted with raw SQL into a plain table (a UUID, type, start, end,
/// value and workout per row; indexed by type and start, and by workout) in one transaction, 64 rows a statement.
func sqliteFloor(rows: Int) throws -> Double {
    let database = try DatabaseQueue(path: directory + "/floor-\(UUID().uuidString).sqlite")
    try database.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA journal_mode = WAL")
        try db.execute(
            sql: """
                CREATE TABLE rows (id INTEGER PRIMARY KEY, uuid BLOB NOT NULL, type INTEGER NOT NULL, start REAL NOT NULL,
                                   "end" REAL NOT NULL, value REAL NOT NULL, workout INTEGER NOT NULL);
                CREATE INDEX rows_by_type_start ON rows(type, start);
                CREATE INDEX rows_by_workout ON rows(workout);
                """)
    }
    let perStatement = 64
    let values = Array(repeating: "(?, ?, ?, ?, ?, ?)", count: perStatement).joined(separator: ", ")
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    var random: UInt64 = 0x9E37_79B9_7F4A_7C15
    let clock = ContinuousClock()
    let start = clock.now
    try database.write { db in
        // Bound with SQLite's own calls and random bytes from a xorshift: only SQLite's work is measured.
        let insert = try db.makeStatement(
            sql: "INSERT INTO rows (uuid, type, start, \"end\", value, workout) VALUES \(values)")
        let handle = insert.sqliteStatement
        for first in stride(from: 0, to: rows / perStatement * perStatement, by: perStatement) {
            sqlite3_reset(handle)
            for index in 0 ..< perStatement {
                let row = first + index
                let base = Int32(index * 6)
                var bytes = (UInt64(0), UInt64(0))
                for part in 0 ..< 2 {
                    random ^= random << 13
                    random ^= random >> 7
                    random ^= random << 17
                    if part == 0 { bytes.0 = random } else { bytes.1 = random }
                }
                _ = withUnsafeBytes(of: bytes) { sqlite3_bind_blob(handle, base + 1, $0.baseAddress, 16, transient) }
                let time = 750_000_000 + Double(row) / 8
                sqlite3_bind_int64(handle, base + 2, Int64(row % 6))
                sqlite3_bind_double(handle, base + 3, time)
                sqlite3_bind_double(handle, base + 4, time)
                sqlite3_bind_double(handle, base + 5, 120 + Double(row % 50))
                sqlite3_bind_int64(handle, base + 6, 1)
            }
            guard sqlite3_step(handle) == SQLITE_DONE else { throw DatabaseError(message: "floor insert failed") }
        }
    }
    return seconds(start.duration(to: clock.now))
}

if treadmillOnly {
    // A 60-minute treadmill run through the live path, against reading and decoding its lines in the same run.
    let path = directory + "/treadmill-60min.jsonl"
    let notifications = try MachineFixture.treadmill.generate(to: path, minutes: 60)
    let clock = ContinuousClock()
    let began = clock.now
    let decoded = try baseline(path)
    let baselineSeconds = seconds(began.duration(to: clock.now))
    resetPeak()
    let before = peakMegabytes()
    let (readings, elapsed, peak, rows) = try await replay(path)
    print(
        "Replay benchmark: a 60-minute treadmill run (Treadmill Data with incline at 1 Hz), \(notifications) notifications"
    )
    print(
        String(
            format: "  baseline (read + decode lines)   %9.0f readings/s  (%d readings in %.3f s)",
            Double(decoded) / baselineSeconds, decoded, baselineSeconds))
    print(
        String(
            format:
                "  replay, workout saved            %9.0f readings/s  (%d readings in %.3f s; %d sample rows saved)",
            Double(readings) / elapsed, readings, elapsed, rows))
    print(String(format: "  replay / baseline                %9.1f x slower", elapsed / baselineSeconds))
    print(String(format: "  peak resident memory             %9.1f MB (%.1f MB before the replay)", peak, before))
    exit(0)
}

print(
    "Replay benchmark: instant replay, 4 sensors (2 straps at 1 Hz, a power meter at 4 Hz, a speed/cadence sensor at 2 Hz)"
)
var results: [(Double, Double)] = []
for length in [1.0, hours] {
    let path = directory + "/bench-\(length)h.jsonl"
    let notifications = try FixtureSynthesizer.generate(.benchmark, hours: length, to: path)
    let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    let clock = ContinuousClock()
    let began = clock.now
    let decoded = try baseline(path)
    let baselineSeconds = seconds(began.duration(to: clock.now))
    resetPeak()
    let before = peakMegabytes()
    let (readings, elapsed, peak, rows) = try await replay(path)
    let floor = try sqliteFloor(rows: rows)
    results.append((length, peak))
    print(
        String(
            format: "\n%.0f h fixture: %d notifications, %.1f MB on disk", length, notifications,
            Double(size) / 1_048_576))
    print(
        String(
            format: "  baseline (read + decode lines)   %9.0f readings/s  (%d readings in %.2f s)",
            Double(decoded) / baselineSeconds, decoded, baselineSeconds))
    print(
        String(
            format:
                "  replay, workout saved            %9.0f readings/s  (%d readings in %.2f s; %d sample rows saved)",
            Double(readings) / elapsed, readings, elapsed, rows))
    print(String(format: "  replay / baseline                %9.1f x slower", elapsed / baselineSeconds))
    print(
        String(
            format:
                "  SQLite floor: %d raw rows        %9.2f s  (decode + floor = %.2f s: a ceiling of %.0f readings/s; replay / ceiling %.2f x)",
            rows, floor, baselineSeconds + floor, Double(readings) / (baselineSeconds + floor),
            elapsed / (baselineSeconds + floor)))
    print(String(format: "  peak resident memory             %9.1f MB (%.1f MB before the replay)", peak, before))
}
if results.count == 2 {
    print(String(format: "\nPeak memory, %.0f h vs 1 h: %.1f MB vs %.1f MB", results[1].0, results[1].1, results[0].1))
}
