// Live pipeline benchmark: readings from four sensors through HKLiveWorkoutDataSource into HKLiveWorkoutBuilder
// (statistics, events, journal), in one process, on a store file.
//
//     swift run -c release LiveBenchmark [hours]
//
// 1. Throughput: a simulated session of `hours` (default 24) with a strap, a second strap, a power meter and a
//    speed/cadence sensor at 4 Hz each, sent as fast as the pipeline takes them. Baseline in the same run: the same
//    readings delivered to a handler that only counts them (the cost of making and sending readings). The sender
//    awaits the builder's back-pressure once a tick (`waitForDemand()`), as a replay does.
// 2. Resident memory at 1 h and at the end of the session.
// 3. Latency from a reading being sent to the builder's delegate hearing of it, p50 and p99 over 5,000 readings sent
//    2 ms apart. (Readings closer than 1 ms to the previous delivery are a flood: the builder spaces its deliveries
//    1 ms apart then, so a back-to-back loop would measure that spacing, not the pipeline.) Baseline in the same
//    run, alternating with the readings: a bare hop to an idle dispatch queue, measured the same way.
import FitnessSensors
import Foundation
import OpenHealthKit

let hours = CommandLine.arguments.dropFirst().compactMap { Double($0) }.first ?? 24
let rate = 4.0
let origin = Date(timeIntervalSinceReferenceDate: 750_000_000)
let directory = NSTemporaryDirectory() + "ohk-live-bench-" + UUID().uuidString
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

func residentMegabytes() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
        let pages = text.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
    else { return 0 }
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

final class Wall: @unchecked Sendable {
    var now = origin
}

final class Counter: HKLiveWorkoutBuilderDelegate, @unchecked Sendable {
    let signal = DispatchSemaphore(value: 0)
    var waiting = false
    /// When the delegate was last called (uptime nanoseconds): the latency ends here, not when the waiting thread
    /// wakes up.
    var calledAt: UInt64 = 0
    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {
        if waiting {
            calledAt = DispatchTime.now().uptimeNanoseconds
            signal.signal()
        }
    }
    func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {}
}

/// The readings of one tick for sensor `k` at time `t`.
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

let store = try HKHealthStore(databasePath: directory + "/live.sqlite", clientIdentifier: "benchmark")
let wall = Wall()
store.wallClock = { wall.now }
let types: Set<HKSampleType> = [
    .workoutType(), HKQuantityType(.heartRate), HKQuantityType(.cyclingPower), HKQuantityType(.cyclingCadence),
    HKQuantityType(.cyclingSpeed), HKQuantityType(.activeEnergyBurned), HKQuantityType(.distanceCycling),
]
try await store.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
let configuration = HKWorkoutConfiguration()
configuration.activityType = .cycling
let session = try HKWorkoutSession(healthStore: store, configuration: configuration)
let builder = session.associatedWorkoutBuilder()
let dataSource = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration)
let sensors = [
    ScriptedSensor(identifier: "bench:strap", name: "Strap", capabilities: .heartRateStrap),
    ScriptedSensor(identifier: "bench:strap2", name: "Strap 2", capabilities: .heartRateStrap),
    ScriptedSensor(identifier: "bench:meter", name: "Meter", capabilities: .powerMeter),
    ScriptedSensor(identifier: "bench:csc", name: "CSC", capabilities: [.cadence, .speed, .distance]),
]
for sensor in sensors { dataSource.attach(sensor) }
builder.dataSource = dataSource
let counter = Counter()
if ProcessInfo.processInfo.environment["NO_DELEGATE"] == nil { builder.delegate = counter }
session.startActivity(with: origin)
try await builder.beginCollection(at: origin)

// 1 and 2: the simulated session, as fast as it goes; the journal flushes on the store's monotonic clock (the
// machine's), every half second.
store.wallClock = { Date() }
let ticks = Int(hours * 3600 * rate)
var memoryAtOneHour = 0.0
var memoryEverySixHours: [Double] = []
let memoryAtStart = residentMegabytes()
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(
        usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
let cpuStart = cpuSeconds()
let start = DispatchTime.now().uptimeNanoseconds
for i in 0 ..< ticks {
    let time = origin + Double(i) / rate
    for (k, sensor) in sensors.enumerated() { sensor.send(reading(k, i), at: time) }
    // The journal's back-pressure: suspended here, never blocked in a send, when the store falls behind.
    await sensors[0].waitForDemand()
    if i == Int(3600 * rate) { memoryAtOneHour = residentMegabytes() }
    if i > 0, i % Int(6 * 3600 * rate) == 0 { memoryEverySixHours.append(residentMegabytes()) }
}
let pipelineSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
let pipelineCPU = cpuSeconds() - cpuStart
if ProcessInfo.processInfo.environment["PIPELINE_ONLY"] != nil {
    // For profiling the pipeline alone: `PIPELINE_ONLY=1 perf record -g .build/release/LiveBenchmark`.
    print(
        String(
            format: "pipeline %.0f readings/s (%.2f s wall, %.2f s CPU)",
            Double(ticks * sensors.count) / pipelineSeconds,
            pipelineSeconds, pipelineCPU))
    exit(0)
}
let memoryAtEnd = residentMegabytes()
let readings = ticks * sensors.count

// Baseline: the same readings to a handler that counts.
let baselineSensors = (0 ..< 4).map {
    ScriptedSensor(identifier: "base:\($0)", name: "Baseline", capabilities: .heartRateStrap)
}
final class Tally: @unchecked Sendable { var count = 0 }
let tally = Tally()
for sensor in baselineSensors { sensor.start { _ in tally.count += 1 } }
let baselineStart = DispatchTime.now().uptimeNanoseconds
for i in 0 ..< ticks {
    let time = origin + Double(i) / rate
    wall.now = time
    for (k, sensor) in baselineSensors.enumerated() { sensor.send(reading(k, i), at: time) }
}
let baselineSeconds = Double(DispatchTime.now().uptimeNanoseconds - baselineStart) / 1e9
precondition(tally.count == readings)

// 3: latency, one reading at a time, and its baseline in the same conditions: a bare hop to a serial dispatch queue
// that has been idle for 2 ms (the wake-up of a sleeping thread, which every reading alone pays before a delegate
// hears of it). The two alternate, reading then hop, so that a noisy neighbour on this shared machine weighs on both
// alike rather than on whichever ran during its burst.
store.wallClock = { wall.now }
await builder.waitForDelegateCalls()
counter.waiting = true
let hopQueue = DispatchQueue(label: "benchmark.hop")
final class HopTime: @unchecked Sendable { var calledAt: UInt64 = 0 }
let hopTime = HopTime()
let hopSignal = DispatchSemaphore(value: 0)
/// Waits until 2 ms after `sent`: readings 2 ms apart (500 a second from one strap, over a hundred times a real
/// one's rate) are each alone, as the builder delivers a reading that arrives a millisecond or more after the last
/// delivery at once.
func pause(after sent: UInt64) {
    let next = sent + 2_000_000
    while DispatchTime.now().uptimeNanoseconds < next { usleep(100) }
}
/// One round of 5,000 readings, each followed by a hop: their latencies in µs, in the order sent.
func latencyRound(_ round: Int) -> (readings: [Double], hops: [Double]) {
    var latencies: [Double] = []
    var hops: [Double] = []
    for i in 0 ..< 5_000 {
        let index = round * 5_000 + i
        let time = origin + Double(ticks + index) / rate
        wall.now = time
        var sent = DispatchTime.now().uptimeNanoseconds
        sensors[0].send(reading(0, index), at: time)
        counter.signal.wait()
        latencies.append(Double(counter.calledAt - sent) / 1000)
        pause(after: sent)

        sent = DispatchTime.now().uptimeNanoseconds
        hopQueue.async {
            hopTime.calledAt = DispatchTime.now().uptimeNanoseconds
            hopSignal.signal()
        }
        hopSignal.wait()
        hops.append(Double(hopTime.calledAt - sent) / 1000)
        pause(after: sent)
    }
    return (latencies, hops)
}
func medianRatio(_ round: (readings: [Double], hops: [Double])) -> Double {
    round.readings.sorted()[round.readings.count / 2] / round.hops.sorted()[round.hops.count / 2]
}
var (latencies, hops) = latencyRound(0)
// LATENCY_CHECK=LIMIT (CI): fails when the p50 ratio to the bare hop is above LIMIT in three rounds in a row. One slow
// round is the machine's (a neighbour's burst on a shared VM); three are the pipeline's.
var checkFailed = false
if let limit = ProcessInfo.processInfo.environment["LATENCY_CHECK"].flatMap(Double.init) {
    var ratios = [medianRatio((latencies, hops))]
    while ratios.last! > limit, ratios.count < 3 {
        (latencies, hops) = latencyRound(ratios.count)
        ratios.append(medianRatio((latencies, hops)))
    }
    checkFailed = ratios.last! > limit
    print(
        "check: reading → delegate p50 against a bare hop's, by round: "
            + ratios.map { String(format: "%.2f×", $0) }.joined(separator: ", ")
            + String(format: " (limit %.1f× in three rounds in a row): ", limit) + (checkFailed ? "FAILED" : "passed"))
}
// How much of the tail is the machine's: readings and hops alternate, so a reading in the slowest 3 % whose hop
// just before or after is also in the hops' slowest 3 % fell in a slow period of the machine (on a shared virtual
// machine, a neighbour's burst), not in a slow pass of the pipeline. Independent, about 6 % would be.
let (readingCut, hopCut) = (latencies.sorted()[latencies.count * 97 / 100], hops.sorted()[hops.count * 97 / 100])
let slowReadings = latencies.indices.filter { latencies[$0] >= readingCut }
let inSlowPeriods = slowReadings.filter { i in hops[i] >= hopCut || (i > 0 && hops[i - 1] >= hopCut) }
let slowPeriodRatios = inSlowPeriods.map { i in latencies[i] / max(hops[i], i > 0 ? hops[i - 1] : 0) }.sorted()
latencies.sort()
hops.sort()

session.end()
try await builder.endCollection(at: wall.now + 1)
let finishStart = DispatchTime.now().uptimeNanoseconds
let workout = try await builder.finishWorkout()
let finishSeconds = Double(DispatchTime.now().uptimeNanoseconds - finishStart) / 1e9
let average =
    workout?.statistics(for: HKQuantityType(.heartRate))?.averageQuantity()?.doubleValue(for: HKUnit(from: "count/min"))
    ?? 0

print(String(format: "session: %.0f h, 4 sensors at %.0f Hz: %d readings", hours, rate, readings))
print(
    String(
        format:
            "throughput  pipeline %10.0f readings/s   baseline (send only) %10.0f readings/s   ratio %.1f×   (target ≥ 1,000,000/s)",
        Double(readings) / pipelineSeconds, Double(readings) / baselineSeconds, pipelineSeconds / baselineSeconds))
print(String(format: "            (%.2f s wall, %.2f s CPU on all threads)", pipelineSeconds, pipelineCPU))
let (p50, p99) = (latencies[latencies.count / 2], latencies[latencies.count * 99 / 100])
let (hop50, hop99) = (hops[hops.count / 2], hops[hops.count * 99 / 100])
print(String(format: "latency     reading → delegate  p50 %.1f µs   p99 %.1f µs", p50, p99))
print(
    String(format: "            baseline: bare hop to an idle dispatch queue  p50 %.1f µs   p99 %.1f µs", hop50, hop99))
let (p95, hop95) = (latencies[latencies.count * 95 / 100], hops[hops.count * 95 / 100])
print(
    String(
        format: "            ratio to the bare hop  p50 %.2f×   p95 %.2f×   p99 %.2f×   (target p99 ≤ 1.5×)",
        p50 / hop50, p95 / hop95,
        p99 / hop99))
print(
    String(
        format:
            "            slowest 3 %% of readings with a hop beside them in the hops' slowest 3 %%: %.0f %%   (independent: 6 %%)",
        100 * Double(inSlowPeriods.count) / Double(max(1, slowReadings.count))))
if !slowPeriodRatios.isEmpty {
    print(
        String(
            format: "            there, a reading took %.2f× the slower of its two hops (median)",
            slowPeriodRatios[slowPeriodRatios.count / 2]))
}
print(
    String(
        format: "memory      RSS at start %.1f MB, at 1 h %.1f MB, at %.0f h %.1f MB", memoryAtStart, memoryAtOneHour,
        hours, memoryAtEnd)
        + (memoryEverySixHours.isEmpty
            ? ""
            : "   (every 6 h: " + memoryEverySixHours.map { String(format: "%.1f", $0) }.joined(separator: ", ")
                + " MB)"))
print(
    String(
        format: "finish      saving the workout and its samples: %.2f s; average heart rate %.1f bpm", finishSeconds,
        average))
if checkFailed { exit(1) }
