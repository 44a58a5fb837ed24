import Foundation
import OpenHealthKit
import OpenWorkoutKit

/// The plan file formats OpenHealthKit reads and writes, to and from WorkoutKit's `WorkoutPlan`.
public enum PlanFileFormat: String, CaseIterable, Sendable {
    /// Apple's `.workout` (WorkoutKit's `dataRepresentation`), byte for byte.
    case workout
    /// Zwift's `.zwo` XML: power as fractions of FTP.
    case zwo
    /// `.erg`: minutes and watts.
    case erg
    /// `.mrc`: minutes and percent of FTP.
    case mrc
    /// A FIT workout file (`workout` and `workout_step` messages).
    case fit

    /// The format a file name's extension names, if any.
    public init?(fileName: String) {
        let ext = (fileName as NSString).pathExtension.lowercased()
        self.init(rawValue: ext)
    }

    /// Whether the format gives power relative to FTP, so that reading or writing it needs one.
    public var isRelativeToFTP: Bool { self == .zwo || self == .mrc }
}

/// A plan file that cannot be read or a plan that cannot be written in a format: one sentence naming the file
/// and what is wrong.
public struct PlanFileError: Error, CustomStringConvertible, Equatable, Sendable {
    public var description: String

    public init(_ description: String) { self.description = description }
}

/// Reading and writing plan files. OpenHealthKit addition.
///
/// Every plan read is checked as a `.workout` file is (iterations 1 to 1000, no step longer than a day, power
/// targets above 0 and at most 3000 W, at least one step), so a plan that reads from any format is one
/// `dataRepresentation` can write and the store can keep. Where a format cannot say what a plan says, the nearest
/// faithful mapping is used and documented on each format's reader and writer (the catalog's "Plan files" article).
public enum PlanFiles {
    /// Reads a plan from a file's bytes in `format`. `functionalThresholdPower` (W) turns a relative format's
    /// fractions into watts; without it, such a file throws. `name` (the file's name) goes into error messages and
    /// names a plan whose file gives no name.
    public static func read(
        _ data: Data, format: PlanFileFormat, name: String, functionalThresholdPower: Double? = nil
    ) throws(PlanFileError) -> WorkoutPlan {
        let plan: WorkoutPlan
        do {
            switch format {
            case .workout:
                plan = try WorkoutPlan(from: data)
            case .zwo:
                plan = try ZwiftWorkoutFile.read(data, ftp: try ftp(functionalThresholdPower, format))
            case .erg, .mrc:
                plan = try ErgFile.read(
                    data, percent: format == .mrc,
                    ftp: format == .mrc ? try ftp(functionalThresholdPower, format) : nil,
                    fallbackName: (name as NSString).deletingPathExtension)
            case .fit:
                plan = try FITWorkoutFile.read(data)
            }
        } catch let error as PlanFileError {
            throw PlanFileError("\(name): \(error.description)")
        } catch {
            throw PlanFileError("\(name) is not a workout plan: \(error)")
        }
        if let problem = WorkoutPlanChecks.problem(in: plan) { throw PlanFileError("\(name): \(problem)") }
        return plan
    }

    /// Writes a plan in `format`. A relative format needs `functionalThresholdPower` (W).
    public static func write(
        _ plan: WorkoutPlan, format: PlanFileFormat, functionalThresholdPower: Double? = nil
    ) throws(PlanFileError) -> Data {
        do {
            switch format {
            case .workout: return try plan.dataRepresentation
            case .zwo: return try ZwiftWorkoutFile.write(plan, ftp: try ftp(functionalThresholdPower, format))
            case .erg: return try ErgFile.write(plan, ftp: nil)
            case .mrc: return try ErgFile.write(plan, ftp: try ftp(functionalThresholdPower, format))
            case .fit: return try FITWorkoutFile.write(plan)
            }
        } catch let error as PlanFileError {
            throw error
        } catch {
            throw PlanFileError("The plan cannot be written as .\(format.rawValue): \(error)")
        }
    }

    static func ftp(_ ftp: Double?, _ format: PlanFileFormat) throws(PlanFileError) -> Double {
        guard let ftp, ftp > 0, ftp.isFinite else {
            throw PlanFileError(
                ".\(format.rawValue) gives power as a fraction of FTP: set yours with `workout profile --ftp WATTS`")
        }
        return ftp
    }
}

/// What the formats that hold only timed power segments (`.zwo`, `.erg`, `.mrc`) need of each step of a plan.
struct PowerSegment: Equatable {
    var seconds: Double
    /// Watts, nil for a step without a power target (a free ride).
    var watts: Double?
    var name: String?
    var kind: PlannedStep.Kind

    /// The plan's steps as segments: each step must have a time goal; its power target is a threshold's value, a
    /// range's middle; a zone, a heart-rate, cadence or speed target cannot be said in these formats and throws.
    static func segments(of plan: WorkoutPlan, format: String) throws(PlanFileError) -> [PowerSegment] {
        guard case .custom = plan.workout else {
            throw PlanFileError(
                "The plan is not a custom workout of timed steps, which is all a .\(format) file can hold")
        }
        var segments: [PowerSegment] = []
        for (index, planned) in plan.plannedSteps.enumerated() {
            guard let seconds = planned.duration, case .time = planned.step.goal else {
                throw PlanFileError(
                    "Step \(index + 1) ends at \(WorkoutPlanChecks.describe(planned.step.goal)), but a .\(format) file holds only timed steps"
                )
            }
            var watts: Double?
            switch planned.step.alert {
            case nil: watts = nil
            case let alert as PowerThresholdAlert: watts = alert.target.converted(to: .watts).value
            case let alert as PowerRangeAlert:
                watts =
                    (alert.target.lowerBound.converted(to: .watts).value
                        + alert.target.upperBound.converted(to: .watts).value) / 2
            default:
                throw PlanFileError(
                    "Step \(index + 1) has a target a .\(format) file cannot hold (only power in watts)")
            }
            segments.append(
                PowerSegment(seconds: seconds, watts: watts, name: planned.step.displayName, kind: planned.kind))
        }
        guard !segments.isEmpty else { throw PlanFileError("The plan has no steps") }
        return segments
    }

    /// A ramp from `from` to `to` watts over `seconds`, as steady steps of at most a minute, each at the ramp's
    /// mean over it (its middle's value): the nearest a `WorkoutPlan`, whose steps hold one target each, comes to
    /// a ramp. The same work is done, and no step is more than half a minute's change away from the ramp.
    static func ramp(from: Double, to: Double, seconds: Double) -> [(seconds: Double, watts: Double)] {
        guard seconds > 0 else { return [] }
        let pieces = max(1, Int((seconds / 60).rounded(.up)))
        var result: [(Double, Double)] = []
        var start = 0.0
        for piece in 0 ..< pieces {
            let end = piece == pieces - 1 ? seconds : start + 60
            let middle = (start + end) / 2
            result.append((end - start, from + (to - from) * middle / seconds))
            start = end
        }
        return result
    }
}

/// Builds a cycling custom workout from timed segments: consecutive plain segments in one block, repeated
/// intervals in a block of their own.
struct PlanAssembler {
    var blocks: [IntervalBlock] = []
    private var plain: [IntervalStep] = []

    /// A step at a power (nil: no target) for `seconds`; work unless its power is under 60 % of FTP (or, without
    /// FTP, it is named as recovery by the format).
    static func step(seconds: Double, watts: Double?, name: String?, recovery: Bool) -> IntervalStep {
        IntervalStep(
            recovery ? .recovery : .work,
            step: WorkoutStep(
                goal: .time(seconds, .seconds), alert: watts.map { .power($0, unit: .watts) }, displayName: name))
    }

    mutating func add(_ step: IntervalStep) { plain.append(step) }

    mutating func addRepeated(_ steps: [IntervalStep], iterations: Int) {
        flush()
        blocks.append(IntervalBlock(steps: steps, iterations: iterations))
    }

    mutating func flush() {
        if !plain.isEmpty { blocks.append(IntervalBlock(steps: plain, iterations: 1)) }
        plain = []
    }

    mutating func plan(name: String?) -> WorkoutPlan {
        flush()
        return WorkoutPlan(
            .custom(CustomWorkout(activity: .cycling, location: .indoor, displayName: name, blocks: blocks)))
    }
}

/// A number as a file writes it: up to `digits` decimals, no trailing zeros.
func decimal(_ value: Double, digits: Int = 4) -> String {
    var text = String(format: "%.\(digits)f", value)
    if text.contains(".") {
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
    }
    return text == "-0" ? "0" : text
}
