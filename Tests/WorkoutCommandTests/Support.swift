import Foundation
import Glibc
import TestSupport
import Testing

// What the `workout` tool's tests share: running the built tool, its whole transcript, a temporary directory, the
// fixtures. Every test that runs the `workout` executable lives in this target and runs it through `Tool`.

/// Runs the built `workout` tool in a child process, as a person would.
struct Tool {
    struct Result {
        var status: Int32
        /// Standard output as bytes (`workout export --output -` writes a binary file there).
        var output: Data
        var stderr: String

        var stdout: String { String(decoding: output, as: UTF8.self) }

        /// What a person sees: standard output, then standard error after a `--- stderr` line (when there is any),
        /// then the exit status (`--- exit N`, N ≠ 0, or nothing for success). The two streams are separate pipes, so
        /// their relative order is not kept; each one's is.
        var transcript: String {
            var text = stdout
            if !stderr.isEmpty { text += "--- stderr\n" + stderr }
            if status != 0 { text += "--- exit \(status)\n" }
            return text
        }
    }

    /// The `workout` executable built beside the test bundle.
    static var url: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("workout")
    }

    /// Runs `workout ARGUMENTS` (or `executable`) to its end, with `environment` added to this process's, in
    /// `directory` when given.
    static func run(
        _ arguments: [String], executable: URL = url, environment: [String: String] = [:],
        directory: String? = nil
    ) throws -> Result {
        let process = Process()
        process.standardInput = FileHandle.nullDevice
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let pipes = piped(process)
        try process.run()
        return pipes.result()
    }

    /// Pipes `process`'s standard output and error; `result` reads both to their end together (so that neither fills
    /// while the other is read) and waits for the process to exit, within ``childProcessTimeLimit`` of real time. A
    /// tool still running then is killed with its process group, and the test fails with what it printed.
    static func piped(_ process: Process) -> (out: Pipe, err: Pipe, result: () -> Result) {
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        return (
            out, err,
            {
                let started = ContinuousClock.now
                var (data, ended) = readToEnd([out, err])
                let transcript = {
                    Result(status: 0, output: data[0], stderr: String(decoding: data[1], as: UTF8.self)).transcript
                }
                if ended {
                    let spent = Double((ContinuousClock.now - started).components.seconds)
                    process.waitUntilExit(within: childProcessTimeLimit - spent, printed: transcript)
                } else {
                    // Killed, its pipes close: what it had printed is read, and the test fails with it.
                    process.killGroup()
                    data = zip(data, readToEnd([out, err], within: 10).data).map { $0 + $1 }
                    let message =
                        "\(process.commandLine) did not finish within \(Int(childProcessTimeLimit)) s, so it was "
                        + "killed (SIGKILL, with its process group). It printed:\n\(transcript())"
                    Issue.record(Comment(rawValue: message))
                    _ = process.exits(within: 10)
                }
                let status = process.isRunning ? SIGKILL : process.terminationStatus
                return Result(status: status, output: data[0], stderr: String(decoding: data[1], as: UTF8.self))
            }
        )
    }
}

extension Tool {
    /// `workout peripheral ARGUMENTS`, its standard output piped (its first line says it listens).
    static func peripheral(_ arguments: [String]) -> (process: Process, output: Pipe) {
        let process = Process()
        process.standardInput = FileHandle.nullDevice
        process.executableURL = url
        process.arguments = ["peripheral"] + arguments
        let output = Pipe()
        process.standardOutput = output
        return (process, output)
    }

    /// Starts `workout peripheral ARGUMENTS` on the machine's clock and returns once it listens, with the line it
    /// printed then (what it printed in 10 s, if it printed no line).
    static func startPeripheral(_ arguments: [String]) throws -> (process: Process, banner: String) {
        let (process, output) = peripheral(arguments)
        try process.run()
        return (process, read(output, until: "\n"))
    }
}

/// Reads `pipe` until what was read contains `text`, the writer closes it, or 10 s of real time pass in all (a limit
/// for a broken tool, not a wait: the text is due as soon as the tool gets there). Returns what was read.
func read(_ pipe: Pipe, until text: String, sourceLocation: SourceLocation = #_sourceLocation) -> String {
    expectMayBlock("Reading a child's output", sourceLocation: sourceLocation)
    let descriptor = pipe.fileHandleForReading.fileDescriptor
    let deadline = ContinuousClock.now.advanced(by: .seconds(10))
    var seen = ""
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !seen.contains(text) {
        let left = ContinuousClock.now.duration(to: deadline)
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard left > .zero, poll(&ready, 1, Int32(left.components.seconds * 1000) + 1) > 0 else { break }
        let count = Glibc.read(descriptor, &buffer, buffer.count)
        if count <= 0 { break }
        seen += String(decoding: buffer[0 ..< count], as: UTF8.self)
    }
    return seen
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

/// A transcript with only what changes from run to run replaced, so the rest can be compared exactly:
/// - the test's temporary `directory` by `DIR`;
/// - UUIDs (a saved workout's, in upper case as the tool prints them) by `UUID`;
/// - with `datesOfNow`, dates and times printed as `yyyy-MM-dd HH:mm` by `DATE` (`workout demo` saves a run that
///   ends when it is run; tests on stepped time fix the clock's start instead and compare dates as printed).
/// Nothing else is replaced: figures, wording and layout are compared as printed.
func normalized(_ text: String, directory: String, datesOfNow: Bool = false) -> String {
    let uuid = try! Regex("[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}")
    var text = text.replacing(directory, with: "DIR").replacing(uuid, with: "UUID")
    if datesOfNow { text = text.replacing(try! Regex("[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}"), with: "DATE") }
    return text
}

/// The first 8 hex digits (what `workout show`, `export` and `delete` take) of the first workout UUID in `text`.
func firstWorkoutID(in text: String) -> String? {
    let uuid = try! Regex("[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}")
    return text.firstMatch(of: uuid).map { String(text[$0.range].prefix(8)) }
}
