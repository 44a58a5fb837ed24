import ArgumentParser
import Foundation
import OpenHealthKit

extension Workout {
    /// Saves a 30-minute run with associated heart-rate, energy and distance samples, then reads it back.
    struct Demo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save a demonstration run with associated samples, and print it back.",
            discussion: """
                The run ends now and lasts 30 minutes: heart rate every 5 s rising with effort, active energy and \
                distance every minute. It is saved with the HealthKit calls an app would make (HKWorkoutBuilder:
                begin, add samples, end, finish) and read back with a sample query on the workout's associated \
                samples.

                Example:
                  workout demo --store /tmp/demo.sqlite
                """
        )

        @OptionGroup var options: StoreOptions

        func run() async throws {
            try await reportingErrors {
                let store = try await options.open()
                let end = Date()
                let start = end.addingTimeInterval(-30 * 60)
                let plan = DemoRun(start: start, end: end)
                let configuration = HKWorkoutConfiguration()
                configuration.activityType = .running
                configuration.locationType = .outdoor
                let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: .local())
                try await builder.beginCollection(at: start)
                try await builder.addSamples(plan.samples())
                try await builder.endCollection(at: end)
                guard let workout = try await builder.finishWorkout() else {
                    throw CommandFailure("The demonstration run could not be saved.")
                }
                print("Saved a run to \(store.databasePath ?? "memory").\n")
                try await printWorkout(workout.uuid, store: store)
            }
        }
    }
}

/// A made-up but physiologically plausible 30-minute run.
struct DemoRun {
    let start: Date
    let end: Date

    private var minutes: Int { Int(end.timeIntervalSince(start) / 60) }
    private var bpm: HKUnit { HKUnit.count().unitDivided(by: .minute()) }

    /// Heart rate after `t` seconds: a warm-up rise towards 155 bpm with a slow drift and a little noise.
    func heartRate(at t: Double) -> Double {
        let warmup = 1 - exp(-t / 180)
        let drift = t / 1800 * 6
        let wobble = 2 * sin(t / 37) + 1.5 * sin(t / 11)
        return (95 + 60 * warmup + drift + wobble).rounded()
    }

    /// Metres run in minute `m` (about 5:30 per km after a slower first minutes).
    func metres(inMinute m: Int) -> Double { m < 3 ? 150 : 182 }

    func samples() -> [HKSample] {
        var samples: [HKSample] = []
        let heartRateType = HKQuantityType(.heartRate)
        var t = 0.0
        while start.addingTimeInterval(t) < end {
            let at = start.addingTimeInterval(t)
            samples.append(
                HKQuantitySample(
                    type: heartRateType, quantity: HKQuantity(unit: bpm, doubleValue: heartRate(at: t)),
                    start: at, end: at))
            t += 5
        }
        for m in 0 ..< minutes {
            let from = start.addingTimeInterval(Double(m) * 60)
            let to = from.addingTimeInterval(60)
            samples.append(
                HKQuantitySample(
                    type: HKQuantityType(.activeEnergyBurned),
                    quantity: HKQuantity(unit: .kilocalorie(), doubleValue: 11.5), start: from, end: to))
            samples.append(
                HKQuantitySample(
                    type: HKQuantityType(.distanceWalkingRunning),
                    quantity: HKQuantity(unit: .meter(), doubleValue: metres(inMinute: m)), start: from, end: to))
        }
        return samples
    }
}
