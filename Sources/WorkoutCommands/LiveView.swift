import FitnessSensors
import Foundation
import OpenHealthKit

/// What the live view shows at one instant: the library's one view model (``LiveWorkoutSnapshot``), which the page
/// served with `--serve` shows too. ``LiveMonitor`` and ``MirrorMonitor`` gather it; ``LiveView`` only formats it.
typealias LiveSnapshot = LiveWorkoutSnapshot

/// Formats a ``LiveSnapshot``: the block redrawn on a terminal and the plain lines printed when piped.
///
/// ```text
/// cycling   moving 12:04   elapsed 12:31   lap 3  2:10
/// heart rate 142 bpm   power 231 W (3 s 228 W)   cadence 88 rpm   speed 32.4 km/h
/// zone Z3 [░░░░░░░░░░|░░░░░░░░░░|██████████|░░░░░░░░░░|░░░░░░░░░░]
/// Z1 3:02  Z2 4:10  Z3 4:40  Z4 0:12  Z5 0:00
/// power zone Z3 188–224 W [░░░░░░|░░░░░░|██████|░░░░░░|░░░░░░|░░░░░░]
/// Polar H10 8A1C2D3E   connected   battery 81 %   skin contact yes
/// ASSIOMA42            lost 12 s
/// ```
enum LiveView {
    static func lines(_ s: LiveSnapshot) -> [String] {
        var lines: [String] = []
        var head =
            "\(s.activity)\(s.paused ? " (paused)" : "")   moving \(Format.duration(s.moving))   elapsed \(Format.duration(s.elapsed))"
        head += "   lap \(s.laps + 1)  \(Format.duration(s.lapTime))"
        lines.append(head)
        var values = ["heart rate \(s.heartRate.map { "\(Int($0.rounded())) bpm" } ?? "–")"]
        if s.showsPower {
            values.append("power \(watts(s.power)) (3 s \(watts(s.power3s)))")
        }
        if s.showsCadence {
            values.append("cadence \(s.cadence.map { "\(Int($0.rounded())) \(s.cadenceUnit)" } ?? "–")")
        }
        if s.showsSpeed { values.append("speed \(s.speed.map { String(format: "%.1f km/h", $0 * 3.6) } ?? "–")") }
        lines.append(values.joined(separator: "   "))
        lines.append(zoneLine("zone", s.zone, s.zoneBoundaries, unit: "bpm"))
        lines.append(
            s.zoneTimes.enumerated().map { "Z\($0.offset + 1) \(Format.duration($0.element))" }.joined(separator: "  "))
        if s.showsPower, !s.powerZoneBoundaries.isEmpty {
            lines.append(zoneLine("power zone", s.powerZone, s.powerZoneBoundaries, unit: "W"))
        }
        let width = max(12, (s.sensors.map(\.name.count).max() ?? 0) + 2)
        for sensor in s.sensors {
            var line = pad(sensor.name, width) + sensor.state
            if let battery = sensor.battery { line += "   battery \(battery) %" }
            if let contact = sensor.skinContact { line += "   skin contact \(contact ? "yes" : "no")" }
            lines.append(line)
        }
        lines += s.machines.map { machineLine($0, planned: s.plan != nil) }
        if let notice = s.trainerNotice { lines.append(notice) }
        if let plan = s.plan { lines += planLines(plan, power3s: s.power3s) }
        return lines
    }

    /// A running plan's step: `step 3/8 Work 1/3  target 280 W (ERG 284 W)  3 s 276 W  step avg 279 W  left 0:21
    /// next Recovery 1/3`, the shift when there is one, and why it only guides when it does.
    static func planLines(_ plan: PlanRunner.Status, power3s: Double?) -> [String] {
        guard !plan.finished else { return ["plan done"] }
        var parts = ["step \(plan.index + 1)/\(plan.count) \(plan.name)"]
        if let target = plan.target {
            var text = "target \(watts(target))"
            if let erg = plan.ergTarget, erg != Int(target.rounded()) { text += " (ERG \(erg) W)" }
            parts.append(text)
        } else {
            parts.append("no target")
        }
        parts.append("3 s \(watts(power3s))")
        parts.append("step avg \(watts(plan.averagePower))")
        if let seconds = plan.timeLeft {
            parts.append("left \(Format.duration(seconds))")
        } else if let metres = plan.distanceLeft {
            parts.append(String(format: "left %.2f km", metres / 1000))
        } else if let kcal = plan.energyLeft {
            parts.append("left \(Int(kcal.rounded())) kcal")
        } else {
            parts.append("until lap (l)")
        }
        if let next = plan.next { parts.append("next \(next)") }
        if plan.shift != 0 { parts.append("power \(plan.shift > 0 ? "+" : "")\(plan.shift) %") }
        var lines = [parts.joined(separator: "   ")]
        if let notice = plan.notice { lines.append(notice) }
        return lines
    }

    /// A trainer's control in words: `Trainer  ERG 200 W  (+/- 10 W)`, `ERG 210 W asked`, or why there is none;
    /// with a plan running, the keys shift the plan (`+/- 5 %`).
    static func machineLine(_ machine: LiveSnapshot.MachineLine, planned: Bool = false) -> String {
        let state = machine.state
        let keys = planned ? "(+/- \(LiveRecording.planShiftStep) %)" : "(+/- \(TrainerTargets.step) W)"
        var line = machine.name + "  "
        if let code = state.refusedControl {
            line += "refused control (\(code)); recording only"
        } else if let target = state.targetPower {
            line += "ERG \(target) W"
            if let asked = state.requestedTargetPower, asked != target { line += ", \(asked) W asked" }
            line += "  \(keys)"
        } else if let asked = state.requestedTargetPower {
            line += "ERG \(asked) W asked  \(keys)"
        } else {
            line += "no target  (+ or - sets one)"
        }
        if let error = state.lastError, state.refusedControl == nil { line += "  \(error)" }
        return line
    }

    /// The plain line printed once a minute when the output is not a terminal.
    static func minuteLine(_ s: LiveSnapshot) -> String {
        var parts = [
            "\(Format.duration(s.elapsed))  \(s.activity)  moving \(Format.duration(s.moving))",
            "heart rate \(s.heartRate.map { "\(Int($0.rounded())) bpm" } ?? "–")",
        ]
        if s.showsPower { parts.append("power \(watts(s.power)) (3 s \(watts(s.power3s)))") }
        if s.showsCadence {
            parts.append("cadence \(s.cadence.map { "\(Int($0.rounded())) \(s.cadenceUnit)" } ?? "–")")
        }
        parts.append("zone \(s.zone.map { "Z\($0 + 1)" } ?? "–")")
        return parts.joined(separator: "  ")
    }

    /// The zone in effect with its range and a bar of every zone (`zone Z2 137–147 bpm [░░░░░░|██████|…]`), or
    /// `zone –` when none is.
    private static func zoneLine(_ label: String, _ zone: Int?, _ boundaries: [Double], unit: String) -> String {
        guard let zone else { return "\(label) –" }
        let segments = (0 ... boundaries.count).map { String(repeating: $0 == zone ? "█" : "░", count: 6) }
        return "\(label) Z\(zone + 1) \(range(zone, boundaries)) \(unit) [\(segments.joined(separator: "|"))]"
    }

    private static func watts(_ value: Double?) -> String { value.map { "\(Int($0.rounded())) W" } ?? "–" }

    /// A zone's range in whole readings (bpm or W): `< 137`, `137–147`, `≥ 170`.
    static func range(_ zone: Int, _ boundaries: [Double]) -> String {
        guard !boundaries.isEmpty else { return "" }
        // The first whole reading in each zone above: a reading at or above a boundary is in the zone above it
        // (136.8 → 137; 158.4 → 159, since 158 bpm is still below it).
        let bounds = boundaries.map { Int($0.rounded(.up)) }
        if zone == 0 { return "< \(bounds[0])" }
        if zone >= bounds.count { return "≥ \(bounds[bounds.count - 1])" }
        return "\(bounds[zone - 1])–\(bounds[zone] - 1)"
    }
}
