// Replay benchmark: instant replay of a generated 4-sensor fixture, end to end (decoding, data source, builder,
// journal, saved workout), against a baseline in the same run that only reads the fixture lines and decodes the
// payloads into readings. Resident memory is compared between a 1-hour and a 10-hour file.
//
//     swift run -c release ReplayBenchmark [hours]
import FitnessSensors
import FixtureSynthesis
import Foundation
import OpenHealthKit

let hours = CommandLine.arguments.dropFirst().compactMap { Double($0) }.first ?? 10
let directory = NSTemporaryDirectory() + "ohk-replay-bench-" + UUID().uuidString
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

/// Peak resident memory so far (VmHWM), in MB.
func peakMegabytes() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kb = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) else { return 0 }
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
              let payload = try? SensorPayload.decode(characteristic: characteristic, bytes: bytes) else { continue }
        readings += interpreters[sensor].readings(from: payload, at: event.seconds).count
    }
    return readings
}

/// Replays a fixture instantly into a fresh store file; returns readings and seconds.
func replay(_ path: String) async throws -> (readings: Int, seconds: Double, samples: Int) {
    let store = try HKHealthStore(databasePath: directory + "/\(UUID().uuidString).sqlite", clientIdentifier: "benchmark")
    let types: Set<HKSampleType> = [.workoutType(), HKQuantityType(.heartRate), HKQuantityType(.cyclingPower),
                                    HKQuantityType(.cyclingCadence), HKQuantityType(.cyclingSpeed),
                                    HKQuantityType(.activeEnergyBurned), HKQuantityType(.distanceCycling)]
    try await store.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
    let clock = ContinuousClock()
    let start = clock.now
    let run = try WorkoutReplay(fixtureAt: path, healthStore: store)
    let workout = try await run.run(pace: .instant)
    let elapsed = seconds(start.duration(to: clock.now))
    let count = try await HKSampleQueryDescriptor(
        predicates: [.quantitySample(type: HKQuantityType(.heartRate), predicate: HKQuery.predicateForObjects(from: workout))],
        sortDescriptors: []).result(for: store).count
    return (run.readings, elapsed, count)
}

print("Replay benchmark: instant replay, 4 sensors (2 straps at 1 Hz, a power meter at 4 Hz, a speed/cadence sensor at 2 Hz)")
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
    let (readings, elapsed, heartSamples) = try await replay(path)
    let peak = peakMegabytes()
    results.append((length, peak))
    print(String(format: "\n%.0f h fixture: %d notifications, %.1f MB on disk", length, notifications, Double(size) / 1_048_576))
    print(String(format: "  baseline (read + decode lines)   %9.0f readings/s  (%d readings in %.2f s)", Double(decoded) / baselineSeconds, decoded, baselineSeconds))
    print(String(format: "  replay, workout saved            %9.0f readings/s  (%d readings in %.2f s; %d heart-rate samples saved)", Double(readings) / elapsed, readings, elapsed, heartSamples))
    print(String(format: "  replay / baseline                %9.1f x slower", elapsed / baselineSeconds))
    print(String(format: "  peak resident memory             %9.1f MB (%.1f MB before the replay)", peak, before))
}
if results.count == 2 {
    print(String(format: "\nPeak memory, %.0f h vs 1 h: %.1f MB vs %.1f MB", results[1].0, results[1].1, results[0].1))
}
