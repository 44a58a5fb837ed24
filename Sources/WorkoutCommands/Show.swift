import ArgumentParser
import Foundation
import OpenHealthKit
import OpenWorkoutKit

extension Workout {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the workouts in the store, newest first.",
            discussion: "Example:\n  workout list --store /tmp/demo.sqlite"
        )

        @OptionGroup var options: StoreOptions
        @Option(help: "Show at most this many workouts.") var limit: Int = 50

        func validate() throws {
            guard limit > 0 else { throw ValidationError("--limit must be a positive number, not \(limit).") }
        }

        func run() async throws {
            try await reportingErrors {
                let store = try await options.open()
                let descriptor = HKSampleQueryDescriptor(
                    predicates: [.workout()],
                    sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)],
                    limit: limit)
                let workouts = try await descriptor.result(for: store)
                if workouts.isEmpty {
                    print("No workouts in \(store.databasePath ?? "the store") yet. Try `workout demo`.")
                    return
                }
                print(pad("ID", 10) + pad("Start", 18) + pad("Activity", 16) + pad("Duration", 10) + "Distance")
                for workout in workouts {
                    print(
                        pad(String(workout.uuid.uuidString.prefix(8)), 10) + pad(Format.date(workout.startDate), 18)
                            + pad(workout.workoutActivityType.name, 16) + pad(Format.duration(workout.duration), 10)
                            + Format.distance(workout))
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a workout and its associated samples.",
            discussion:
                "ID is the workout's UUID or a unique prefix of it, as `workout list` prints.\n\nExamples:\n  workout show 3F2A91C0\n  workout show 3F2A91C0 --json\n  workout show 3F2A91C0 --chart ride.svg --max-heart-rate 185"
        )

        @OptionGroup var options: StoreOptions
        @Argument(help: "The workout's UUID or a unique prefix of it.") var id: String
        @Flag(help: "Print the workout as one JSON object: activities, events, statistics in their units.") var json =
            false
        @Option(
            help: ArgumentHelp(
                "Also write an SVG chart: heart rate and power on zone bands, time in zones.", valueName: "FILE.svg"))
        var chart: String?
        @OptionGroup var heartRateZones: HeartRateZoneOptions

        func run() async throws {
            try await reportingErrors {
                let store = try await options.open()
                let workout = try await findWorkout(id, store: store)
                if let chart {
                    let svg = try await WorkoutChart.svg(
                        of: workout, zones: try await heartRateZones.resolve(store: store), store: store)
                    do {
                        try svg.write(toFile: chart, atomically: true, encoding: .utf8)
                    } catch {
                        throw HKError(
                            .errorInvalidArgument,
                            "The chart cannot be written to \(chart): \(error.localizedDescription)")
                    }
                    FileHandle.standardError.write(Data("Wrote the chart to \(chart).\n".utf8))
                }
                if json {
                    let normalized = try await store.normalizedPower(for: workout)?.doubleValue(for: .watt())
                    print(
                        try workoutJSON(
                            workout, normalizedPower: normalized,
                            runningCadence: try await store.runningCadence(for: workout),
                            sensors: try await store.workoutSensors(for: workout))
                    )
                } else {
                    try await printWorkout(workout.uuid, store: store)
                }
            }
        }
    }
}

/// A workout as JSON: dates in ISO 8601, durations in seconds, statistics in their type's storage unit (named),
/// `normalizedPower` in W (`HKHealthStore.normalizedPower(for:)`, null without power), `runningCadence` (average
/// and maximum steps a minute from the step samples, `HKHealthStore.runningCadence(for:)`, null without), and
/// `timeInZones`: per zoned type, the seconds in each zone the builder kept with the workout (`zoneGroup(for:)`),
/// each zone with its bounds in the type's storage unit; `sensors`, the sensors a live recording kept
/// (`workoutSensors(for:)`: identifier, name, manufacturer, model, and battery percent at the start and the end, null
/// when unknown), empty otherwise.
func workoutJSON(
    _ workout: HKWorkout, normalizedPower: Double?, runningCadence: RunningCadence.Statistics? = nil,
    sensors: [HKWorkoutSensor]
) throws -> String {
    let iso = ISO8601DateFormatter()
    func statistics(_ all: [HKQuantityType: HKStatistics]) -> [String: Any] {
        var result: [String: Any] = [:]
        for (type, statistic) in all {
            let name = type.identifier.replacingOccurrences(of: "HKQuantityTypeIdentifier", with: "")
            let unit = type.storageUnit
            var entry: [String: Any] = ["unit": unit.unitString]
            let style = type.aggregationStyle
            if style == .cumulative {
                entry["sum"] = statistic.sumQuantity()?.doubleValue(for: unit) ?? NSNull()
            } else {
                entry["average"] = statistic.averageQuantity()?.doubleValue(for: unit) ?? NSNull()
                entry["minimum"] = statistic.minimumQuantity()?.doubleValue(for: unit) ?? NSNull()
                entry["maximum"] = statistic.maximumQuantity()?.doubleValue(for: unit) ?? NSNull()
            }
            result[name] = entry
        }
        return result
    }
    func zones(_ groups: [HKQuantityType: HKWorkoutZoneGroup]?) -> [String: Any] {
        var result: [String: Any] = [:]
        for (type, group) in groups ?? [:] {
            let name = type.identifier.replacingOccurrences(of: "HKQuantityTypeIdentifier", with: "")
            let unit = type.storageUnit
            result[name] = group.zoneDurations.map { entry in
                [
                    "zone": entry.zone.index + 1, "duration": entry.duration, "unit": unit.unitString,
                    "minimum": entry.zone.minimum?.doubleValue(for: unit) ?? NSNull(),
                    "maximum": entry.zone.maximum?.doubleValue(for: unit) ?? NSNull(),
                ] as [String: Any]
            }
        }
        return result
    }
    let object: [String: Any] = [
        "uuid": workout.uuid.uuidString,
        "normalizedPower": normalizedPower ?? NSNull(),
        "runningCadence": runningCadence.map {
            [
                "average": $0.averageStepsPerMinute, "maximum": $0.maximumStepsPerMinute,
                "unit": RunningCadence.unit.unitString,
            ] as [String: Any]
        } ?? NSNull(),
        "timeInZones": zones(workout.zoneGroupsByType),
        "activityType": workout.workoutActivityType.name,
        "start": iso.string(from: workout.startDate),
        "end": iso.string(from: workout.endDate),
        "duration": workout.duration,
        "source": workout.sourceRevision.source.bundleIdentifier,
        "events": (workout.workoutEvents ?? []).map { event in
            [
                "type": event.type.name, "start": iso.string(from: event.dateInterval.start),
                "duration": event.dateInterval.duration,
            ] as [String: Any]
        },
        "activities": workout.workoutActivities.map { activity in
            [
                "activityType": activity.workoutConfiguration.activityType.name,
                "start": iso.string(from: activity.startDate),
                "end": activity.endDate.map { iso.string(from: $0) } ?? NSNull(), "duration": activity.duration,
                "statistics": statistics(activity.allStatistics), "timeInZones": zones(activity.zoneGroupsByType),
            ] as [String: Any]
        },
        "statistics": statistics(workout.allStatistics),
        "sensors": sensors.map { sensor in
            [
                "identifier": sensor.device.localIdentifier ?? NSNull(), "name": sensor.device.name ?? NSNull(),
                "manufacturer": sensor.device.manufacturer ?? NSNull(), "model": sensor.device.model ?? NSNull(),
                "batteryAtStart": sensor.batteryPercentAtStart ?? NSNull(),
                "batteryAtEnd": sensor.batteryPercentAtEnd ?? NSNull(),
            ]
                as [String: Any]
        },
    ]
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
}

/// Prints a workout's summary, its time in zones and laps, and the statistics of its associated samples.
func printWorkout(_ uuid: UUID, store: HKHealthStore) async throws {
    for line in try await workoutLines(uuid, store: store) { print(line) }
}

/// What `workout show` prints of a workout (and `workout serve`'s page shows): its figures, sensors and plan, the
/// time in zones and laps, the associated samples.
func workoutLines(_ uuid: UUID, store: HKHealthStore) async throws -> [String] {
    var lines: [String] = []
    /// A line, or several at its line breaks.
    func add(_ text: String) {
        lines.append(contentsOf: text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    }
    let found = try await HKSampleQueryDescriptor(
        predicates: [.workout(HKQuery.predicateForObject(with: uuid))],
        sortDescriptors: []
    ).result(for: store)
    guard let workout = found.first else { throw HKError(.errorNoData, "The workout \(uuid) is not in the store.") }
    add("Workout \(workout.uuid.uuidString)")
    add("  activity   \(workout.workoutActivityType.name)")
    add("  start      \(Format.date(workout.startDate))")
    add("  duration   \(Format.duration(workout.duration))")
    add("  distance   \(Format.distance(workout))")
    if let energy = workout.statistics(for: HKQuantityType(.activeEnergyBurned))?.sumQuantity() {
        add("  energy     \(Int(energy.doubleValue(for: .kilocalorie()).rounded())) kcal")
    }
    for (index, sensor) in try await store.workoutSensors(for: workout).enumerated() {
        add((index == 0 ? "  sensors    " : "             ") + Format.sensor(sensor))
    }
    if let plan = try await store.workoutPlan(for: workout) {
        add("  plan       \(PlanText.name(of: plan) ?? "(no name)"), \(plan.plannedSteps.count) steps")
    }
    // As the summary printed when it was saved: time in zones, and the laps.
    add("")
    for line in WorkoutSummary.zoneLines(workout) + (try await WorkoutSummary.lapLines(workout, store: store)) {
        add(line)
    }
    add("\n  Associated samples:")
    let rows = try await AssociatedSamples.rows(of: workout, store: store)
    let width = max(14, (rows.map(\.name.count).max() ?? 0) + 1)
    for row in rows {
        add("    " + pad(row.name, width) + pad("\(row.count) sample\(row.count == 1 ? "" : "s")", 13) + row.figures)
    }
    if rows.isEmpty { add("    none") }
    return lines
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}

enum Format {
    /// A line without its trailing spaces (table columns are padded).
    static func trimmed(_ line: String) -> String { String(line.reversed().drop(while: { $0 == " " }).reversed()) }

    static func date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    static func duration(_ seconds: TimeInterval) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600
            ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }

    /// The workout's distance, as the library sums it (`HKWorkout.distanceCovered`: a multisport workout's legs
    /// each with their own distance type).
    static func distance(_ workout: HKWorkout) -> String {
        guard let metres = workout.distanceCovered?.doubleValue(for: .meter()) else { return "–" }
        return String(format: "%.2f km", metres / 1000)
    }

    /// A unit as people read it: heart rate in bpm (HealthKit's unit string for it is count/min), others as HealthKit
    /// writes them.
    static func unitName(_ unit: HKUnit) -> String {
        unit == HKUnit.count().unitDivided(by: .minute()) ? "bpm" : unit.unitString
    }

    /// A workout's sensor: its maker and model (else its name), and the battery levels it reported.
    static func sensor(_ sensor: HKWorkoutSensor) -> String {
        let device = sensor.device
        let made = [device.manufacturer, device.model].compactMap { $0 }.joined(separator: " ")
        var text = made.isEmpty ? (device.name ?? device.localIdentifier ?? "sensor") : made
        if !made.isEmpty, let name = device.name { text += " (\(name))" }
        switch (sensor.batteryPercentAtStart, sensor.batteryPercentAtEnd) {
        case let (first?, last?) where first != last: text += ", battery \(first) % → \(last) %"
        case let (_, last?): text += ", battery \(last) %"
        case let (first?, nil): text += ", battery \(first) %"
        case (nil, nil): break
        }
        return text
    }

    static func number(_ value: Double) -> String {
        value.rounded() == value || abs(value) >= 100 ? String(Int(value.rounded())) : String(format: "%.1f", value)
    }
}
