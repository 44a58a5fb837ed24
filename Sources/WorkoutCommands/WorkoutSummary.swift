import Foundation
import OpenHealthKit

/// The summary `workout record` and `workout replay` print once the workout is saved. Every figure is read from
/// the library: the saved workout's statistics, zone groups and events, the library's lap statistics (`WorkoutLaps`),
/// `HKHealthStore.normalizedPower(of:during:)`, and the data source's sensor statuses.
enum WorkoutSummary {
    static let bpm = HKUnit.count().unitDivided(by: .minute())

    /// - Parameter skipped: what the `skipped` line says; by default the sensors' malformed notifications.
    static func lines(
        _ workout: HKWorkout, store: HKHealthStore, sensors: [HKSensorStatus],
        skipped: String? = nil
    ) async throws -> [String] {
        var lines = [
            "Saved workout \(workout.uuid.uuidString) (\(workout.workoutActivityType.name)) to \(store.databasePath ?? "the store")."
        ]
        func row(_ label: String, _ value: String) { lines.append("  " + pad(label, 16) + value) }
        row("moving time", Format.duration(workout.duration))
        row("elapsed time", Format.duration(workout.endDate.timeIntervalSince(workout.startDate)))
        row("distance", Format.distance(workout))
        let energy = workout.statistics(for: HKQuantityType(.activeEnergyBurned))?.sumQuantity()?.doubleValue(
            for: .kilocalorie())
        row("energy", energy.map { "\(Int($0.rounded())) kcal" } ?? "–")
        let heart = workout.statistics(for: HKQuantityType(.heartRate))
        if let average = heart?.averageQuantity()?.doubleValue(for: bpm),
            let maximum = heart?.maximumQuantity()?.doubleValue(for: bpm)
        {
            row("heart rate", "average \(whole(average)), max \(whole(maximum)) bpm")
        } else {
            row("heart rate", "–")
        }
        // A run's power is running power (a Stryd-style pod); normalized power falls back to it too.
        let power =
            workout.statistics(for: HKQuantityType(.cyclingPower))
            ?? workout.statistics(for: HKQuantityType(.runningPower))
        if let average = power?.averageQuantity()?.doubleValue(for: .watt()),
            let maximum = power?.maximumQuantity()?.doubleValue(for: .watt())
        {
            let normalized = try await store.normalizedPower(for: workout)?.doubleValue(for: .watt())
            row(
                "power",
                "average \(whole(average)), max \(whole(maximum)), normalized \(normalized.map(whole) ?? "–") W")
        } else {
            row("power", "–")
        }
        row("cadence", try await cadence(workout, store: store) ?? "–")
        lines += zoneLines(workout)
        lines += try await lapLines(workout, store: store)
        lines += try await stepLines(workout, store: store)
        for (index, sensor) in sensors.enumerated() {
            let without = sensor.timeWithoutData(at: workout.endDate)
            if case .connecting = sensor.connection {
                // It never connected: no dropout to count, and "0:00 without data" would say the opposite of the truth.
                row(
                    index == 0 ? "sensors" : "",
                    "\(sensor.name): never connected." + (sensor.problem.map { " \($0)" } ?? ""))
            } else {
                row(
                    index == 0 ? "sensors" : "",
                    "\(sensor.name): \(sensor.dropouts) dropout\(sensor.dropouts == 1 ? "" : "s"), "
                        + "\(Format.duration(without)) without data")
            }
        }
        let malformed = sensors.reduce(0) { $0 + $1.malformedNotifications }
        // "nothing", as an import that skipped nothing says.
        row(
            "skipped",
            skipped ?? (malformed == 0 ? "nothing" : "\(malformed) malformed notification\(malformed == 1 ? "" : "s")"))
        return lines.map(Format.trimmed)
    }

    /// Time in zones: the workout's zone groups as saved, heart rate then cycling power (when the workout has power
    /// zones: the person's own, or the system ones from an FTP), per activity (and for the whole workout when there
    /// are several). An activity without time in a power zone (a swim, a run) is left out of the power table.
    static func zoneLines(_ workout: HKWorkout) -> [String] {
        let zoned: [(HKQuantityType, String, HKUnit)] = [
            (HKQuantityType(.heartRate), "heart rate", bpm),
            (HKQuantityType(.cyclingPower), "cycling power", .watt()),
        ]
        let tables = zoned.compactMap { type, name, unit in workout.zoneGroup(for: type).map { (type, name, unit, $0) }
        }
        guard !tables.isEmpty else { return ["  " + pad("time in zones", 16) + "–"] }
        var lines: [String] = []
        for (type, name, unit, whole) in tables {
            let zones = whole.configuration.zones
            let source =
                whole.configuration.source == .system
                ? "system" : whole.configuration.source == .user ? "your own" : "this workout's"
            let bounds = zones.dropLast().compactMap { $0.maximum?.doubleValue(for: unit) }
            // A table that fits 80 columns: the zones' bounds are a row of it, under their names.
            let ranges = zones.indices.map { LiveView.range($0, bounds) }
            let width = max(8, (ranges.map(\.count).max() ?? 0) + 2)
            lines.append("  " + pad(lines.isEmpty ? "time in zones" : "", 16) + "\(name), \(source) zones")
            lines.append("    " + pad("activity", 16) + zones.indices.map { pad("Z\($0 + 1)", width) }.joined())
            lines.append("    " + pad(Format.unitName(unit), 16) + ranges.map { pad($0, width) }.joined())
            var rows: [(String, HKWorkoutZoneGroup?)] = workout.workoutActivities.compactMap { activity in
                let group = activity.zoneGroup(for: type)
                let timed = (group?.zoneDurations.reduce(0) { $0 + $1.duration } ?? 0) > 0
                return timed || type == HKQuantityType(.heartRate)
                    ? (activity.workoutConfiguration.activityType.name, group) : nil
            }
            if rows.count != 1 { rows.insert(("whole workout", whole), at: 0) }
            for (name, group) in rows {
                let times = group?.zoneDurations.map(\.duration) ?? Array(repeating: 0, count: zones.count)
                lines.append("    " + pad(name, 16) + times.map { pad(Format.duration($0), width) }.joined())
            }
        }
        return lines.map(Format.trimmed)
    }

    /// The laps (``WorkoutLaps``: Apple's lap events, the time after the last one a lap of its own) with their
    /// duration, average heart rate and average power (a run's running power), and a run's average cadence when it
    /// has step samples, from the library's lap statistics and ``RunningCadence`` (the figures an export writes for
    /// them).
    static func lapLines(_ workout: HKWorkout, store: HKHealthStore) async throws -> [String] {
        let spans = WorkoutLaps.intervals(of: workout)
        guard !spans.isEmpty else { return ["  " + pad("laps", 16) + "none"] }
        // A run with step samples adds each lap's cadence (RunningCadence over the lap), as its FIT lap has it.
        let steps = try await store.stepSamples(for: workout)
        var lines = [
            "  " + pad("laps", 16) + pad("lap", 5) + pad("duration", 10) + pad("heart rate", 12)
                + (steps.isEmpty ? "power" : pad("power", 8) + "cadence")
        ]
        for (index, span) in spans.enumerated() {
            let statistics = try await store.statistics(for: workout, during: span)
            let heart = statistics[HKQuantityType(.heartRate)]?.averageQuantity()?.doubleValue(for: bpm)
            let power = (statistics[HKQuantityType(.cyclingPower)] ?? statistics[HKQuantityType(.runningPower)])?
                .averageQuantity()?.doubleValue(for: .watt())
            var line =
                "  " + pad("", 16) + pad("\(index + 1)", 5) + pad(Format.duration(span.duration), 10)
                + pad(heart.map { "\(whole($0)) bpm" } ?? "–", 12) + (power.map { "\(whole($0)) W" } ?? "–")
            if !steps.isEmpty {
                let cadence = RunningCadence.statistics(steps, within: span)?.averageStepsPerMinute
                line = pad(line, 16 + 2 + 5 + 10 + 12 + 8) + (cadence.map { "\(whole($0)) steps/min" } ?? "–")
            }
            lines.append(line)
        }
        return lines.map(Format.trimmed)
    }

    /// The steps of the plan the workout ran (`workout record --plan`), from the library's ``PlanStepFigures``:
    /// each one's target, average power, 3 s maximum and time within 5 % of its target; nothing without a plan.
    static func stepLines(_ workout: HKWorkout, store: HKHealthStore) async throws -> [String] {
        let steps = try await store.planSteps(of: workout)
        guard !steps.isEmpty else { return [] }
        let widths = [5, max(6, (steps.map(\.name.count).max() ?? 0) + 2), 10, 9, 9, 9]
        let watts = { (value: Double?) in value.map { "\(whole($0)) W" } ?? "–" }
        var lines = [
            "  " + pad("steps", 16)
                + zip(["step", "name", "duration", "target", "average", "3 s max"], widths)
                .map { pad($0, $1) }.joined() + "in range"
        ]
        for (index, step) in steps.enumerated() {
            let cells = [
                "\(index + 1)", step.name, Format.duration(step.interval.duration), watts(step.target),
                watts(step.averagePower), watts(step.maximumThreeSecondPower),
            ]
            lines.append(
                "  " + pad("", 16) + zip(cells, widths).map { pad($0, $1) }.joined()
                    + (step.timeInRange.map { Format.duration($0) } ?? "–"))
        }
        return lines.map(Format.trimmed)
    }

    /// The cadence figures: a ride's average cycling cadence (the workout's statistics) and a run's average and
    /// maximum steps a minute (`HKHealthStore.runningCadence(for:)`, from its step samples); nil without either.
    static func cadence(_ workout: HKWorkout, store: HKHealthStore) async throws -> String? {
        var parts: [String] = []
        if let rpm = workout.statistics(for: HKQuantityType(.cyclingCadence))?.averageQuantity()?.doubleValue(for: bpm)
        {
            parts.append("average \(whole(rpm)) rpm")
        }
        if let running = try await store.runningCadence(for: workout) {
            parts.append(
                "\(parts.isEmpty ? "" : "running ")average \(whole(running.averageStepsPerMinute)), "
                    + "max \(whole(running.maximumStepsPerMinute)) steps/min")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    private static func whole(_ value: Double) -> String { "\(Int(value.rounded()))" }
}
