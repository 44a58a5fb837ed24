import Foundation
import Logging

/// Where the library's log messages go: nowhere by default; with `--verbose`, to standard error as one line each,
/// in the tool's own style (`workout: unix:/tmp/strap.sock disconnected: …`), without timestamps or labels.
struct CommandLog: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        FileHandle.standardError.write(Data("workout: \(event.message)\n".utf8))
    }

    /// Sets the process's log handler once: this one with `verbose`, else one that drops everything.
    static func bootstrap(verbose: Bool) {
        LoggingSystem.bootstrap { _ in
            verbose ? CommandLog() as any LogHandler : SwiftLogNoOpLogHandler()
        }
    }
}
