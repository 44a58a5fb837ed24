import Foundation
import Testing

/// Every async test runs under a time limit, its own or its suite's (ARCHITECTURE.md, "Tests fail instead of
/// hanging"): an await that never resumes then fails its test at the limit, where without one it held the whole run
/// until CI's 90 minutes were up. Checked by reading every test source, so a test added without a limit fails here
/// with its name, not one day in CI by hanging.
@Suite(.timeLimit(.minutes(1))) struct TimeLimitCoverageTests {
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    @Test func everyAsyncTestHasATimeLimit() throws {
        let files = try FileManager.default.subpathsOfDirectory(atPath: Self.testsDirectory.path)
            .filter { $0.hasSuffix(".swift") }.sorted()
        var sources: [String: String] = [:]
        for file in files {
            sources[file] = try String(contentsOf: Self.testsDirectory.appendingPathComponent(file), encoding: .utf8)
        }
        let scan = TestSourceScan(sources)
        // The scan sees the tests (a scan that found none would pass vacuously).
        #expect(scan.asyncTests.count > 400, "async tests found: \(scan.asyncTests.count)")
        #expect(scan.withoutTimeLimit.isEmpty, "async tests without a time limit: \(scan.withoutTimeLimit)")
    }

    @Test func theScanTellsALimitedTestFromAnUnlimitedOne() {
        let scan = TestSourceScan([
            "A.swift": """
            @Suite(.timeLimit(.minutes(1))) struct Limited {
                @Test(arguments: [1, 2].map { $0 * 2 }) func inherits(value: Int) async {}
                let text = "} {"
                let interpolated = "a \\(["}", #"{"#].count) b"
                struct Nested { @Test func nestedInherits() async throws {} }
            }
            @Suite struct Unlimited {
                // @Test(.timeLimit(.minutes(1))) func commentedOut() async {}
                @Test func missing() async {}
                @Test(.timeLimit(.minutes(1))) func own() async {}
                @Test func synchronous() {}
                func helper() async {}
            }
            extension Limited {
                @Test func inExtension() async {}
            }
            extension Unlimited {
                @Test func alsoMissing() async throws {}
            }
            """
        ])
        #expect(scan.asyncTests == ["inherits", "nestedInherits", "missing", "own", "inExtension", "alsoMissing"])
        #expect(scan.withoutTimeLimit == ["A.swift: Unlimited.missing", "A.swift: Unlimited.alsoMissing"])
    }
}

/// The async tests of some Swift sources and which of them run without a time limit (`.timeLimit` on the test, its
/// suite or a suite around it; an extension's tests have their type's). Comments and string literals are blanked
/// before braces are counted.
struct TestSourceScan {
    private(set) var asyncTests: [String] = []
    private(set) var withoutTimeLimit: [String] = []

    init(_ sources: [String: String]) {
        let files = sources.keys.sorted().map { ($0, Self.blanked(sources[$0]!)) }
        // First the types declared with a limit, for the tests of their extensions in other files.
        var limited: Set<String> = []
        for (_, text) in files {
            Self.walk(text, limitedTypes: []) {
                limited.insert($0)
            } test: { _, _, _ in
            }
        }
        var tests: [String] = []
        var missing: [String] = []
        for (file, text) in files {
            Self.walk(text, limitedTypes: limited) { _ in
            } test: { name, scope, hasLimit in
                tests.append(name)
                if !hasLimit { missing.append("\(file): \(scope).\(name)") }
            }
        }
        (asyncTests, withoutTimeLimit) = (tests, missing)
    }

    private struct Scope {
        var name: String?
        var hasLimit: Bool
        /// Opened inside parentheses (a closure in an argument): it does not end a declaration's attributes.
        var inParentheses: Bool
    }

    /// Calls `limitedType` for each type declared with a time limit and `test` for each async test.
    private static func walk(
        _ text: [Character], limitedTypes: Set<String>, limitedType: (String) -> Void,
        test: (_ name: String, _ scope: String, _ hasLimit: Bool) -> Void
    ) {
        var scopes: [Scope] = []
        var parentheses = 0
        var segment: [Character] = []
        for character in text {
            switch character {
            case "(":
                parentheses += 1
                segment.append(character)
            case ")":
                parentheses -= 1
                segment.append(character)
            case "{" where parentheses > 0:
                scopes.append(Scope(name: nil, hasLimit: scopes.last?.hasLimit ?? false, inParentheses: true))
                segment.append(character)
            case "{":
                let declaration = String(segment)
                let outer = scopes.last?.hasLimit ?? false
                let ownLimit = declaration.contains("timeLimit")
                if let type = firstMatch(typeDeclaration, in: declaration) {
                    let hasLimit = ownLimit || outer || limitedTypes.contains(type)
                    if ownLimit { limitedType(type) }
                    scopes.append(Scope(name: type, hasLimit: hasLimit, inParentheses: false))
                } else {
                    if declaration.contains("@Test"), let name = firstMatch(functionDeclaration, in: declaration),
                        declaration.range(of: #"\)\s*async\b"#, options: .regularExpression) != nil
                    {
                        let scope = scopes.last { $0.name != nil }?.name ?? "?"
                        test(name, scope, ownLimit || outer)
                    }
                    scopes.append(Scope(name: nil, hasLimit: outer, inParentheses: false))
                }
                segment = []
            case "}":
                let closed = scopes.popLast()
                if closed?.inParentheses == true { segment.append(character) } else { segment = [] }
            case ";":
                if parentheses == 0 { segment = [] } else { segment.append(character) }
            default:
                segment.append(character)
            }
        }
    }

    private static let typeDeclaration = try! NSRegularExpression(
        pattern: #"\b(?:struct|class|enum|actor|extension)\s+([\w.]+)"#)
    private static let functionDeclaration = try! NSRegularExpression(pattern: #"\bfunc\s+(\w+)"#)

    private static func firstMatch(_ expression: NSRegularExpression, in text: String) -> String? {
        guard let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
            let range = Range(match.range(at: 1), in: text)
        else { return nil }
        return String(text[range])
    }

    /// The text with comments and string literals (their interpolations included) replaced by spaces, newlines kept.
    static func blanked(_ source: String) -> [Character] {
        let characters = Array(source)
        var out = characters
        func blank(_ range: Range<Int>) {
            for i in range where out[i] != "\n" { out[i] = " " }
        }
        func starts(_ prefix: String, at i: Int) -> Bool {
            var at = i
            for character in prefix {
                guard at < characters.count, characters[at] == character else { return false }
                at += 1
            }
            return true
        }
        func isStringStart(_ i: Int) -> Bool {
            characters[i] == "\"" || (characters[i] == "#" && (starts("#\"", at: i) || starts("##\"", at: i)))
        }
        /// The index after the string literal that starts at `start`: raw (`#"…"#`) or not, on one line or several,
        /// with interpolations holding strings of their own.
        func stringEnd(_ start: Int) -> Int {
            var hashes = 0
            while characters[start + hashes] == "#" { hashes += 1 }
            let quotes = starts("\"\"\"", at: start + hashes) ? 3 : 1
            let closing = String(repeating: "\"", count: quotes) + String(repeating: "#", count: hashes)
            let escape = "\\" + String(repeating: "#", count: hashes)
            var at = start + hashes + quotes
            while at < characters.count, !starts(closing, at: at) {
                if starts(escape + "(", at: at) {
                    at = interpolationEnd(at + escape.count + 1)
                } else if starts(escape, at: at) {
                    at += escape.count + 1
                } else {
                    at += 1
                }
            }
            return min(at + closing.count, characters.count)
        }
        /// The index after the parenthesis that closes an interpolation whose code starts at `start`.
        func interpolationEnd(_ start: Int) -> Int {
            var depth = 1
            var at = start
            while at < characters.count {
                if isStringStart(at) {
                    at = stringEnd(at)
                    continue
                }
                if characters[at] == "(" { depth += 1 }
                if characters[at] == ")" {
                    depth -= 1
                    if depth == 0 { return at + 1 }
                }
                at += 1
            }
            return at
        }
        var index = 0
        while index < characters.count {
            if starts("//", at: index) {
                let end = characters[index...].firstIndex(of: "\n") ?? characters.count
                blank(index ..< end)
                index = end
            } else if starts("/*", at: index) {
                var end = index + 2
                while end < characters.count, !starts("*/", at: end) { end += 1 }
                end = min(end + 2, characters.count)
                blank(index ..< end)
                index = end
            } else if isStringStart(index) {
                let end = stringEnd(index)
                blank(index ..< end)
                index = end
            } else {
                index += 1
            }
        }
        return out
    }
}
