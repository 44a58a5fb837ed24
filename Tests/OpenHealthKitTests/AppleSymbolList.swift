import Foundation

/// The list of HealthKit's workout-related symbols in Apple's 26 SDKs (headers and the Swift overlay), one per line
/// as `Type|member|source|note` (`Fixtures/AppleSDKSymbols.txt`), and how one is looked up in a symbol graph.
///
/// A member is written as Swift spells it, with what tells overloads apart after it: ` async` (the async form of a
/// completion-handler method), `-> T` (its result), `[T]` (the type of its first parameter). A note `throws` or
/// `async throws` asks for a throwing declaration.
struct AppleSymbol: Hashable, Sendable {
    var type: String
    var member: String
    var source: String
    var note: String

    /// How the symbol is written in COMPATIBILITY.md: `Type` or `Type.member` with its suffixes.
    var key: String { member.isEmpty ? type : "\(type).\(member)" }

    /// Parses a table key (`HKQuery.predicateForObjects(from:) [HKSource]`) back into a symbol.
    init(key: String, note: String = "") {
        let nameEnd = key.firstIndex(of: " ") ?? key.endIndex
        let path = key[..<nameEnd]
        // The member starts after the last dot outside parentheses.
        var depth = 0
        var split: String.Index?
        for index in path.indices {
            switch path[index] {
            case "(": depth += 1
            case ")": depth -= 1
            case "." where depth == 0: split = index
            default: break
            }
        }
        // A type nested in a type (HKError.Code) is a type, not a member: members start lowercase or with init.
        if let split, let first = path[path.index(after: split)...].first, first.isLowercase || first == "!" {
            type = String(path[..<split])
            member = String(path[path.index(after: split)...]) + key[nameEnd...]
        } else {
            type = String(path)
            member = String(key[nameEnd...]).trimmingCharacters(in: .whitespaces)
        }
        source = ""
        self.note = note
    }

    init(type: String, member: String, source: String, note: String) {
        self.type = type
        self.member = member
        self.source = source
        self.note = note
    }

    /// The symbol graph path: `Type.name(labels:)`.
    var path: String {
        let name = member.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
        return name.isEmpty ? type : "\(type).\(name)"
    }

    private var suffix: String {
        guard let space = member.firstIndex(of: " ") else { return "" }
        return String(member[member.index(after: space)...])
    }

    var isAsync: Bool { suffix.hasPrefix("async") }

    /// The result type after `->`, if the list names it.
    var result: String? {
        guard let arrow = suffix.range(of: "-> ") else { return nil }
        let rest = suffix[arrow.upperBound...]
        return String(rest.split(separator: " ").first ?? "")
    }

    /// The type of the first parameter, if the list names it (`[T]`).
    var parameterType: String? {
        guard let open = suffix.firstIndex(of: "["), suffix.hasSuffix("]") else { return nil }
        return String(suffix[suffix.index(after: open) ..< suffix.index(before: suffix.endIndex)])
    }

    var throwsRequired: Bool { note == "throws" || note == "async throws" }

    /// Whether the graph declares this symbol with the list's shape.
    func isDeclared(in graph: SymbolGraph) -> Bool {
        graph.symbols(at: path).contains { matches($0.declaration) }
    }

    /// Why the graph's declarations of this path do not match, for a failure message.
    func mismatch(in graph: SymbolGraph) -> String {
        let found = graph.symbols(at: path)
        if found.isEmpty { return "not declared" }
        return "declared differently: " + found.map(\.declaration).joined(separator: "; ")
    }

    private func matches(_ declaration: String) -> Bool {
        if isAsync, !declaration.contains(" async") { return false }
        if throwsRequired, !declaration.contains("throws") { return false }
        if let result, !declaration.contains("-> \(result)") { return false }
        if let parameterType, !declaration.contains(": \(parameterType))"), !declaration.contains(": \(parameterType),")
        {
            return false
        }
        return true
    }

    static let listURL = SymbolGraph.root.appendingPathComponent(
        "Tests/OpenHealthKitTests/Fixtures/AppleSDKSymbols.txt")

    /// Every symbol of the list, in its order.
    static func all() throws -> [AppleSymbol] {
        try String(contentsOf: listURL, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), !line.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard cells.count >= 3 else { return nil }
            return AppleSymbol(
                type: cells[0], member: cells[1], source: cells[2],
                note: cells.count > 3 ? cells[3...].joined(separator: "|") : "")
        }
    }
}
