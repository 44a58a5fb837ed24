import Foundation
import Testing

/// COMPATIBILITY.md is generated from Apple's list of HealthKit's workout symbols (`Fixtures/AppleSDKSymbols.txt`)
/// and checked against the symbol graph of the compiled module (`SymbolGraph`), not against our own sources: a
/// symbol of Apple's that OpenHealthKit does not declare with Apple's spelling fails here unless its row says
/// absent, and one marked absent that is declared now fails until the row says present.
///
/// To regenerate the table after adding symbols (keeping every row's reason):
/// `OPENHEALTHKIT_WRITE_COMPATIBILITY=1 swift test --filter CompatibilityTableTests`.
@Suite(.timeLimit(.minutes(1))) struct CompatibilityTableTests {
    static let tableURL = SymbolGraph.root.appendingPathComponent("COMPATIBILITY.md")

    enum Section: String, CaseIterable {
        case apple = "## HealthKit's workout symbols"
        case further = "## Further HealthKit symbols"
        case own = "## OpenHealthKit's additions"
    }

    struct Row {
        var symbol: String
        var status: String
        var why: String
        var section: Section
        var line: Int
    }

    /// Where WorkoutKit's part of COMPATIBILITY.md starts (checked by `WorkoutKitCompatibilityTests`).
    static let workoutKitHeading = "\n# WorkoutKit"

    /// The HealthKit part of the table's text: everything before WorkoutKit's part.
    static func healthKitPart(_ text: String) -> String {
        text.range(of: workoutKitHeading).map { String(text[..<$0.lowerBound]) } ?? text
    }

    /// WorkoutKit's part of the table's text, kept as written when the HealthKit part is regenerated.
    static func workoutKitPart(_ text: String) -> String {
        text.range(of: workoutKitHeading).map { String(text[$0.lowerBound...]) } ?? ""
    }

    static func rows(of text: String) -> [Row] {
        var section = Section.apple
        return healthKitPart(text).split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap {
            index, line in
            if let heading = Section.allCases.first(where: { line.hasPrefix($0.rawValue) }) { section = heading }
            guard line.hasPrefix("| `") else { return nil }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 4 else { return nil }
            return Row(
                symbol: cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")), status: cells[2],
                why: cells[3...].dropLast().joined(separator: "|"), section: section, line: index + 1)
        }
    }

    static func rows() throws -> [Row] { rows(of: try String(contentsOf: tableURL, encoding: .utf8)) }

    /// The symbol a row names (Apple's rows by their place in Apple's list).
    static func symbol(of row: Row) -> AppleSymbol { AppleSymbol(key: row.symbol) }

    @Test func everyAppleSymbolHasARowThatAgreesWithTheCompiledModule() async throws {
        let graph = try await SymbolGraph.load()
        let apple = try AppleSymbol.all()
        let rows = try Self.rows().filter { $0.section == .apple }
        #expect(
            rows.map(\.symbol) == apple.map(\.key),
            "COMPATIBILITY.md's first table lists Apple's symbols in the list's order: regenerate it")
        for (row, symbol) in zip(rows, apple) where row.symbol == symbol.key {
            Self.check(row, declared: symbol.isDeclared(in: graph), mismatch: { symbol.mismatch(in: graph) })
        }
    }

    @Test func furtherAndOwnRowsAgreeWithTheCompiledModule() async throws {
        let graph = try await SymbolGraph.load()
        for row in try Self.rows() where row.section != .apple {
            let symbol = Self.symbol(of: row)
            if row.section == .own {
                #expect(
                    row.status == "OpenHealthKit",
                    "COMPATIBILITY.md:\(row.line): \(row.symbol) is in OpenHealthKit's additions")
            }
            Self.check(row, declared: symbol.isDeclared(in: graph), mismatch: { symbol.mismatch(in: graph) })
        }
    }

    static func check(_ row: Row, declared: Bool, mismatch: () -> String) {
        switch row.status {
        case "present":
            #expect(declared, "COMPATIBILITY.md:\(row.line): \(row.symbol) is marked present but is \(mismatch())")
        case "different", "OpenHealthKit":
            #expect(
                declared, "COMPATIBILITY.md:\(row.line): \(row.symbol) is marked \(row.status) but is \(mismatch())")
            #expect(!row.why.isEmpty, "COMPATIBILITY.md:\(row.line): \(row.symbol) needs a reason")
        case "absent":
            #expect(!declared, "COMPATIBILITY.md:\(row.line): \(row.symbol) is declared now: mark it present")
            #expect(!row.why.isEmpty, "COMPATIBILITY.md:\(row.line): \(row.symbol) needs a reason")
        default:
            Issue.record("COMPATIBILITY.md:\(row.line): unknown status '\(row.status)'")
        }
    }

    @Test func everyPublicTypeHasARowAndTheCountsAreTheRows() async throws {
        let graph = try await SymbolGraph.load()
        let rows = try Self.rows()
        let listed = Set(rows.map(\.symbol))
        let missing = graph.topLevelTypes.filter { !listed.contains($0) }.sorted()
        #expect(missing.isEmpty, "public HK and CL types missing from COMPATIBILITY.md: \(missing)")
        #expect(Set(rows.map(\.symbol)).count == rows.count, "a symbol is listed twice")
        let text = Self.healthKitPart(try String(contentsOf: Self.tableURL, encoding: .utf8))
        #expect(text.contains(Self.countsLine(rows)), "COMPATIBILITY.md should say: \(Self.countsLine(rows))")
    }

    /// The reader itself: overloads told apart by parameter type, async forms, results, nested types, protocols.
    @Test func theLookupTellsOverloadsApart() async throws {
        let graph = try await SymbolGraph.load()
        func declared(_ key: String, note: String = "") -> Bool {
            AppleSymbol(key: key, note: note).isDeclared(in: graph)
        }
        #expect(declared("HKQuery.predicateForObjects(from:) [HKWorkout]"))
        #expect(declared("HKQuery.predicateForObjects(from:) [Set<HKDevice>]"))
        #expect(!declared("HKQuery.predicateForObjects(from:) [HKWorkoutActivity]"))
        #expect(declared("HKHealthStore.save(_:) async [[HKObject]]"))
        #expect(declared("HKHealthStore.save(_:withCompletion:) [HKObject]"))
        #expect(!declared("HKHealthStore.save(_:) async [HKWorkout]"))
        #expect(declared("HKHealthStore.deleteObjects(of:predicate:) async -> Int"))
        #expect(!declared("HKHealthStore.deleteObjects(of:predicate:) async -> Bool"))
        #expect(!declared("HKHealthStore.requestAuthorization(toShare:)"))
        #expect(declared("HKWorkoutSession.init(healthStore:configuration:)", note: "throws"))
        #expect(!declared("HKWorkoutSession.pause()", note: "throws"))
        #expect(declared("HKError.Code"))
        #expect(declared("HKWorkoutSessionDelegate.workoutSession(_:didChangeTo:from:date:)"))
        #expect(declared("HKWorkoutSessionState.running"))
        #expect(declared("HKMetadataKeyIndoorWorkout"))
        #expect(!declared("HKMetadataKeyNotInHealthKit"))
    }

    static func countsLine(_ rows: [Row]) -> String {
        let count = { (status: String) in rows.filter { $0.status == status && $0.section == .apple }.count }
        let total = rows.filter { $0.section == .apple }.count
        let own = rows.filter { $0.status == "OpenHealthKit" }.count
        return "Counts of Apple's \(total) symbols: \(count("present")) present, \(count("different")) different, "
            + "\(count("absent")) absent; \(own) OpenHealthKit additions."
    }

    /// Writes COMPATIBILITY.md from Apple's list and the compiled module, keeping every row's status and reason
    /// where it still holds: a symbol now declared is present (or stays different, with its reason); one not
    /// declared is absent with the reason its row gave (empty for a new one: the check then asks for one).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["OPENHEALTHKIT_WRITE_COMPATIBILITY"] != nil))
    func writeTable() async throws {
        let graph = try await SymbolGraph.load()
        let old = try Self.rows()
        var byKey: [String: Row] = [:]
        for row in old { byKey[row.symbol] = byKey[row.symbol] ?? row }
        func previous(_ key: String) -> Row? {
            if let row = byKey[key] { return row }
            // Rows written before the list named overloads' suffixes.
            let bare = String(key.split(separator: " ").first ?? "")
            return byKey[bare]
        }
        func status(_ symbol: AppleSymbol) -> (String, String) {
            let before = previous(symbol.key)
            if symbol.isDeclared(in: graph) {
                if let before, before.status == "different" { return (before.status, before.why) }
                return ("present", "")
            }
            return ("absent", before?.status == "absent" ? before!.why : "")
        }
        var apple: [Row] = []
        var used = Set<String>()
        for symbol in try AppleSymbol.all() {
            let (status, why) = status(symbol)
            apple.append(Row(symbol: symbol.key, status: status, why: why, section: .apple, line: 0))
            used.insert(symbol.key)
            if previous(symbol.key) != nil { used.insert(String(symbol.key.split(separator: " ").first ?? "")) }
        }
        let appleTypes = Set(try AppleSymbol.all().map(\.type))
        var further: [Row] = []
        var own: [Row] = []
        for row in old where !used.contains(row.symbol) {
            let symbol = Self.symbol(of: row)
            if row.status == "OpenHealthKit" {
                guard symbol.isDeclared(in: graph) else { continue }
                own.append(Row(symbol: row.symbol, status: row.status, why: row.why, section: .own, line: 0))
            } else {
                let declared = symbol.isDeclared(in: graph)
                let status = declared ? (row.status == "absent" ? "present" : row.status) : "absent"
                further.append(
                    Row(
                        symbol: row.symbol, status: status,
                        why: status == "absent" && row.status != "absent" ? "" : row.why,
                        section: .further, line: 0))
            }
        }
        let listed = Set((apple + further + own).map(\.symbol))
        for type in graph.topLevelTypes where !listed.contains(type) && !appleTypes.contains(type) {
            own.append(
                Row(
                    symbol: type, status: "OpenHealthKit",
                    why: "OpenHealthKit's own type (not in HealthKit); see its doc comment.",
                    section: .own, line: 0))
        }
        further.sort { $0.symbol < $1.symbol }
        own.sort { $0.symbol < $1.symbol }
        func table(_ rows: [Row]) -> String {
            (["| Symbol | Status | Why |", "|---|---|---|"]
                + rows.map { "| `\($0.symbol)` | \($0.status) | \($0.why) |" })
                .joined(separator: "\n")
        }
        let all = apple + further + own
        // The prose between the counts and the first table (the differences that cut across symbols) is kept as
        // written.
        let oldText = try String(contentsOf: Self.tableURL, encoding: .utf8)
        var prose = ""
        if let start = oldText.range(of: "\n## "), let end = oldText.range(of: "\n" + Section.apple.rawValue),
            start.lowerBound < end.lowerBound
        {
            prose = String(oldText[start.lowerBound ..< end.lowerBound]).trimmingCharacters(in: .newlines) + "\n\n"
        }
        let text = """
            # Compatibility with HealthKit's workout API

            Generated from Apple's list of HealthKit's workout-related symbols in the 26 SDKs (headers and the Swift
            overlay: `Tests/OpenHealthKitTests/Fixtures/AppleSDKSymbols.txt`, one per line `Type|member|source|note`)
            and checked against the symbol graph of the compiled `OpenHealthKit` module by
            `Tests/OpenHealthKitTests/CompatibilityTableTests.swift`. Each of Apple's symbols is **present** (declared
            with Apple's spelling, labels, async shape and result, behaving as Apple documents), **different**
            (declared so, behaving differently on Linux: how and why) or **absent** (why). A symbol of the list that the
            module does not declare fails the test unless its row says absent; one marked absent that is declared fails
            until the row says present. Overloads are told apart as the list does: ` async`, `-> T` (the result),
            `[T]` (the first parameter's type).

            Then HealthKit symbols outside the list that earlier versions of this table tracked, and **OpenHealthKit**'s
            own public symbols in Apple's namespace shape (each documented as OpenHealthKit's in its doc comment).

            To regenerate after adding symbols (rows keep their reasons):
            `OPENHEALTHKIT_WRITE_COMPATIBILITY=1 swift test --filter CompatibilityTableTests`.

            \(Self.countsLine(all))

            \(prose)\(Section.apple.rawValue)

            \(table(apple))

            \(Section.further.rawValue) (outside the list)

            \(table(further))

            \(Section.own.rawValue)

            \(table(own))

            """ + Self.workoutKitPart(oldText).trimmingCharacters(in: .newlines)
            + (Self.workoutKitPart(oldText).isEmpty ? "" : "\n")
        try text.write(to: Self.tableURL, atomically: true, encoding: .utf8)
    }
}
