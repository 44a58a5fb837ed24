import Foundation

/// The public symbols that the compiled `OpenHealthKit` module declares, read from its symbol graph.
///
/// The graph is extracted with `swift-symbolgraph-extract` from the module `swift test` has just built (its
/// `.swiftmodule` beside the test bundle), so it sees exactly what a client compiles against, without a second
/// build of the package: a few seconds on an idle machine. The extraction runs once per test process as a child
/// process with a deadline, awaited without blocking a thread of the test pool; when it cannot run, the tests that
/// need it fail with the reason, never pass without having looked.
struct SymbolGraph: Sendable {
    struct Symbol: Sendable {
        /// The path, as `HKError.Code.unknownError` or `HKQuery.predicateForObjects(from:)`.
        var path: String
        var kind: String
        /// The declaration as written, e.g. `func save(_ object: HKObject) async throws`.
        var declaration: String
    }

    var symbols: [String: [Symbol]]
    /// The protocols each type conforms to (or a protocol inherits), by the type's path: `Hashable`, `WorkoutAlert`.
    var conformances: [String: Set<String>] = [:]

    /// The symbols of one path (overloads share it).
    func symbols(at path: String) -> [Symbol] {
        if let found = symbols[path] { return found }
        // swift-corelibs-foundation names NSNotification.Name Notification.Name.
        if path.hasPrefix("NSNotification.") {
            return symbols["Notification." + path.dropFirst("NSNotification.".count)] ?? []
        }
        return []
    }

    /// The top-level types (struct, class, enum, protocol, type alias) in Apple's namespace shape: HealthKit's `HK…`
    /// and CoreLocation's `CL…` (OpenHealthKit's own CLLocation). Types named otherwise are plainly OpenHealthKit's.
    var topLevelTypes: [String] {
        symbols.values.flatMap { $0 }.filter {
            !$0.path.contains(".") && ($0.path.hasPrefix("HK") || $0.path.hasPrefix("CL"))
                && ["swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.typealias"].contains($0.kind)
        }.map(\.path)
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The graph of each module, extracted once per test process.
    private actor Cache {
        var extractions: [String: Task<SymbolGraph, any Error>] = [:]
        func graph(_ module: String) async throws -> SymbolGraph {
            if let extraction = extractions[module] { return try await extraction.value }
            let started = Task { try await SymbolGraph.extract(module: module) }
            extractions[module] = started
            return try await started.value
        }
    }

    private static let cache = Cache()

    static func load(module: String = "OpenHealthKit") async throws -> SymbolGraph { try await cache.graph(module) }

    /// The build directory `swift test` runs from: the one holding the test bundle, where `Modules/` is.
    static func buildDirectory(module: String = "OpenHealthKit") throws -> URL {
        var candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        if let bundle = Bundle.main.executableURL { candidates.append(bundle.deletingLastPathComponent()) }
        candidates.append(root.appendingPathComponent(".build/debug"))
        for candidate in candidates {
            for modules in [candidate.appendingPathComponent("Modules"), candidate]
            where
                FileManager.default.fileExists(atPath: modules.appendingPathComponent("\(module).swiftmodule").path)
            {
                return modules
            }
        }
        throw Failure(
            description: "No \(module).swiftmodule beside the test bundle (looked in \(candidates.map(\.path)))")
    }

    static func extractor() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        for directory in path.split(separator: ":") {
            let tool = URL(fileURLWithPath: String(directory)).appendingPathComponent("swift-symbolgraph-extract")
            if FileManager.default.isExecutableFile(atPath: tool.path) { return tool }
        }
        throw Failure(description: "swift-symbolgraph-extract is not on PATH (it ships with the Swift toolchain)")
    }

    /// The directories holding the module maps of the C modules OpenHealthKit imports (ours and dependencies').
    static func moduleMapDirectories() -> [String] {
        var directories: [String] = []
        let fileManager = FileManager.default
        var sourceRoots = [root.appendingPathComponent("Sources")]
        let checkouts = root.appendingPathComponent(".build/checkouts")
        for package in (try? fileManager.contentsOfDirectory(atPath: checkouts.path)) ?? [] {
            sourceRoots.append(checkouts.appendingPathComponent(package).appendingPathComponent("Sources"))
        }
        for sources in sourceRoots {
            for target in (try? fileManager.contentsOfDirectory(atPath: sources.path)) ?? [] {
                for directory in [
                    sources.appendingPathComponent(target),
                    sources.appendingPathComponent(target).appendingPathComponent("include"),
                ]
                where fileManager.fileExists(atPath: directory.appendingPathComponent("module.modulemap").path) {
                    directories.append(directory.path)
                }
            }
        }
        return directories
    }

    /// The module maps SwiftPM writes for C targets that have none of their own (`CUnixSockets.build/module.modulemap`),
    /// in the build directory that holds `modules`.
    static func generatedModuleMaps(_ modules: URL) -> [String] {
        let buildDirectory = modules.lastPathComponent == "Modules" ? modules.deletingLastPathComponent() : modules
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: buildDirectory.path)) ?? []
        return entries.filter { $0.hasSuffix(".build") }.map {
            buildDirectory.appendingPathComponent($0).appendingPathComponent("module.modulemap").path
        }.filter { FileManager.default.fileExists(atPath: $0) }
    }

    static func extract(
        module: String = "OpenHealthKit", deadline: Duration = .seconds(240)
    ) async throws
        -> SymbolGraph
    {
        let modules = try buildDirectory(module: module)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "openhealthkit-symbols-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: output) }
        #if arch(x86_64)
        let target = "x86_64-unknown-linux-gnu"
        #else
        let target = "aarch64-unknown-linux-gnu"
        #endif
        let process = Process()
        process.standardInput = FileHandle.nullDevice
        process.executableURL = try extractor()
        process.arguments =
            [
                "-module-name", module, "-target", target, "-I", modules.path,
                "-minimum-access-level", "public", "-output-dir", output.path,
                // What `import OpenHealthKit` gives: its own declarations and the targets it re-exports.
                "-experimental-allowed-reexported-modules=HealthKitModel,WorkoutEngine",
            ]
            + moduleMapDirectories().flatMap { ["-I", $0] }
            + generatedModuleMaps(modules).flatMap { ["-Xcc", "-fmodule-map-file=\($0)"] }
        // Diagnostics go to a file: a pipe nobody reads while waiting would stall a talkative extractor.
        let errorsURL = output.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: errorsURL.path, contents: nil)
        let errors = try FileHandle(forWritingTo: errorsURL)
        defer { try? errors.close() }
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let seconds = Double(deadline.components.seconds)
        let timedOut = LockedFlag()
        let exited = ExitWaiter()
        process.terminationHandler = { _ in exited.exited() }
        try process.run()
        // The deadline: a process still running then is stopped, which ends the wait.
        let running = ProcessBox(process)
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            if running.process.isRunning {
                timedOut.set()
                running.process.terminate()
            }
        }
        await exited.wait()
        if timedOut.isSet { throw Failure(description: "swift-symbolgraph-extract took more than \(Int(seconds)) s") }
        guard process.terminationStatus == 0 else {
            let message = (try? String(contentsOf: errorsURL, encoding: .utf8)) ?? ""
            throw Failure(
                description: "swift-symbolgraph-extract failed (\(process.terminationStatus)): \(message.prefix(2000))")
        }
        var symbols: [String: [Symbol]] = [:]
        var paths: [String: String] = [:]
        var relationships: [File.Relationship] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: output.path)
        where file.hasSuffix(".symbols.json") {
            let decoded = try JSONDecoder().decode(
                File.self, from: Data(contentsOf: output.appendingPathComponent(file)))
            for entry in decoded.symbols {
                let symbol = Symbol(
                    path: entry.pathComponents.joined(separator: "."), kind: entry.kind.identifier,
                    declaration: (entry.declarationFragments ?? []).map(\.spelling).joined())
                symbols[symbol.path, default: []].append(symbol)
                paths[entry.identifier.precise] = symbol.path
            }
            relationships += decoded.relationships ?? []
        }
        guard !symbols.isEmpty else { throw Failure(description: "the symbol graph of \(module) is empty") }
        var conformances: [String: Set<String>] = [:]
        for relationship in relationships where ["conformsTo", "inheritsFrom"].contains(relationship.kind) {
            guard let type = paths[relationship.source] else { continue }
            let name =
                paths[relationship.target]
                ?? relationship.targetFallback.map { String($0.split(separator: ".").last ?? "") }
            if let name { conformances[type, default: []].insert(name) }
        }
        return SymbolGraph(symbols: symbols, conformances: conformances)
    }

    /// Resumes its waiter once the process has exited, whichever comes first.
    private final class ExitWaiter: @unchecked Sendable {
        private let lock = NSLock()
        private var hasExited = false
        private var waiter: CheckedContinuation<Void, Never>?

        func exited() {
            let waiting = lock.withLock { () -> CheckedContinuation<Void, Never>? in
                hasExited = true
                defer { waiter = nil }
                return waiter
            }
            waiting?.resume()
        }

        func wait() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = lock.withLock { () -> Bool in
                    if hasExited { return true }
                    waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }

    private final class ProcessBox: @unchecked Sendable {
        let process: Process
        init(_ process: Process) { self.process = process }
    }

    private final class LockedFlag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }

    private struct File: Decodable {
        struct Entry: Decodable {
            struct Kind: Decodable { var identifier: String }
            struct Fragment: Decodable { var spelling: String }
            struct Identifier: Decodable { var precise: String }
            var identifier: Identifier
            var kind: Kind
            var pathComponents: [String]
            var declarationFragments: [Fragment]?
        }
        struct Relationship: Decodable {
            var kind: String
            var source: String
            var target: String
            var targetFallback: String?
        }
        var symbols: [Entry]
        var relationships: [Relationship]?
    }
}
