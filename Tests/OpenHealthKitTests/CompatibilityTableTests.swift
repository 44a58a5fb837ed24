import Foundation
import Testing

/// COMPATIBILITY.md lists Apple's workout-related HealthKit symbols as present, different (and why) or absent (and
/// why), and OpenHealthKit's own public types. These tests hold it to the sources, so it cannot drift: a symbol
/// marked present or different must be declared in `Sources/OpenHealthKit`, one marked absent must not be (adding
/// it fails here until the table says so), and every public `HK` type of the sources must have a row.
@Suite struct CompatibilityTableTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Row {
        var symbol: String
        var status: String
        var why: String
        var line: Int
    }

    static func rows() throws -> [Row] {
        let text = try String(contentsOf: root.appendingPathComponent("COMPATIBILITY.md"), encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
            guard line.hasPrefix("| `") else { return nil }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { return nil }
            return Row(symbol: cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")), status: cells[2], why: cells[3],
                       line: index + 1)
        }
    }

    static func declarations() throws -> SourceDeclarations {
        try SourceDeclarations(directory: root.appendingPathComponent("Sources/OpenHealthKit"))
    }

    @Test func everyRowAgreesWithTheSources() throws {
        let declarations = try Self.declarations()
        let rows = try Self.rows()
        #expect(rows.count > 300, "the table has \(rows.count) rows")
        for row in rows {
            let declared = declarations.declares(row.symbol)
            switch row.status {
            case "present":
                #expect(declared, "COMPATIBILITY.md:\(row.line): \(row.symbol) is marked present but is not declared")
            case "different", "OpenHealthKit":
                #expect(declared, "COMPATIBILITY.md:\(row.line): \(row.symbol) is marked \(row.status) but is not declared")
                #expect(!row.why.isEmpty, "COMPATIBILITY.md:\(row.line): \(row.symbol) needs a reason")
            case "absent":
                #expect(!declared, "COMPATIBILITY.md:\(row.line): \(row.symbol) is declared now: mark it present")
                #expect(!row.why.isEmpty, "COMPATIBILITY.md:\(row.line): \(row.symbol) needs a reason")
            default:
                Issue.record("COMPATIBILITY.md:\(row.line): unknown status '\(row.status)'")
            }
        }
        #expect(Set(rows.map(\.symbol)).count == rows.count, "a symbol is listed twice")
        // The counts in the text are the rows' counts.
        let text = try String(contentsOf: Self.root.appendingPathComponent("COMPATIBILITY.md"), encoding: .utf8)
        let count = { (status: String) in rows.filter { $0.status == status }.count }
        let line = "Counts: \(count("present")) present, \(count("different")) different, \(count("absent")) absent, \(count("OpenHealthKit")) OpenHealthKit."
        #expect(text.contains(line), "COMPATIBILITY.md should say: \(line)")
    }

    @Test func everyPublicTypeHasARow() throws {
        let symbols = Set(try Self.rows().map(\.symbol))
        let missing = try Self.declarations().publicTypes.filter { !symbols.contains($0) }.sorted()
        #expect(missing.isEmpty, "public types missing from COMPATIBILITY.md: \(missing)")
    }

    /// The reader itself: overloads told apart by parameter type, labels, members of extensions and protocols.
    @Test func theReaderFindsWhatIsDeclared() throws {
        let declarations = try Self.declarations()
        #expect(declarations.declares("HKQuery.predicateForObjects(from: HKWorkout)"))
        #expect(declarations.declares("HKQuery.predicateForObjects(from: Set<HKDevice>)"))
        #expect(!declarations.declares("HKQuery.predicateForObjects(from: HKWorkoutActivity)"))
        #expect(declarations.declares("HKHealthStore.requestAuthorization(toShare:read:)"))
        #expect(!declarations.declares("HKHealthStore.requestAuthorization(toShare:)"))
        #expect(declarations.declares("HKWorkoutSessionDelegate.workoutSession(_:didChangeTo:from:date:)"))
        #expect(declarations.declares("HKWorkoutSessionState.running"))
        #expect(declarations.declares("HKMetadataKeyIndoorWorkout"))
        #expect(declarations.declares("HKWorkoutSession.startMirroringToCompanionDevice()"))
        #expect(!declarations.declares("HKHealthStore.splitTotalEnergy(_:start:end:resultsHandler:)"))
    }

    /// Writes every public declaration of an `HK` type to the file named by `OPENHEALTHKIT_LIST_SYMBOLS`, to help
    /// keep the table complete when symbols are added (not a check: skipped without the variable).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["OPENHEALTHKIT_LIST_SYMBOLS"] != nil))
    func listDeclaredSymbols() throws {
        let path = ProcessInfo.processInfo.environment["OPENHEALTHKIT_LIST_SYMBOLS"]!
        let lines = try Self.declarations().declarations.filter { $0.type.hasPrefix("HK") || ($0.type.isEmpty && $0.name.hasPrefix("HK")) }
            .map { declaration -> String in
                let base = declaration.type.isEmpty ? declaration.name : "\(declaration.type).\(declaration.name)"
                guard let labels = declaration.labels else { return base }
                return base + "(" + labels.map { "\($0):" }.joined() + ")"
            }
        try Set(lines).sorted().joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }
}
