import ArgumentParser
import Foundation
import OpenHealthKit
import OpenWorkoutKit
import WorkoutPlanFiles

extension Workout {
    /// `workout plan`: workout plans (WorkoutKit's `WorkoutPlan`) kept in the store, from and to plan files.
    struct Plan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import, list, show and export workout plans (.workout, .zwo, .erg, .mrc).",
            discussion: """
                Plans are kept in the store with an id. Zwift (.zwo) and .mrc files give power as a fraction of \
                FTP: importing or exporting them uses the profile's FTP (`workout profile --ftp W`) or --ftp.

                Examples:
                  workout plan import sweet-spot.zwo
                  workout plan list
                  workout plan show 1
                  workout plan export 1 --format workout --output sweet-spot.workout
                  workout plan attach 1 --workout 6F1C…   the plan a stored workout was done to
                """,
            subcommands: [Import.self, List.self, Show.self, Export.self, Attach.self]
        )

        struct Import: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Read a plan file (.workout, .zwo, .erg, .mrc) into the store and print its id.")

            @OptionGroup var options: StoreOptions
            @Argument(help: ArgumentHelp("The plan file.", valueName: "FILE")) var file: String
            @Option(help: ArgumentHelp("FTP in watts for .zwo and .mrc (default: the profile's).", valueName: "WATTS"))
            var ftp: Double?

            func run() async throws {
                try await reportingErrors {
                    let store = try await options.open()
                    let (plan, name) = try await PlanText.read(file: file, ftp: ftp, store: store)
                    let id = try await store.addLibraryPlan(
                        LibraryPlanRecord(
                            name: PlanText.name(of: plan), source: name, imported: Workout.time.now(),
                            plan: try plan.dataRepresentation))
                    print(id)
                }
            }

        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List the plans in the store.")
            @OptionGroup var options: StoreOptions

            func run() async throws {
                try await reportingErrors {
                    let store = try await options.open()
                    let plans = try await store.libraryPlans()
                    if plans.isEmpty {
                        print("No plans; `workout plan import FILE` adds one.")
                        return
                    }
                    for record in plans {
                        let plan = try? WorkoutPlan(from: record.plan)
                        let length = plan?.plannedDuration.map(PlanText.clock) ?? "open"
                        let steps = plan.map { "\($0.plannedSteps.count) steps" } ?? "unreadable"
                        print(
                            "\(record.id)\t\(record.name ?? "(no name)")\t\(steps)\t\(length)\tfrom \(record.source)")
                    }
                }
            }
        }

        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Show a plan's steps, targets and total time.")
            @OptionGroup var options: StoreOptions
            @Argument(help: ArgumentHelp("The plan's id (workout plan list).", valueName: "ID")) var id: Int64

            func run() async throws {
                try await reportingErrors {
                    let store = try await options.open()
                    let plan = try await PlanText.plan(id, store)
                    print(PlanText.describe(plan, id: id))
                }
            }
        }

        struct Export: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Write a plan as a .workout, .zwo, .erg or .mrc file.")
            @OptionGroup var options: StoreOptions
            @Argument(help: ArgumentHelp("The plan's id (workout plan list).", valueName: "ID")) var id: Int64
            @Option(help: ArgumentHelp("workout, zwo, erg or mrc.", valueName: "FORMAT")) var format: String
            @Option(help: ArgumentHelp("The file to write (default: standard output).", valueName: "FILE"))
            var output: String?
            @Option(help: ArgumentHelp("FTP in watts for .zwo and .mrc (default: the profile's).", valueName: "WATTS"))
            var ftp: Double?

            func run() async throws {
                try await reportingErrors {
                    guard let chosen = PlanFileFormat(rawValue: format.lowercased()) else {
                        throw CommandFailure("The format '\(format)' is not one of workout, zwo, erg, mrc, fit.")
                    }
                    let store = try await options.open()
                    let plan = try await PlanText.plan(id, store)
                    var ftp = self.ftp
                    if ftp == nil, chosen.isRelativeToFTP {
                        ftp = try await store.workoutProfile().functionalThresholdPower
                    }
                    let data: Data
                    do {
                        data = try PlanFiles.write(plan, format: chosen, functionalThresholdPower: ftp)
                    } catch {
                        throw CommandFailure(sentence("Plan \(id) cannot be written as .\(chosen.rawValue): \(error)"))
                    }
                    if let output {
                        do {
                            try data.write(to: URL(fileURLWithPath: output), options: .atomic)
                        } catch {
                            throw CommandFailure("\(output) cannot be written: \(error.localizedDescription)")
                        }
                    } else {
                        FileHandle.standardOutput.write(data)
                    }
                }
            }
        }
    }
}

extension Workout.Plan {
    struct Attach: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep a plan as the plan a stored workout was done to (HKWorkout.workoutPlan).")
        @OptionGroup var options: StoreOptions
        @Argument(help: ArgumentHelp("The plan's id (workout plan list).", valueName: "ID")) var id: Int64
        @Option(help: ArgumentHelp("The workout's ID or a unique prefix (workout list).", valueName: "ID")) var workout:
            String

        func run() async throws {
            try await reportingErrors {
                let store = try await options.open()
                let plan = try await PlanText.plan(id, store)
                try await store.setWorkoutPlan(plan, for: try await findWorkout(workout, store: store))
            }
        }
    }
}

/// A message as one sentence: its first letter kept, a full stop at the end.
private func sentence(_ text: String) -> String {
    text.hasSuffix(".") ? text : text + "."
}

/// How `workout plan` prints plans.
enum PlanText {
    /// A plan file (any format `WorkoutPlanFiles` reads) and its file name; relative formats take `ftp`, else the
    /// profile's.
    static func read(file: String, ftp: Double?, store: HKHealthStore) async throws -> (WorkoutPlan, String) {
        let name = (file as NSString).lastPathComponent
        guard let format = PlanFileFormat(fileName: file) else {
            throw CommandFailure(
                "\(name): the extension does not name a plan format (.workout, .zwo, .erg, .mrc, .fit).")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw CommandFailure("\(name) cannot be read: \(error.localizedDescription)")
        }
        var ftp = ftp
        if ftp == nil, format.isRelativeToFTP { ftp = try await store.workoutProfile().functionalThresholdPower }
        do {
            return (try PlanFiles.read(data, format: format, name: name, functionalThresholdPower: ftp), name)
        } catch {
            throw CommandFailure(sentence("\(error)"))
        }
    }

    /// The plan `argument` names: a plan file when one is there, else a plan's id in the store.
    static func plan(named argument: String, ftp: Double?, store: HKHealthStore) async throws -> WorkoutPlan {
        if !FileManager.default.fileExists(atPath: argument), let id = Int64(argument) {
            return try await plan(id, store)
        }
        guard FileManager.default.fileExists(atPath: argument) else {
            throw CommandFailure(
                "--plan \(argument): there is no such file, and it is not a plan's id (`workout plan list`).")
        }
        return try await read(file: argument, ftp: ftp, store: store).0
    }

    static func plan(_ id: Int64, _ store: HKHealthStore) async throws -> WorkoutPlan {
        guard let record = try await store.libraryPlan(id: id) else {
            throw CommandFailure("There is no plan \(id); `workout plan list` lists them.")
        }
        do {
            return try WorkoutPlan(from: record.plan)
        } catch {
            throw CommandFailure("Plan \(id) in the store cannot be read: \(error).")
        }
    }

    static func name(of plan: WorkoutPlan) -> String? {
        switch plan.workout {
        case .custom(let custom): custom.displayName
        case .swimBikeRun(let legs): legs.displayName
        default: nil
        }
    }

    /// 1:02:03 or 4:05.
    static func clock(_ seconds: TimeInterval) -> String {
        let whole = Int(seconds.rounded())
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        return hours > 0
            ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e12 ? String(Int(value)) : String(format: "%.2f", value)
    }

    static func goal(_ goal: WorkoutGoal) -> String {
        switch goal {
        case .open: return "open"
        case .time(let value, let unit):
            return clock(Measurement(value: value, unit: unit).converted(to: .seconds).value)
        case .distance(let value, let unit): return "\(number(value)) \(unit.symbol)"
        case .energy(let value, let unit): return "\(number(value)) \(unit.symbol)"
        case .poolSwimDistanceWithTime(let distance, let time):
            return "\(number(distance.value)) \(distance.unit.symbol) in \(clock(time.converted(to: .seconds).value))"
        }
    }

    static func target(_ alert: (any WorkoutAlert)?) -> String {
        func watts(_ value: Measurement<UnitPower>) -> String { number(value.converted(to: .watts).value) }
        func perMinute(_ value: Measurement<UnitFrequency>) -> String {
            number(value.converted(to: WorkoutAlertMetric.countPerMinute).value)
        }
        func speed(_ value: Measurement<UnitSpeed>) -> String { "\(number(value.value)) \(value.unit.symbol)" }
        let average = alert?.metric == .average ? " (average)" : ""
        switch alert {
        case nil: return "no target"
        case let alert as PowerThresholdAlert: return "\(watts(alert.target)) W\(average)"
        case let alert as PowerRangeAlert:
            return "\(watts(alert.target.lowerBound))–\(watts(alert.target.upperBound)) W\(average)"
        case let alert as PowerZoneAlert: return "power zone \(alert.zone)"
        case let alert as HeartRateZoneAlert: return "heart-rate zone \(alert.zone)"
        case let alert as HeartRateRangeAlert:
            return "\(perMinute(alert.target.lowerBound))–\(perMinute(alert.target.upperBound)) bpm"
        case let alert as CadenceThresholdAlert: return "cadence \(perMinute(alert.target)) rpm"
        case let alert as CadenceRangeAlert:
            return "cadence \(perMinute(alert.target.lowerBound))–\(perMinute(alert.target.upperBound)) rpm"
        case let alert as SpeedThresholdAlert: return "\(speed(alert.target))\(average)"
        case let alert as SpeedRangeAlert:
            return "\(speed(alert.target.lowerBound))–\(speed(alert.target.upperBound))\(average)"
        default: return "a target"
        }
    }

    static func step(_ label: String, _ step: WorkoutStep) -> String {
        let name = step.displayName.map { "  \"\($0)\"" } ?? ""
        return
            "  \(label.padding(toLength: 10, withPad: " ", startingAt: 0))\(goal(step.goal).padding(toLength: 10, withPad: " ", startingAt: 0))\(target(step.alert))\(name)"
    }

    static func describe(_ plan: WorkoutPlan, id: Int64) -> String {
        var lines: [String] = []
        let total = plan.plannedDuration.map { "total \(clock($0))" } ?? "open length"
        switch plan.workout {
        case .custom(let custom):
            lines.append(
                "Plan \(id): \(custom.displayName ?? "(no name)") — custom \(custom.activity.name) workout, "
                    + "\(plan.plannedSteps.count) steps, \(total)")
            if let warmup = custom.warmup { lines.append(step("warm-up", warmup)) }
            for (index, block) in custom.blocks.enumerated() {
                lines.append("  block \(index + 1) × \(block.iterations)")
                for interval in block.steps {
                    lines.append("  " + step(interval.purpose == .work ? "work" : "recovery", interval.step))
                }
            }
            if let cooldown = custom.cooldown { lines.append(step("cool-down", cooldown)) }
        case .goal(let single):
            lines.append("Plan \(id): single-goal \(single.activity.name) workout, goal \(goal(single.goal)), \(total)")
        case .pacer(let pacer):
            lines.append(
                "Plan \(id): pacer \(pacer.activity.name) workout, \(number(pacer.distance.value)) "
                    + "\(pacer.distance.unit.symbol) in \(clock(pacer.time.converted(to: .seconds).value))")
        case .swimBikeRun(let legs):
            let names = legs.activities.map { leg -> String in
                switch leg {
                case .swimming: "swim"
                case .cycling: "bike"
                case .running: "run"
                }
            }
            lines.append("Plan \(id): \(legs.displayName ?? "swim-bike-run") — \(names.joined(separator: ", "))")
        }
        return lines.joined(separator: "\n")
    }
}
