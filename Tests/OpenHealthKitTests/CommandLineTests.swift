import Foundation
import Testing

/// Runs the built `workout` tool as a person would, in a child process.
@Suite struct CommandLineTests {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `workout` executable built beside the test bundle.
    static var tool: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent().appendingPathComponent("workout")
    }

    func workout(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = Self.tool
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        process.environment = env
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

    @Test
    func demoSavesIntoTheDefaultStoreAndPrintsItBack() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("default.sqlite")
        let demo = try workout(["demo"], environment: ["OPENHEALTHKIT_STORE": path])
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(demo.stdout.contains("Saved a run to \(path)"))
        #expect(demo.stdout.contains("heart rate    360 samples"))
        #expect(demo.stdout.contains("distance      30 samples   total 5364 m"))
        let list = try workout(["list", "--store", path])
        #expect(list.status == 0)
        #expect(list.stdout.contains("running"))
        #expect(list.stdout.contains("5.36 km"))
    }

    @Test
    func badInputIsOneSentenceAndNonZeroExit() throws {
        let directory = try TemporaryDirectory()
        let asDirectory = try workout(["list", "--store", directory.path])
        #expect(asDirectory.status == 1)
        #expect(asDirectory.stderr == "workout: The health store path \(directory.path) is a directory, not a file.\n")
        let garbage = directory.file("garbage.sqlite")
        try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: garbage))
        let notAStore = try workout(["list", "--store", garbage])
        #expect(notAStore.status == 1)
        #expect(notAStore.stderr.contains("is not an OpenHealthKit store"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: garbage)) == Data(repeating: 7, count: 4096))
        let unknown = try workout(["show", "nope", "--store", directory.file("empty.sqlite")])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("No workout's ID starts with 'nope'"))
        let badLimit = try workout(["list", "--limit", "0", "--store", directory.file("empty.sqlite")])
        #expect(badLimit.status != 0)
        #expect(badLimit.stderr.contains("--limit must be a positive number"))
    }
}
