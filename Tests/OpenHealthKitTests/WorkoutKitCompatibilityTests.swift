import Foundation
import Testing

/// COMPATIBILITY.md's WorkoutKit part, checked against Apple's list of WorkoutKit's public declarations
/// (`Fixtures/WorkoutKitSymbols.txt`, the 26.1 SDK's Swift interface) and the symbol graph of the compiled
/// `OpenWorkoutKit` module: each declaration is present (declared with Apple's spelling, effects and overload
/// parameter type; a conformance, or a member the compiler synthesizes from one, by the conformance) or listed
/// absent with a reason. Apple's default arguments are checked by compiling calls that leave them out
/// (`OpenWorkoutKitTests/AppleDefaultsTests`).
///
/// To regenerate the table (rows keep their reasons):
/// `OPENHEALTHKIT_WRITE_COMPATIBILITY=1 swift test --filter WorkoutKitCompatibilityTests`.
@Suite(.timeLimit(.minutes(1))) struct WorkoutKitCompatibilityTests {
    static let listURL = SymbolGraph.root.appendingPathComponent(
        "Tests/OpenHealthKitTests/Fixtures/WorkoutKitSymbols.txt")
    static let heading = "## WorkoutKit's symbols"

    /// One line of Apple's list: `Type|member|availability|note`.
    struct Declaration {
        var type: String
        var member: String
        var note: String

        /// How COMPATIBILITY.md names it: `Type`, `Type: Protocol` or `Type.member` with its suffixes.
        var key: String {
            if member.isEmpty { return type }
            if member.hasPrefix(":") { return type + member }
            return "\(type).\(member)"
        }

        /// The protocol whose conformance makes this declaration exist, if it is one or is synthesized from one.
        var conformance: String? {
            if member.hasPrefix(": ") { return String(member.dropFirst(2)) }
            guard note.hasPrefix("synthesized by ") else { return nil }
            return String(note.dropFirst("synthesized by ".count).prefix { $0 != ";" })
        }

        var name: String { String(member.split(separator: " ").first ?? "") }
        var flags: [Substring] { member.split(separator: " ").dropFirst().map { $0 } }

        func isDeclared(in graph: SymbolGraph) -> Bool {
            if let conformance { return graph.conformances[type]?.contains(conformance) == true }
            let path = member.isEmpty ? type : "\(type).\(name)"
            return graph.symbols(at: path).contains { symbol in
                let declaration = symbol.declaration
                for flag in flags {
                    switch flag {
                    case "async": if !declaration.contains(" async") { return false }
                    case "throws": if !declaration.contains("throws") { return false }
                    default:
                        if flag.hasPrefix("[") {
                            let type = flag.dropFirst().dropLast()
                            if !declaration.contains(": \(type),") && !declaration.contains(": \(type))") {
                                return false
                            }
                        }
                    }
                }
                if note.hasPrefix("static"), !declaration.contains("static") { return false }
                return true
            }
        }

        static func all() throws -> [Declaration] {
            try String(contentsOf: listURL, encoding: .utf8).split(separator: "\n").compactMap { line in
                guard !line.hasPrefix("#"), !line.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
                let cells = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
                guard cells.count >= 4 else { return nil }
                // Overloads told apart by a parameter type are written `name [T]`, which has a space too.
                return Declaration(type: cells[0], member: cells[1], note: cells[3...].joined(separator: "|"))
            }
        }
    }

    static func rows() throws -> [CompatibilityTableTests.Row] {
        let text = CompatibilityTableTests.workoutKitPart(
            try String(contentsOf: CompatibilityTableTests.tableURL, encoding: .utf8))
        guard let start = text.range(of: heading) else { return [] }
        return CompatibilityTableTests.rows(of: String(text[start.upperBound...]))
    }

    @Test func everyWorkoutKitDeclarationIsPresentOrAbsentWithAReason() async throws {
        let graph = try await SymbolGraph.load(module: "OpenWorkoutKit")
        let declarations = try Declaration.all()
        #expect(declarations.count == 300, "Apple's list has 300 declarations")
        let rows = try Self.rows()
        #expect(
            rows.map(\.symbol) == declarations.map(\.key),
            "COMPATIBILITY.md's WorkoutKit table lists Apple's declarations in the list's order: regenerate it")
        for (row, declaration) in zip(rows, declarations) where row.symbol == declaration.key {
            let declared = declaration.isDeclared(in: graph)
            switch row.status {
            case "present":
                #expect(declared, "COMPATIBILITY.md:\(row.line): \(row.symbol) is marked present but is not declared")
            case "different":
                #expect(declared, "COMPATIBILITY.md:\(row.line): \(row.symbol) is marked different but not declared")
                #expect(!row.why.isEmpty, "COMPATIBILITY.md:\(row.line): \(row.symbol) needs a reason")
            case "absent":
                #expect(!declared, "COMPATIBILITY.md:\(row.line): \(row.symbol) is declared now: mark it present")
                #expect(!row.why.isEmpty, "COMPATIBILITY.md:\(row.line): \(row.symbol) needs a reason")
            default:
                Issue.record("COMPATIBILITY.md:\(row.line): unknown status '\(row.status)'")
            }
        }
        let absent = rows.filter { $0.status == "absent" }.count
        let text = try String(contentsOf: CompatibilityTableTests.tableURL, encoding: .utf8)
        #expect(text.contains(Self.countsLine(rows)), "COMPATIBILITY.md should say: \(Self.countsLine(rows))")
        #expect(absent <= 1, "only openInWorkoutApp() (watchOS only) may be absent")
    }

    /// The reader itself: a conformance, a synthesized member, an overload by parameter type, an absent member.
    @Test func theLookupTellsDeclarationsApart() async throws {
        let graph = try await SymbolGraph.load(module: "OpenWorkoutKit")
        func declared(_ type: String, _ member: String, _ note: String = "") -> Bool {
            Declaration(type: type, member: member, note: note).isDeclared(in: graph)
        }
        #expect(declared("WorkoutPlan", ": Identifiable"))
        #expect(!declared("WorkoutPlan", ": Comparable"))
        #expect(declared("IntervalStep.Purpose", "hashValue", "synthesized by Hashable; var: Int { get }"))
        #expect(declared("WorkoutAlert", "power(_:unit:) [ClosedRange<Double>]", "static func"))
        #expect(!declared("WorkoutAlert", "power(_:unit:) [Int]", "static func"))
        #expect(declared("WorkoutPlan", "init(from:) throws"))
        #expect(declared("HKWorkout", "workoutPlan async throws"))
        #expect(!declared("WorkoutPlan", "openInWorkoutApp() async throws"))
    }

    static func countsLine(_ rows: [CompatibilityTableTests.Row]) -> String {
        let count = { (status: String) in rows.filter { $0.status == status }.count }
        return "Counts of WorkoutKit's \(rows.count) declarations: \(count("present")) present, "
            + "\(count("different")) different, \(count("absent")) absent."
    }

    /// Writes COMPATIBILITY.md's WorkoutKit part from Apple's list and the compiled module, keeping each row's
    /// reason.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["OPENHEALTHKIT_WRITE_COMPATIBILITY"] != nil))
    func writeTable() async throws {
        let graph = try await SymbolGraph.load(module: "OpenWorkoutKit")
        var old: [String: CompatibilityTableTests.Row] = [:]
        for row in try Self.rows() { old[row.symbol] = row }
        var rows: [CompatibilityTableTests.Row] = []
        for declaration in try Declaration.all() {
            let before = old[declaration.key]
            let status: String
            let why: String
            if declaration.isDeclared(in: graph) {
                (status, why) = before?.status == "different" ? ("different", before!.why) : ("present", "")
            } else {
                (status, why) = ("absent", before?.status == "absent" ? before!.why : "")
            }
            rows.append(.init(symbol: declaration.key, status: status, why: why, section: .apple, line: 0))
        }
        let fullText = try String(contentsOf: CompatibilityTableTests.tableURL, encoding: .utf8)
        let healthKit = CompatibilityTableTests.healthKitPart(fullText)
        let part = CompatibilityTableTests.workoutKitPart(fullText)
        var prose = ""
        if let start = part.range(of: "\n## "), let end = part.range(of: "\n" + Self.heading),
            start.lowerBound < end.lowerBound
        {
            prose = String(part[start.lowerBound ..< end.lowerBound]).trimmingCharacters(in: .newlines) + "\n\n"
        }
        let table =
            (["| Symbol | Status | Why |", "|---|---|---|"]
            + rows.map { "| `\($0.symbol)` | \($0.status) | \($0.why) |" }).joined(separator: "\n")
        let text = """
            # WorkoutKit (OpenWorkoutKit)

            Generated from Apple's list of WorkoutKit's public declarations in the 26.1 SDK's Swift interface
            (`Tests/OpenHealthKitTests/Fixtures/WorkoutKitSymbols.txt`, one per line `Type|member|availability|note`)
            and checked against the symbol graph of the compiled `OpenWorkoutKit` module by
            `Tests/OpenHealthKitTests/WorkoutKitCompatibilityTests.swift`: a type or member by its path, its effects
            (` async`, ` throws`) and, for overloads, its first parameter's type (`[T]`); a conformance (`Type: P`) and
            the members the compiler synthesizes from one by the conformance. Apple's default arguments are checked
            by calls that leave them out (`Tests/OpenWorkoutKitTests/AppleDefaultsTests.swift`). An app changes only
            `import WorkoutKit` to `import OpenWorkoutKit`.

            \(Self.countsLine(rows))

            \(prose)\(Self.heading)

            \(table)

            """
        try (healthKit.trimmingCharacters(in: .newlines) + "\n\n" + text).write(
            to: CompatibilityTableTests.tableURL, atomically: true, encoding: .utf8)
    }
}
