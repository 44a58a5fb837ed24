// Plan-ride benchmark: a plan ridden through the live path against today's fixed-target ride, in the same run. Both
// ride OpenHealthKitTesting's simulated smart trainer (Indoor Bike Data every 0.5 s, decoded as the Bluetooth paths
// decode it) into a store file: the data source, the builder, the journal, the workout saved. The plan ride runs a
// WorkoutKit plan (its runner every 0.5 s, ramps, the trainer's target at each step, a segment per step, the plan
// saved); the fixed ride holds 200 W as `workout record --target-power 200` does. Time is the test clock's, moved
// half a second at a time as fast as the machine goes, so both sides pay the same stepping and what differs is the
// plan. Rounds alternate the two sides; peak resident memory is reset before each ride.
//
//     swift run -c release PlanRideBenchmark [minutes] [rounds]
import FitnessSensors
import Foundation
import OpenHealthKit
import OpenHealthKitTesting
import OpenWorkoutKit

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let minutes = max(arguments.first ?? 60, 46)
let rounds = max(arguments.dropFirst().first ?? 3, 1)

/// A warm-up of 10 min at 150 W, 5 × (4 min at 280 W, 3 min at 150 W), and a cool-down at 120 W to `minutes`.
let plan = WorkoutPlan(
    .custom(
        CustomWorkout(
            activity: .cycling, location: .indoor, displayName: "Five by four",
            warmup: WorkoutStep(goal: .time(10, .minutes), alert: .power(150, unit: .watts)),
            blocks: [
                IntervalBlock(
                    steps: [
                        IntervalStep(.work, goal: .time(4, .minutes), alert: .power(280, unit: .watts)),
                        IntervalStep(.recovery, goal: .time(3, .minutes), alert: .power(150, unit: .watts)),
                    ], iterations: 5)
            ],
            cooldown: WorkoutStep(goal: .time(Double(minutes - 45), .minutes), alert: .power(120, unit: .watts)))))

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

struct Ride {
    var readings: Int
    var seconds: Double
    var peak: Double
    var segments: Int
    var targets: Int
    var readingsPerSecond: Double { Double(readings) / seconds }
}

/// One ride of `minutes` into a fresh store file, with the plan or at a fixed 200 W.
func ride(withPlan: Bool) async throws -> Ride {
    let clock = TestClock()
    let temporary = try TemporaryHealthStore(clock: clock, clientIdentifier: "benchmark")
    let store = temporary.store
    try await store.authorizeWorkoutTypes()
    let trainer = SimulatedSmartTrainer(clock: clock)
    store.sensorConnector = SensorConnector(schemes: ["simulated"]) { _ in trainer }
    try await store.pairSensor(trainer.pairedSensor)
    var options = LiveRecording.Options()
    options.clock = clock
    if withPlan { try options.setWorkoutPlan(plan) } else { options.targetPower = 200 }
    resetPeak()
    let began = ContinuousClock.now
    let recording = try await LiveRecording(healthStore: store, options: options)
    try await recording.start()
    // Asleep on the clock when idle: the journal's flush timer, and the plan's update loop.
    let sleepers = withPlan ? 2 : 1
    for _ in 1 ... minutes * 120 {
        clock.advance(by: .milliseconds(500))
        try await recording.waitUntilIdle(on: clock, sleepers: sleepers)
        trainer.ride()
        await trainer.waitForDemand()
    }
    _ = try await recording.end()
    let workout = try await recording.save()
    let elapsed = began.duration(to: .now)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let segments = (workout.workoutEvents ?? []).filter { $0.type == .segment }.count
    let targets = trainer.controlRequests.filter { if case .setTargetPower = $0.request { true } else { false } }.count
    return Ride(
        readings: trainer.readingsSent, seconds: seconds, peak: peakMegabytes(), segments: segments, targets: targets)
}

print("Plan-ride benchmark: \(minutes) min on the simulated smart trainer, through the live path into a store file")
var fixed: [Ride] = []
var planned: [Ride] = []
for round in 1 ... rounds {
    for withPlan in round % 2 == 1 ? [false, true] : [true, false] {
        let result = try await ride(withPlan: withPlan)
        if withPlan { planned.append(result) } else { fixed.append(result) }
        print(
            String(
                format:
                    "  round %d, %@  %8.0f readings/s  (%d readings in %.2f s; peak %.1f MB; %d targets; %d segments)",
                round, withPlan ? "plan        " : "fixed 200 W ", result.readingsPerSecond, result.readings,
                result.seconds, result.peak, result.targets, result.segments))
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
let fixedRate = median(fixed.map(\.readingsPerSecond))
let planRate = median(planned.map(\.readingsPerSecond))
print(
    String(
        format:
            "\nMedian of %d: fixed %.0f readings/s, plan %.0f readings/s: the plan ride takes %.2f× the fixed ride's time",
        rounds, fixedRate, planRate, fixedRate / planRate))
// What the plan adds to each half second of riding, and what that is in real time.
let fixedSeconds = median(fixed.map(\.seconds))
let planSeconds = median(planned.map(\.seconds))
let perUpdate = (planSeconds - fixedSeconds) / Double(minutes * 120)
print(
    String(
        format: "The plan adds %.1f µs to each half second of riding: %.4f %% of one core in real time",
        perUpdate * 1e6, perUpdate / 0.5 * 100))
print(
    String(
        format: "Peak resident memory: fixed %.1f MB, plan %.1f MB (largest of the rounds)",
        fixed.map(\.peak).max() ?? 0, planned.map(\.peak).max() ?? 0))
