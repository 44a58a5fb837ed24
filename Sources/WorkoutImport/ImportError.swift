/// Why a file could not be imported: one sentence naming the file and, for damaged bytes, the offset.
public struct ImportError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
