import Foundation

/// The public declarations of `Sources/OpenHealthKit`, read from the source text: what the compatibility table is
/// checked against. A small reader, not a Swift parser: it follows `class`/`struct`/`enum`/`protocol`/`extension`
/// blocks by their braces (comments and string literals skipped) and reads `func`, `init`, `var`, `let`, `case`
/// and `typealias` declarations with their argument labels.
struct SourceDeclarations {
    struct Declaration: Hashable {
        /// The enclosing type ("" at top level).
        var type: String
        var name: String
        /// Argument labels of a function or initializer ("_" for none); nil for properties, cases and types.
        var labels: [String]?
        /// The parameters' types, in order.
        var parameterTypes: [String]
    }

    private(set) var declarations: [Declaration] = []
    /// Public and open types declared at top level.
    private(set) var publicTypes: Set<String> = []

    init(directory: URL) throws {
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        for file in files { read(try String(contentsOf: file, encoding: .utf8)) }
    }

    /// The text with comments and string literals blanked (same length, newlines kept).
    static func code(_ text: String) -> [Character] {
        var out: [Character] = []
        let space: Character = " ", newline: Character = "\n"
        let chars = Array(text)
        var i = 0
        while i < chars.count {
            if chars[i] == "/", i + 1 < chars.count, chars[i + 1] == "/" {
                while i < chars.count, chars[i] != "\n" { out.append(space); i += 1 }
            } else if chars[i] == "/", i + 1 < chars.count, chars[i + 1] == "*" {
                while i < chars.count, !(chars[i] == "*" && i + 1 < chars.count && chars[i + 1] == "/") {
                    out.append(chars[i] == newline ? newline : space); i += 1
                }
                out += [space, space]; i += 2
            } else if chars[i] == "\"" {
                let triple = i + 2 < chars.count && chars[i + 1] == "\"" && chars[i + 2] == "\""
                let length = triple ? 3 : 1
                for _ in 0 ..< length { out.append(space) }; i += length
                while i < chars.count {
                    if chars[i] == "\\" { out += [space, space]; i += 2; continue }
                    if triple, i + 2 < chars.count, chars[i] == "\"", chars[i + 1] == "\"", chars[i + 2] == "\"" {
                        out += [space, space, space]; i += 3; break
                    }
                    if !triple, chars[i] == "\"" { out.append(space); i += 1; break }
                    out.append(chars[i] == newline ? newline : space); i += 1
                }
            } else {
                out.append(chars[i]); i += 1
            }
        }
        return out
    }

    private mutating func read(_ text: String) {
        let code = Self.code(text)
        // Walk statements: split at braces, tracking a stack of (type name, public?, protocol?).
        var stack: [(name: String?, isPublic: Bool, isProtocol: Bool)] = []
        var statement = ""
        var parenDepth = 0
        func flush(opening: Bool) {
            let words = statement.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).map(String.init)
            defer { statement = "" }
            // Declarations count only directly inside a type's body (or at top level), never inside a function.
            if let top = stack.last, top.name == nil {
                if opening { stack.append((nil, false, false)) }
                return
            }
            let enclosing = stack.last
            let typeKeywords: Set = ["class", "struct", "enum", "protocol", "extension", "actor"]
            let memberKeywords: Set = ["func", "var", "let", "init", "subscript", "case"]
            if opening, let index = words.firstIndex(where: { typeKeywords.contains($0) }), index + 1 < words.count,
               !words[..<index].contains(where: { memberKeywords.contains($0) }), !memberKeywords.contains(words[index + 1]) {
                let name = String(words[index + 1].prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." })
                let modifiers = Set(words[..<index])
                let isPublic = modifiers.contains("public") || modifiers.contains("open") || words[index] == "extension"
                if words[index] != "extension", isPublic, enclosing == nil, name.hasPrefix("HK") { publicTypes.insert(name) }
                let qualified = words[index] == "extension" || enclosing == nil ? name : "\(enclosing!.name!).\(name)"
                if isPublic && words[index] != "extension" {
                    declarations.append(Declaration(type: enclosing?.name ?? "", name: name, labels: nil, parameterTypes: []))
                }
                stack.append((qualified, isPublic, words[index] == "protocol"))
                return
            }
            if opening { stack.append((nil, false, false)) }
            // Members of a type that is not public are not public.
            if let enclosing, !enclosing.isPublic { return }
            declare(words, in: enclosing.map { ($0.name ?? "", $0.isProtocol) })
        }
        for character in code {
            switch character {
            case "(": parenDepth += 1; statement.append(character)
            case ")": parenDepth -= 1; statement.append(character)
            case "{" where parenDepth == 0: flush(opening: true)
            case "}" where parenDepth == 0: flush(opening: false); if !stack.isEmpty { stack.removeLast() }
            case "\n" where parenDepth == 0:
                flush(opening: false)
            default: statement.append(character)
            }
        }
        flush(opening: false)
    }

    private mutating func declare(_ words: [String], in enclosing: (name: String, isProtocol: Bool)?) {
        guard let keywordIndex = words.firstIndex(where: { ["func", "init", "init?", "var", "let", "case", "typealias", "subscript"].contains($0)
            || $0.hasPrefix("init(") || $0.hasPrefix("init?(") || $0.hasPrefix("init<") }) else { return }
        let modifiers = Set(words[..<keywordIndex])
        let isPublic = modifiers.contains("public") || modifiers.contains("open") || enclosing?.isProtocol == true
            || (words[keywordIndex] == "case" && enclosing != nil)
        guard isPublic, !modifiers.contains("private"), !modifiers.contains("fileprivate") else { return }
        let rest = words[keywordIndex...].joined(separator: " ").replacingOccurrences(of: "`", with: "")
        let type = enclosing?.name ?? ""
        if rest.hasPrefix("init") {
            let (labels, types) = Self.parameters(rest)
            declarations.append(Declaration(type: type, name: "init", labels: labels, parameterTypes: types))
        } else if words[keywordIndex] == "func" {
            let after = rest.dropFirst(5)
            let name = String(after.prefix { $0 != "(" && $0 != "<" && $0 != " " })
            let (labels, types) = Self.parameters(String(after))
            declarations.append(Declaration(type: type, name: name, labels: labels, parameterTypes: types))
        } else if words[keywordIndex] == "case" {
            for item in words[(keywordIndex + 1)...].joined(separator: " ").replacingOccurrences(of: "`", with: "").split(separator: ",") {
                let name = String(item.trimmingCharacters(in: .whitespaces).prefix { $0.isLetter || $0.isNumber || $0 == "_" })
                if !name.isEmpty { declarations.append(Declaration(type: type, name: name, labels: nil, parameterTypes: [])) }
            }
        } else if keywordIndex + 1 < words.count {
            let name = String(words[keywordIndex + 1].prefix { $0.isLetter || $0.isNumber || $0 == "_" })
            declarations.append(Declaration(type: type, name: name, labels: nil, parameterTypes: []))
        }
    }

    /// The labels and types of the first parameter list in `text`.
    static func parameters(_ text: String) -> ([String], [String]) {
        guard let open = text.firstIndex(of: "(") else { return ([], []) }
        var depth = 0
        var current = ""
        var parts: [String] = []
        for character in text[open...] {
            if character == "(" || character == "[" || character == "<" { depth += 1; if depth == 1 { continue } }
            if character == ")" || character == "]" || character == ">" {
                depth -= 1
                if depth == 0 { parts.append(current); break }
            }
            if character == ",", depth == 1 { parts.append(current); current = ""; continue }
            current.append(character)
        }
        var labels: [String] = []
        var types: [String] = []
        for part in parts where part.contains(":") {
            let head = part.split(separator: ":", maxSplits: 1)[0].split(separator: " ")
            labels.append(head.first.map(String.init) ?? "_")
            types.append(part.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces))
        }
        return (labels, types)
    }

    /// Whether a symbol as the table spells it is declared: `HKType`, `HKType.member`, `HKType.name(a:b:)`,
    /// `HKType.init(a:)`, optionally with parameter types to tell overloads apart: `HKQuery.predicateForObjects(from: HKSource)`.
    func declares(_ symbol: String) -> Bool {
        var text = symbol
        var labels: [String]? = nil
        var types: [String?] = []
        if let open = text.firstIndex(of: "("), text.hasSuffix(")") {
            let inner = String(text[text.index(after: open) ..< text.index(before: text.endIndex)])
            if inner.contains(": ") || inner.contains(",") {
                // Typed form: "from: HKSource" or "a: T, b:".
                let items = inner.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                labels = items.map { String($0.prefix { $0 != ":" }) }
                types = items.map { item in
                    let type = item.drop { $0 != ":" }.dropFirst().trimmingCharacters(in: .whitespaces)
                    return type.isEmpty ? nil : type
                }
            } else {
                labels = inner.split(separator: ":").map(String.init)
            }
            text = String(text[..<open])
        }
        let parts = text.split(separator: ".").map(String.init)
        if parts.count == 1 {
            return publicTypes.contains(parts[0]) || declarations.contains { $0.type == "" && $0.name == parts[0] }
                || declarations.contains { $0.name == parts[0] && $0.labels == nil && parts[0].hasPrefix("HK") }
        }
        let type = parts.dropLast().joined(separator: ".")
        let name = parts.last!
        return declarations.contains { declaration in
            guard declaration.type == type, declaration.name == name else { return false }
            guard let labels else { return true }
            guard declaration.labels == labels else { return false }
            for (index, wanted) in types.enumerated() {
                if let wanted, index < declaration.parameterTypes.count, !declaration.parameterTypes[index].contains(wanted) { return false }
            }
            return true
        }
    }
}
