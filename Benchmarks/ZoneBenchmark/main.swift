// Zone engine benchmark.
//
//     swift run -c release ZoneBenchmark [samples]
//
// 1. Cost per sample of `ZoneAccumulator.add` (classify, close the previous sample's coverage, keep the running
//    totals), over `samples` (default 2,000,000) 1 Hz heart-rate readings from a seeded random walk, with pauses.
//    Baseline in the same run: a plain loop reading the same times and values and summing them.
// 2. A 10-hour 1 Hz workout end to end in the engine: 36,000 readings, a 5-minute pause each hour learned as it
//    happens, a live `durations(at:)` read every second, then the exact groups of the workout and of its ten
//    one-hour activities, as `finishWorkout` computes them.
// 3. The same workout through `HKWorkoutBuilder` (in-memory store): addSamples in batches of 100, events,
//    activities, finishWorkout. Zone time is a small part of it.
// 4. Memory over a day: 24 hours at 4 Hz from one heart-rate sensor (345,600 readings), the zone changing every
//    20–40 s, then flipping on every reading: the engine's stored entries (exact-window samples, runs, blocks) and
//    their bytes, at the end and at most, against keeping every sample.
// Each timing is the median of 5 runs.
import Foundation
import OpenHealthKit

let count = CommandLine.arguments.dropFirst().compactMap { Int($0) }.first ?? 2_000_000
let boundaries = [136.8, 147.6, 158.4, 169.2]

/// A seeded random walk in whole bpm between 90 and 190, with occasional gaps (dropouts).
func recording(_ n: Int) -> (times: [Double], values: [Double]) {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    var times = [Double]()
    var values = [Double]()
    times.reserveCapacity(n)
    values.reserveCapacity(n)
    var time = 0.0
    var bpm = 140.0
    for _ in 0 ..< n {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let step = Double(Int((state >> 58) % 7) - 3)  // −3 … +3
        bpm = min(190, max(90, bpm + step))
        time += (state >> 40) & 0x3FF == 0 ? 30 : 1  // a 30 s dropout now and then
        times.append(time)
        values.append(bpm)
    }
    return (times, values)
}

func median(_ runs: Int = 5, _ body: () -> Double) -> Double {
    (0 ..< runs).map { _ in body() }.sorted()[runs / 2]
}

func seconds(_ body: () -> Void) -> Double {
    let start = ContinuousClock.now
    body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
}

/// Keeps results alive, so the optimizer cannot drop the loops that make them.
nonisolated(unsafe) var sink: [Any] = []
@inline(never) func blackhole<T>(_ value: T) { sink.append(value) }

let data = recording(count)
let pauses = stride(from: 3600.0, to: data.times.last!, by: 3600).map { ZonePause(start: $0, end: $0 + 300) }

// 1. Per sample.
let baseline = median {
    seconds {
        var sum = 0.0
        for index in 0 ..< count { sum += data.times[index] + data.values[index] }
        blackhole(sum)
    }
}
let engine = median {
    seconds {
        var accumulator = ZoneAccumulator(boundaries: boundaries)
        accumulator.setPauses(pauses)
        for index in 0 ..< count {
            accumulator.add(start: data.times[index], end: data.times[index], value: data.values[index])
        }
        blackhole(accumulator.durations(at: data.times[count - 1] + 1))
    }
}
let everySample = median {
    seconds {
        var accumulator = ZoneAccumulator(boundaries: boundaries, exactWindow: .max)
        accumulator.setPauses(pauses)
        for index in 0 ..< count {
            accumulator.add(start: data.times[index], end: data.times[index], value: data.values[index])
        }
        blackhole(accumulator.durations(at: data.times[count - 1] + 1))
    }
}
print("Zone engine, \(count) samples (1 Hz heart rate, 5 zones, a pause an hour), median of 5")
print(String(format: "  ZoneAccumulator.add           %6.1f ns/sample", engine / Double(count) * 1e9))
print(
    String(
        format: "  the same, every sample kept   %6.1f ns/sample (exactWindow: .max, no folding)",
        everySample / Double(count) * 1e9))
print(String(format: "  baseline: summing the values  %6.1f ns/sample", baseline / Double(count) * 1e9))

// 2. A 10-hour workout, end to end in the engine.
let hours = 10
let workoutSamples = hours * 3600
let tenHours = median {
    seconds {
        var accumulator = ZoneAccumulator(boundaries: boundaries)
        var known: [ZonePause] = []
        var live = 0.0
        for second in 0 ..< workoutSamples {
            let time = Double(second)
            if second % 3600 == 0, second > 0 {
                known.append(ZonePause(start: time, end: time + 300))
                accumulator.setPauses(known)
            }
            accumulator.add(start: time, end: time, value: data.values[second % count])
            live += accumulator.durations(at: time)[2]
        }
        var groups = [accumulator.durations(from: 0, to: Double(workoutSamples))]
        for hour in 0 ..< hours {
            groups.append(accumulator.durations(from: Double(hour * 3600), to: Double((hour + 1) * 3600)))
        }
        blackhole((live, groups))
    }
}
let tenHoursBaseline = median {
    seconds {
        var sum = 0.0
        for second in 0 ..< workoutSamples { sum += Double(second) + data.values[second % count] }
        blackhole(sum)
    }
}
print("10-hour 1 Hz workout (36,000 samples, 10 pauses, 10 activities), zones end to end, median of 5")
print(String(format: "  engine: samples, live reads, workout and activity groups  %7.2f ms", tenHours * 1e3))
print(String(format: "  baseline: summing the values                              %7.2f ms", tenHoursBaseline * 1e3))

// 3. The same workout through HKWorkoutBuilder.
let origin = Date(timeIntervalSinceReferenceDate: 800_000_000)
final class Result: @unchecked Sendable {
    var seconds = 0.0
    var durations: [Double] = []
}
let builderRuns = Result()
let done = DispatchSemaphore(value: 0)
Task.detached {
    var runs: [Double] = []
    for _ in 0 ..< 5 {
        let store = HKHealthStore.inMemory(clientIdentifier: "benchmark")
        let heart = HKQuantityType(.heartRate)
        try await store.requestAuthorization(toShare: [.workoutType(), heart], read: [])
        let bpm = HKUnit(from: "count/min")
        let samples = (0 ..< workoutSamples).map { second in
            HKQuantitySample(
                type: heart, quantity: HKQuantity(unit: bpm, doubleValue: data.values[second % count]),
                start: origin + Double(second), end: origin + Double(second))
        }
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .running
        let start = ContinuousClock.now
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: nil)
        try await builder.beginCollection(at: origin)
        for hour in 0 ..< hours {
            try await builder.addWorkoutActivity(
                HKWorkoutActivity(
                    workoutConfiguration: configuration, start: origin + Double(hour * 3600),
                    end: origin + Double((hour + 1) * 3600), metadata: nil))
        }
        for batch in stride(from: 0, to: samples.count, by: 100) {
            try await builder.addSamples(Array(samples[batch ..< min(samples.count, batch + 100)]))
        }
        var events: [HKWorkoutEvent] = []
        for hour in 1 ..< hours {
            let pause = origin + Double(hour * 3600)
            events.append(
                HKWorkoutEvent(type: .pause, dateInterval: DateInterval(start: pause, duration: 0), metadata: nil))
            events.append(
                HKWorkoutEvent(
                    type: .resume, dateInterval: DateInterval(start: pause + 300, duration: 0), metadata: nil))
        }
        try await builder.addWorkoutEvents(events)
        try await builder.endCollection(at: origin + Double(workoutSamples))
        let workout = try await builder.finishWorkout()
        let elapsed = ContinuousClock.now - start
        runs.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
        builderRuns.durations = workout?.zoneGroup(for: heart)?.zoneDurations.map(\.duration) ?? []
    }
    builderRuns.seconds = runs.sorted()[2]
    done.signal()
}
done.wait()
print(
    String(
        format: "  HKWorkoutBuilder: addSamples, events, activities, finishWorkout  %7.1f ms", builderRuns.seconds * 1e3
    ))
print("  time in zone (s): " + builderRuns.durations.map { String(Int($0)) }.joined(separator: " / "))

// 4. Memory over a day at 4 Hz.
func day(flip: Bool) -> (end: Int, bytes: Int, peakEntries: Int, peakBytes: Int, everySample: Int) {
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    let centres = [130.0, 142, 153, 164, 175]
    var zone = 2
    var nextChange = 30.0
    var accumulator = ZoneAccumulator(boundaries: boundaries)
    var peakEntries = 0
    var peakBytes = 0
    for tick in 0 ..< 24 * 3600 * 4 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let time = Double(tick) / 4
        if flip {
            zone = tick % 2 == 0 ? 1 : 3
        } else if time >= nextChange {
            zone = max(0, min(4, zone + ((state >> 40) & 1 == 0 ? -1 : 1)))
            nextChange = time + 20 + Double((state >> 20) % 21)
        }
        accumulator.add(start: time, end: time, value: centres[zone] + Double((state >> 50) % 7) - 3)
        peakEntries = max(peakEntries, accumulator.storedEntryCount)
        peakBytes = max(peakBytes, accumulator.storedBytes)
    }
    return (accumulator.storedEntryCount, accumulator.storedBytes, peakEntries, peakBytes, 17 * accumulator.sampleCount)
}
print("24 hours at 4 Hz, one heart-rate sensor (345,600 readings): stored entries / bytes, at the end and at most")
for (name, flip) in [("zone changing every 20-40 s", false), ("zone flipping every reading", true)] {
    let figures = day(flip: flip)
    print(
        "  \(name)  "
            + String(
                format: "%6d / %7d B end   %6d / %7d B peak   (every sample kept: %7d B)",
                figures.end, figures.bytes, figures.peakEntries, figures.peakBytes, figures.everySample))
}
