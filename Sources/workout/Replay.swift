import ArgumentParser
import FitnessSensors
import Foundation
import OpenHealthKit

extension Workout {
    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replay a recorded fixture as a live workout, and save it.",
            discussion: """
                The fixture's raw notifications go through the same decoders a live strap's do, into an
                HKWorkoutSession with its HKLiveWorkoutBuilder and data source; its session actions (activities,
                pause, resume, laps, markers) are carried out as they were recorded. The whole file is checked
                before anything is written. On a terminal a live display is updated in place; piped, plain lines.
                Instant replays are saved at the time the fixture was recorded; paced ones start now.
                Zones are your heart-rate zones from the store (see `workout profile`), or heart-rate-reserve zones
                from --max-heart-rate/--resting-heart-rate.

                Examples:
                  workout replay fixtures/run-45min.jsonl                real time
                  workout replay fixtures/ride-90min.jsonl --speed 60    an hour a minute
                  workout replay fixtures/triathlon-swim-bike-run.jsonl --instant --store /tmp/demo.sqlite
                """
        )

        @OptionGroup var options: StoreOptions
        @Argument(help: ArgumentHelp("The fixture (JSON Lines; see fixtures/FORMAT.md).", valueName: "FILE")) var file: String
        @Option(help: ArgumentHelp("Fixture seconds per real second (1 is real time).", valueName: "N")) var speed: Double = 1
        @Flag(help: "Replay as fast as possible on a virtual clock.") var instant = false
        @Option(help: ArgumentHelp("Show zones from this maximum heart rate instead of your stored zones.", valueName: "BPM"))
        var maxHeartRate: Double?
        @Option(help: ArgumentHelp("Show zones from this resting heart rate instead of your stored zones.", valueName: "BPM"))
        var restingHeartRate: Double?

        func validate() throws {
            guard speed > 0, speed <= 100_000 else { throw ValidationError("--speed must be between 0 and 100000, not \(speed).") }
            try validateHeartRates(maximum: maxHeartRate, resting: restingHeartRate)
        }

        func run() async throws {
            try await reportingErrors {
                // The fixture is checked to its end before the store is opened: a bad file writes nothing.
                let summary = try FixtureSummary.scan(path: file)
                let store = try await options.open()
                try await store.requestAuthorization(toShare: Set(replayTypes), read: Set(replayTypes.map { $0 as HKObjectType }))
                let replay = try WorkoutReplay(fixtureAt: file, healthStore: store, instant: instant)
                let zones = try await HeartRateZones.resolve(store: store, maximum: maxHeartRate, resting: restingHeartRate)
                let display = ReplayDisplay(replay: replay, zones: zones, instant: instant, terminal: isatty(STDOUT_FILENO) == 1)
                display.speedFactor = speed
                display.begin(summary: summary, file: file)
                let workout = try await withThrowingTaskGroup(of: HKWorkout?.self) { group in
                    group.addTask { try await replay.run(pace: instant ? .instant : .speed(speed)) }
                    group.addTask { await display.run(); return nil }
                    var saved: HKWorkout?
                    while let result = try await group.next() {
                        if let result {
                            saved = result
                            group.cancelAll()
                        }
                    }
                    return saved!
                }
                display.finish()
                let malformed = replay.malformedNotifications
                try await printReplaySummary(workout, store: store, zones: zones,
                                             skipped: "\(malformed) malformed notification\(malformed == 1 ? "" : "s")")
            }
        }
    }
}

/// Every type a replay may save.
let replayTypes: [HKSampleType] = [
    .workoutType(), HKQuantityType(.heartRate), HKQuantityType(.cyclingPower), HKQuantityType(.cyclingCadence),
    HKQuantityType(.cyclingSpeed), HKQuantityType(.distanceCycling), HKQuantityType(.distanceWalkingRunning),
    HKQuantityType(.distanceSwimming), HKQuantityType(.activeEnergyBurned), HKQuantityType(.runningSpeed),
    HKQuantityType(.swimmingStrokeCount), HKQuantityType(.stepCount),
]

/// Prints what a replay (or an import) saved: duration, distance, energy, heart rate, power, zones per activity,
/// skipped input.
func printReplaySummary(_ workout: HKWorkout, store: HKHealthStore, zones: HeartRateZones, skipped: String) async throws {
    let bpm = HKUnit.count().unitDivided(by: .minute())
    print("Saved workout \(workout.uuid.uuidString) (\(workout.workoutActivityType.name)) to \(store.databasePath ?? "the store").")
    print("  duration        \(Format.duration(workout.duration))")
    print("  distance        \(Format.distance(workout))")
    let energy = workout.statistics(for: HKQuantityType(.activeEnergyBurned))?.sumQuantity()?.doubleValue(for: .kilocalorie())
    print("  energy          \(energy.map { "\(Int($0.rounded())) kcal" } ?? "–")")
    let heart = workout.statistics(for: HKQuantityType(.heartRate))
    if let average = heart?.averageQuantity()?.doubleValue(for: bpm), let maximum = heart?.maximumQuantity()?.doubleValue(for: bpm) {
        print("  heart rate      average \(Int(average.rounded())), max \(Int(maximum.rounded())) bpm")
    } else {
        print("  heart rate      –")
    }
    if let average = workout.statistics(for: HKQuantityType(.cyclingPower))?.averageQuantity()?.doubleValue(for: .watt()) {
        let normalized = try await store.normalizedPower(for: workout)?.doubleValue(for: .watt())
        let np = normalized.map { "\(Int($0.rounded())) W" } ?? "–"
        print("  power           average \(Int(average.rounded())) W, normalized \(np)")
    } else {
        print("  power           –")
    }
    let heartPoints = try await WorkoutAnalysis.points(.heartRate, unit: bpm, of: workout, store: store)
    if !heartPoints.isEmpty {
        print("  time in zones   \(zones.label)")
        print("    " + pad("activity", 16) + zones.indices.map { pad(zones.name($0), 8) }.joined())
        let heartRate = HKQuantityType(.heartRate)
        var rows: [(String, DateInterval, HKWorkoutZoneGroup?)] = workout.workoutActivities.map {
            ($0.workoutConfiguration.activityType.name, DateInterval(start: $0.startDate, end: $0.endDate ?? workout.endDate),
             $0.zoneGroup(for: heartRate))
        }
        if rows.count != 1 {
            rows.insert(("whole workout", DateInterval(start: workout.startDate, end: workout.endDate), workout.zoneGroup(for: heartRate)), at: 0)
        }
        for (name, interval, group) in rows {
            // The store's zones: the times the builder kept. Zones given on the command line: computed here.
            let times: [TimeInterval]
            if zones.fromStore, let group, group.zoneDurations.count == zones.count {
                times = group.zoneDurations.map(\.duration)
            } else {
                times = WorkoutAnalysis.timeInZones(heartPoints, zones: zones, within: interval)
            }
            print("    " + pad(name, 16) + times.map { pad(Format.duration($0), 8) }.joined())
        }
    }
    print("  skipped         \(skipped)")
}

/// Checks the zone overrides: positive, and the maximum clearly above the resting rate.
func validateHeartRates(maximum: Double?, resting: Double?) throws {
    let rest = resting ?? 72
    let top = maximum ?? 180
    guard rest > 0, top > rest + 10 else {
        throw ValidationError("--max-heart-rate must be above --resting-heart-rate (by more than 10 bpm).")
    }
}
