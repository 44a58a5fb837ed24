import Foundation
import Testing

/// Runs the independent FIT readers (Garmin's FIT SDK for Python and fitparse, in `.build/fit-venv`, made by
/// `scripts/install-dependencies.sh`) through `Tests/FITFileTests/Oracle/fit_oracle.py`, and Python's XML parser.
public enum ExportOracle {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    public static let python = root.appendingPathComponent(".build/fit-venv/bin/python").path
    public static let script = root.appendingPathComponent("Tests/FITFileTests/Oracle/fit_oracle.py").path

    public struct Failure: Error, CustomStringConvertible { public let description: String }

    /// A decoded message: its global number and its fields by number, values as stored.
    public struct Message {
        public var number: Int
        public var fields: [Int: Any]
        public func number(_ field: Int) -> Double? { (fields[field] as? NSNumber)?.doubleValue }
        public func numbers(_ field: Int) -> [Double?] {
            (fields[field] as? [Any])?.map { ($0 as? NSNumber)?.doubleValue } ?? []
        }
        public func string(_ field: Int) -> String? { fields[field] as? String }
    }

    /// Runs `python arguments…` (the script first unless `script` is false); fails loudly when the environment is
    /// missing, never skips. Standard output is returned; a non-zero exit throws with standard error.
    @discardableResult
    public static func run(_ arguments: [String], useScript: Bool = true, timeLimit: TimeInterval = 60) throws -> Data {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Failure(
                description:
                    "\(python) is missing: run scripts/install-dependencies.sh, which creates the FIT test environment (garmin-fit-sdk, fitparse)."
            )
        }
        let process = Process()
        process.standardInput = FileHandle.nullDevice
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = (useScript ? [script] : []) + arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Both pipes read while it runs, so a large output cannot fill one and stall it; a deadline that kills it.
        let (read, ended) = readToEnd([output, errors], within: timeLimit)
        guard ended, process.exits(within: 10) else {
            process.killGroup()
            _ = process.exits(within: 10)
            throw Failure(
                description: "python \(arguments.joined(separator: " ")) took more than \(Int(timeLimit)) s; killed")
        }
        let data = read[0], errorData = read[1]
        guard process.terminationStatus == 0 else {
            throw Failure(
                description:
                    "python \(arguments.prefix(2).joined(separator: " ")) failed: \(String(decoding: errorData, as: UTF8.self))"
            )
        }
        return data
    }

    /// Every message of a FIT file as `decode-garmin` (Garmin's decoder; any decoding error fails) or
    /// `decode-fitparse` (fitparse with its CRC check) reads it.
    public static func decode(_ command: String, path: String) throws -> [Message] {
        let json = try JSONSerialization.jsonObject(with: run([command, path])) as? [[String: Any]] ?? []
        return json.map { entry in
            var fields: [Int: Any] = [:]
            for (key, value) in entry["fields"] as? [String: Any] ?? [:] {
                if let number = Int(key) { fields[number] = value }
            }
            return Message(number: (entry["num"] as? NSNumber)?.intValue ?? -1, fields: fields)
        }
    }
}
