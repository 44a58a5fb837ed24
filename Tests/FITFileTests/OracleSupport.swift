import FITFile
import Foundation
import TestSupport
import Testing

/// Runs the independent FIT implementations (Garmin's FIT SDK for Python and fitparse) that
/// `scripts/install-dependencies.sh` installs in `.build/fit-venv`, through `Oracle/fit_oracle.py`.
enum Oracle {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let python = root.appendingPathComponent(".build/fit-venv/bin/python").path
    static let script = root.appendingPathComponent("Tests/FITFileTests/Oracle/fit_oracle.py").path

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Runs the oracle script; fails loudly (never skips) when the virtual environment is missing, so CI, which
    /// runs the install script first, always compares.
    @discardableResult
    static func run(_ arguments: [String], timeLimit: TimeInterval = 60) throws -> Data {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Failure(
                description:
                    "\(python) is missing: run scripts/install-dependencies.sh, which creates the FIT test environment (garmin-fit-sdk, fitparse)."
            )
        }
        let process = Process()
        process.standardInput = FileHandle.nullDevice
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        expectMayBlock("Waiting for fit_oracle.py")
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        // Read while it runs, so a large output cannot fill the pipe and stall it.
        nonisolated(unsafe) var data = Data()
        let reader = Thread {
            data = output.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }
        reader.start()
        let deadline = DispatchTime.now() + timeLimit
        guard done.wait(timeout: deadline) == .success, done.wait(timeout: deadline) == .success else {
            process.terminate()
            throw Failure(
                description: "fit_oracle.py \(arguments.joined(separator: " ")) took more than \(Int(timeLimit)) s")
        }
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw Failure(description: "fit_oracle.py \(arguments.first ?? "") failed: \(message)")
        }
        return data
    }

    /// A value as both sides can state it.
    enum Value: Equatable, CustomStringConvertible {
        case number(Double)
        case string(String)
        case list([Value?])

        init?(_ value: FITValue) {
            switch value {
            case let .unsigned(v): self = .number(Double(v))
            case let .signed(v): self = .number(Double(v))
            case let .float(v): self = .number(v)
            case let .string(s): self = .string(s)
            case let .bytes(b): self = .list(b.map { .number(Double($0)) })
            case let .array(values): self = .list(values.map { Value($0) })
            case .invalid: return nil
            }
        }

        init?(json: Any) {
            switch json {
            case let s as String: self = .string(s)
            case let n as NSNumber: self = .number(n.doubleValue)
            case let a as [Any]: self = .list(a.map { $0 is NSNull ? nil : Value(json: $0) })
            default: return nil
            }
        }

        var description: String {
            switch self {
            case let .number(n): "\(n)"
            case let .string(s): "\"\(s)\""
            case let .list(l): "[" + l.map { $0?.description ?? "invalid" }.joined(separator: ", ") + "]"
            }
        }
    }

    struct Message: Equatable {
        var number: UInt16
        var fields: [UInt8: Value]
    }

    static func decode(_ command: String, path: String) throws -> [Message] {
        let json = try JSONSerialization.jsonObject(with: run([command, path])) as? [[String: Any]] ?? []
        return json.map { entry in
            var fields: [UInt8: Value] = [:]
            for (key, value) in entry["fields"] as? [String: Any] ?? [:] {
                if let number = UInt8(key), let value = Value(json: value) { fields[number] = value }
            }
            return Message(number: UInt16((entry["num"] as? NSNumber)?.intValue ?? -1), fields: fields)
        }
    }

    static func ours(_ messages: [FITMessage]) -> [Message] {
        messages.map { message in
            var fields: [UInt8: Value] = [:]
            for field in message.fields { if let value = Value(field.value) { fields[field.number] = value } }
            return Message(number: message.globalMessageNumber, fields: fields)
        }
    }

    /// Compares message by message and field by field; returns the differences (at most 10).
    static func differences(_ ours: [Message], _ theirs: [Message], tolerance: Double = 1e-6) -> [String] {
        var out: [String] = []
        if ours.count != theirs.count { out.append("\(ours.count) messages here, \(theirs.count) there") }
        for (index, (a, b)) in zip(ours, theirs).enumerated() where out.count < 10 {
            if a.number != b.number {
                out.append("message \(index): \(a.number) here, \(b.number) there")
                continue
            }
            for number in Set(a.fields.keys).union(b.fields.keys).sorted() {
                let x = a.fields[number], y = b.fields[number]
                if case let (.number(p)?, .number(q)?) = (x, y), abs(p - q) <= tolerance * max(1, abs(q)) { continue }
                if x != y {
                    out.append(
                        "message \(index) (\(a.number)) field \(number): \(x?.description ?? "absent") here, \(y?.description ?? "absent") there"
                    )
                }
            }
        }
        return out
    }
}
