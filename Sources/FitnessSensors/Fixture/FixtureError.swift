/// Why a fixture cannot be read: the file, the line, and what was expected there.
///
/// ``description`` is one sentence, `fixtures/ride.jsonl:17: expected …`, ready for a person.
public struct FixtureError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The path as given to the reader.
    public var file: String
    /// The 1-based line number (0 when the file itself cannot be opened).
    public var line: Int
    /// What was expected, or what is wrong, without the location.
    public var problem: String

    public init(file: String, line: Int, _ problem: String) {
        self.file = file
        self.line = line
        self.problem = problem
    }

    public var description: String {
        line > 0 ? "\(file):\(line): \(problem)." : "\(file): \(problem)."
    }
}
