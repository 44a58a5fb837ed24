/// Why an export could not be written: one sentence.
public struct ExportError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
