import Foundation
import OpenHealthKit
import OpenWorkoutKit

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Zwift's `.zwo` workout files: `<workout_file>` with a `<name>`, a `<sportType>` (bike) and a `<workout>` of
/// `SteadyState`, `Warmup`/`Cooldown`/`Ramp` (PowerLow to PowerHigh), `IntervalsT` (Repeat × OnDuration at
/// OnPower, OffDuration at OffPower), `FreeRide` and `MaxEffort`; durations in seconds, power as fractions of FTP.
///
/// Reading: a steady state is a step with a power threshold alert (FTP × fraction, in watts); a ramp, which a
/// plan's step cannot hold, is steady steps of at most a minute each at the ramp's value in their middle; an
/// `IntervalsT` is a block of a work and a recovery step repeated; a free ride or max effort is a timed step with no
/// target. Text events and other children of a step are ignored. Writing: each step's power (a threshold's value,
/// a range's middle) as a `SteadyState`, a block of a work and a recovery step repeated more than once as an
/// `IntervalsT`, a step without target as a `FreeRide`; other targets and goals other than time cannot be written.
enum ZwiftWorkoutFile {
    struct Element {
        var name: String
        var attributes: [String: String]
    }

    final class Delegate: NSObject, XMLParserDelegate {
        var root: String?
        var path: [String] = []
        var name = ""
        var sportType = ""
        var steps: [Element] = []
        var sawWorkout = false
        /// Whether the root element ended: a document cut short may parse without an error.
        var closed = false
        var text = ""

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if root == nil { root = elementName }
            if path == ["workout_file", "workout"] {
                steps.append(Element(name: elementName, attributes: attributes))
            }
            if path == ["workout_file"] && elementName == "workout" { sawWorkout = true }
            path.append(elementName)
            text = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
        ) {
            if path == ["workout_file", "name"] { name = text.trimmingCharacters(in: .whitespacesAndNewlines) }
            if path == ["workout_file", "sportType"] {
                sportType = text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            path.removeLast()
            if path.isEmpty { closed = true }
        }
    }

    static func read(_ data: Data, ftp: Double) throws(PlanFileError) -> WorkoutPlan {
        let delegate = Delegate()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        guard parser.parse(), delegate.closed else {
            let line = parser.lineNumber
            throw PlanFileError("is not well-formed XML (line \(line): cut short or malformed)")
        }
        guard delegate.root == "workout_file", delegate.sawWorkout else {
            throw PlanFileError(
                "is XML but not a Zwift workout (no <workout_file> with a <workout>; its root is <\(delegate.root ?? "")>)"
            )
        }
        guard delegate.sportType.isEmpty || delegate.sportType.lowercased() == "bike" else {
            throw PlanFileError(
                "is a Zwift workout for '\(delegate.sportType)'; only bike workouts (power targets) are read")
        }
        var assembler = PlanAssembler()
        for (index, element) in delegate.steps.enumerated() {
            let place = "<\(element.name)> (step \(index + 1))"
            func number(_ key: String) throws(PlanFileError) -> Double {
                guard let text = element.attributes[key] else {
                    throw PlanFileError("\(place) has no \(key)")
                }
                guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else {
                    throw PlanFileError("\(place) has \(key)=\"\(text)\", not a number")
                }
                return value
            }
            func watts(_ key: String) throws(PlanFileError) -> Double { try number(key) * ftp }
            func step(_ seconds: Double, _ watts: Double?, _ name: String?) -> IntervalStep {
                PlanAssembler.step(
                    seconds: seconds, watts: watts, name: name, recovery: (watts ?? ftp) < 0.6 * ftp)
            }
            switch element.name {
            case "SteadyState", "SolidState":
                assembler.add(step(try number("Duration"), try watts("Power"), nil))
            case "Warmup", "Cooldown", "Ramp":
                let label = element.name == "Warmup" ? "Warm-up" : element.name == "Cooldown" ? "Cool-down" : "Ramp"
                let pieces = PowerSegment.ramp(
                    from: try watts("PowerLow"), to: try watts("PowerHigh"), seconds: try number("Duration"))
                guard !pieces.isEmpty else { throw PlanFileError("\(place) lasts no time") }
                for piece in pieces { assembler.add(step(piece.seconds, piece.watts, label)) }
            case "IntervalsT":
                let repeats = try number("Repeat")
                guard repeats == repeats.rounded(), abs(repeats) <= 1e9 else {
                    throw PlanFileError("\(place) has Repeat=\"\(repeats)\", not a whole number")
                }
                assembler.addRepeated(
                    [
                        PlanAssembler.step(
                            seconds: try number("OnDuration"), watts: try watts("OnPower"), name: "On", recovery: false),
                        PlanAssembler.step(
                            seconds: try number("OffDuration"), watts: try watts("OffPower"), name: "Off",
                            recovery: true),
                    ], iterations: Int(repeats))
            case "FreeRide":
                assembler.add(step(try number("Duration"), nil, "Free ride"))
            case "MaxEffort":
                assembler.add(step(try number("Duration"), nil, "Max effort"))
            case "textevent", "TextEvent":
                continue
            default:
                throw PlanFileError("has a step <\(element.name)> (step \(index + 1)) that is not a Zwift workout step")
            }
        }
        let plan = assembler.plan(name: delegate.name.isEmpty ? nil : delegate.name)
        guard !assembler.blocks.isEmpty else { throw PlanFileError("has no steps") }
        return plan
    }

    static func write(_ plan: WorkoutPlan, ftp: Double) throws(PlanFileError) -> Data {
        guard case .custom(let custom) = plan.workout else {
            throw PlanFileError("The plan is not a custom workout of timed steps, which is all a .zwo file can hold")
        }
        // Checked as a whole first: every step timed, every target power in watts.
        _ = try PowerSegment.segments(of: plan, format: "zwo")
        var lines: [String] = []
        func fraction(_ watts: Double) -> String { decimal(watts / ftp) }
        func line(_ step: WorkoutStep) throws(PlanFileError) -> String {
            let segment = try PowerSegment.segments(of: single(step), format: "zwo")[0]
            if let watts = segment.watts {
                return "<SteadyState Duration=\"\(decimal(segment.seconds))\" Power=\"\(fraction(watts))\"/>"
            }
            return "<FreeRide Duration=\"\(decimal(segment.seconds))\"/>"
        }
        if let warmup = custom.warmup { lines.append(try line(warmup)) }
        for block in custom.blocks {
            if block.iterations > 1, block.steps.count == 2, block.steps[0].purpose == .work,
                block.steps[1].purpose == .recovery,
                let on = try PowerSegment.segments(of: single(block.steps[0].step), format: "zwo").first,
                let off = try PowerSegment.segments(of: single(block.steps[1].step), format: "zwo").first,
                let onWatts = on.watts, let offWatts = off.watts
            {
                lines.append(
                    "<IntervalsT Repeat=\"\(block.iterations)\" OnDuration=\"\(decimal(on.seconds))\" "
                        + "OffDuration=\"\(decimal(off.seconds))\" OnPower=\"\(fraction(onWatts))\" "
                        + "OffPower=\"\(fraction(offWatts))\"/>")
            } else {
                for _ in 0 ..< max(block.iterations, 0) {
                    for interval in block.steps { lines.append(try line(interval.step)) }
                }
            }
        }
        if let cooldown = custom.cooldown { lines.append(try line(cooldown)) }
        let name = xmlEscaped(custom.displayName ?? "Workout")
        let text = """
            <workout_file>
                <author>OpenHealthKit</author>
                <name>\(name)</name>
                <description></description>
                <sportType>bike</sportType>
                <tags/>
                <workout>
            \(lines.map { "        " + $0 }.joined(separator: "\n"))
                </workout>
            </workout_file>

            """
        return Data(text.utf8)
    }

    static func single(_ step: WorkoutStep) -> WorkoutPlan {
        WorkoutPlan(
            .custom(
                CustomWorkout(activity: .cycling, blocks: [IntervalBlock(steps: [IntervalStep(.work, step: step)])])))
    }

    static func xmlEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
