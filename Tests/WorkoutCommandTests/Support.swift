import Foundation
import Testing

// What the `workout` tool's tests share: running the built tool, a temporary directory, the fixtures.

/// Runs the built `workout` tool in a child process, as a person would.
struct Tool {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `workout` executable built beside the test bundle.
    static var url: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("workout")
    }

    static func run(_ arguments: [String], executable: URL = url, environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }
}

/// A temporary directory removed when the test ends.
struct TemporaryDirectory: ~Copyable {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "ohk-cli-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
}

/// The repository's `fixtures/` folder.
let fixturesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("fixtures")

func fixture(_ name: String) -> String { fixturesDirectory.appendingPathComponent(name).path }

/// A transcript with what changes from run to run replaced: workout UUIDs by `UUID`, `directory` by `DIR`.
func normalized(_ text: String, directory: String) -> String {
    let uuid = try! Regex("[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}")
    return text.replacing(directory, with: "DIR").replacing(uuid, with: "UUID")
}
