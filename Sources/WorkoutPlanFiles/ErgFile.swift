import Foundation
import OpenHealthKit
import OpenWorkoutKit

/// `.erg` and `.mrc` files (the format of CompuTrainer, read by GoldenCheetah, TrainerRoad and others): a
/// `[COURSE HEADER]` (VERSION, UNITS, DESCRIPTION, FILE NAME, then `MINUTES WATTS` or `MINUTES PERCENT`) and
/// `[COURSE DATA]`, one point per line, minutes and watts (`.erg`) or percent of FTP (`.mrc`); power goes in a
/// straight line from each point to the next.
///
/// Reading: a segment whose two points have the same power is a step with a power threshold alert; one whose
/// power changes is a ramp, as steady steps of at most a minute at the ramp's value in their middle; two points at
/// the same minute are a jump. Writing: each step (time goal, power in watts: a threshold's value, a range's
/// middle) as two points at its start and end. A step without a power target, or with another target (a heart
/// rate, a zone), cannot be written: the format holds nothing but power.
enum ErgFile {
    static func read(
        _ data: Data, percent: Bool, ftp: Double?, fallbackName: String
    ) throws(PlanFileError)
        -> WorkoutPlan
    {
        guard let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1) else {
            throw PlanFileError("is not text")
        }
        var inHeader = false
        var inData = false
        var sawHeader = false
        var columns: (String, String)?
        var name: String?
        var points: [(minutes: Double, value: Double, line: Int)] = []
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            let number = index + 1
            if line.isEmpty || line.hasPrefix(";") || line.hasPrefix("#") { continue }
            switch line.uppercased() {
            case "[COURSE HEADER]":
                inHeader = true
                sawHeader = true
                continue
            case "[END COURSE HEADER]":
                inHeader = false
                continue
            case "[COURSE DATA]":
                inData = true
                continue
            case "[END COURSE DATA]":
                inData = false
                continue
            default: break
            }
            if inHeader {
                if let equals = line.firstIndex(of: "=") {
                    let key = line[..<equals].trimmingCharacters(in: .whitespaces).uppercased()
                    let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                    if key == "DESCRIPTION", !value.isEmpty { name = value }
                    if key == "FILE NAME", name == nil, !value.isEmpty { name = value }
                } else {
                    let words = line.split(whereSeparator: \.isWhitespace).map { $0.uppercased() }
                    if words.count == 2 { columns = (words[0], words[1]) }
                }
                continue
            }
            guard inData else {
                if line.hasPrefix("[") { continue }
                guard sawHeader else {
                    throw PlanFileError("has no [COURSE HEADER], so it is not an .erg or .mrc file")
                }
                throw PlanFileError("line \(number) ('\(line.prefix(40))') is outside the course header and data")
            }
            let fields = line.split(whereSeparator: { $0.isWhitespace || $0 == "," })
            guard fields.count >= 2, let minutes = Double(fields[0]), let value = Double(fields[1]),
                minutes.isFinite, value.isFinite
            else {
                throw PlanFileError("line \(number) ('\(line.prefix(40))') is not two numbers, minutes and power")
            }
            points.append((minutes, value, number))
        }
        guard sawHeader else { throw PlanFileError("has no [COURSE HEADER], so it is not an .erg or .mrc file") }
        let expected = percent ? "PERCENT" : "WATTS"
        guard let columns, columns.0 == "MINUTES", columns.1 == expected else {
            throw PlanFileError(
                "does not say 'MINUTES \(expected)' in its header (a .\(percent ? "mrc" : "erg") file gives minutes and \(percent ? "percent of FTP" : "watts"))"
            )
        }
        guard points.count >= 2 else { throw PlanFileError("has no steps (fewer than two points)") }
        func watts(_ value: Double) -> Double { percent ? value / 100 * (ftp ?? 0) : value }
        var assembler = PlanAssembler()
        for (first, second) in zip(points, points.dropFirst()) {
            let seconds = (second.minutes - first.minutes) * 60
            guard seconds >= 0 else {
                throw PlanFileError(
                    "line \(second.line) goes back in time (\(second.minutes) after \(first.minutes) minutes)")
            }
            if seconds == 0 { continue }
            let low = watts(first.value)
            let high = watts(second.value)
            let threshold = ftp.map { 0.6 * $0 } ?? 0
            if low == high {
                assembler.add(PlanAssembler.step(seconds: seconds, watts: low, name: nil, recovery: low < threshold))
            } else {
                for piece in PowerSegment.ramp(from: low, to: high, seconds: seconds) {
                    assembler.add(
                        PlanAssembler.step(
                            seconds: piece.seconds, watts: piece.watts, name: "Ramp", recovery: piece.watts < threshold)
                    )
                }
            }
        }
        let plan = assembler.plan(name: name ?? fallbackName)
        if case .custom(let custom) = plan.workout, custom.blocks.isEmpty {
            throw PlanFileError("has no steps (every point is at the same minute)")
        }
        return plan
    }

    /// `.erg` when `ftp` is nil, else `.mrc` (percent of `ftp`).
    static func write(_ plan: WorkoutPlan, ftp: Double?) throws(PlanFileError) -> Data {
        let format = ftp == nil ? "erg" : "mrc"
        let segments = try PowerSegment.segments(of: plan, format: format)
        var lines = [
            "[COURSE HEADER]", "VERSION = 2", "UNITS = ENGLISH",
            "DESCRIPTION = \(name(of: plan) ?? "Workout")",
            "FILE NAME = \(name(of: plan) ?? "Workout").\(format)",
            ftp == nil ? "MINUTES WATTS" : "MINUTES PERCENT", "[END COURSE HEADER]", "[COURSE DATA]",
        ]
        var seconds = 0.0
        for (index, segment) in segments.enumerated() {
            guard let watts = segment.watts else {
                throw PlanFileError(
                    "Step \(index + 1) has no power target, and a .\(format) file holds nothing but power")
            }
            let value = ftp.map { decimal(watts / $0 * 100, digits: 2) } ?? decimal(watts, digits: 1)
            lines.append("\(decimal(seconds / 60))\t\(value)")
            seconds += segment.seconds
            lines.append("\(decimal(seconds / 60))\t\(value)")
        }
        lines.append("[END COURSE DATA]")
        return Data((lines.joined(separator: "\n") + "\n").utf8)
    }

    static func name(of plan: WorkoutPlan) -> String? {
        if case .custom(let custom) = plan.workout { return custom.displayName }
        return nil
    }
}
