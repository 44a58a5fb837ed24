import Foundation

/// Reads a fixture line by line, in constant memory for any file size.
///
/// The header is read and checked when the reader opens; ``next()`` then returns one event per line, in order,
/// until the end of the file. Every failure is a ``FixtureError`` naming the file, the line and what was
/// expected there. A reader holds one 64 KiB buffer and never more than one line (at most 1 MiB) beyond it.
///
/// ```swift
/// let reader = try FixtureReader(path: "fixtures/run-45min.jsonl")
/// while let event = try reader.next() { … }
/// ```
public final class FixtureReader {
    /// The longest line accepted; a longer one is not a fixture line (and would cost memory).
    public static let maximumLineLength = 1 << 20

    public let path: String
    public let header: FixtureHeader
    /// The header's `start`.
    public let startDate: Date
    /// The sensors' ids, in header order: events carry indexes into it.
    public let sensorIDs: [String]
    /// The number of the line read last (1 is the header).
    public private(set) var lineNumber = 0

    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var endOfFile = false
    private var lastTime: Int64 = 0
    private var ended = false
    private let sensorIndex: [Substring: Int]

    /// Opens a fixture and checks its header.
    ///
    /// - Throws: ``FixtureError`` when the file cannot be opened or its first line is not a version-1 header.
    public init(path: String) throws(FixtureError) {
        self.path = path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw FixtureError(file: path, line: 0, "expected a fixture file, but there is no such file")
        }
        guard !isDirectory.boolValue, let handle = FileHandle(forReadingAtPath: path) else {
            throw FixtureError(
                file: path, line: 0,
                "expected a readable fixture file, but it \(isDirectory.boolValue ? "is a directory" : "cannot be opened")"
            )
        }
        self.handle = handle
        var lineBytes: [UInt8]? = nil
        do {
            lineBytes = try Self.readLine(handle: handle, buffer: &buffer, start: &start, endOfFile: &endOfFile).map {
                Array($0.line)
            }
        } catch let problem {
            throw FixtureError(file: path, line: 1, problem.text)
        }
        lineNumber = 1
        guard let lineBytes, !lineBytes.isEmpty else {
            throw FixtureError(
                file: path, line: 1,
                "expected a fixture header (a JSON object with \"format\": \"\(FixtureHeader.formatName)\"), but the file is empty"
            )
        }
        header = try Self.decodeHeader(Data(lineBytes), file: path)
        guard let date = header.startDate else {
            throw FixtureError(
                file: path, line: 1,
                "expected \"start\" to be an ISO 8601 date like 2026-11-21T07:00:00Z, not \"\(header.start)\"")
        }
        startDate = date
        sensorIDs = header.sensors.map(\.id)
        var index: [Substring: Int] = [:]
        for (position, sensor) in header.sensors.enumerated() {
            guard index[Substring(sensor.id)] == nil else {
                throw FixtureError(
                    file: path, line: 1, "expected each sensor id once, but \"\(sensor.id)\" appears twice")
            }
            guard SensorCapabilities(names: sensor.capabilities) != nil else {
                throw FixtureError(
                    file: path, line: 1,
                    "expected capabilities among \(SensorCapabilities.names.map(\.0).joined(separator: ", ")) for sensor \"\(sensor.id)\""
                )
            }
            index[Substring(sensor.id)] = position
        }
        sensorIndex = index
    }

    deinit { try? handle.close() }

    /// The next event, or nil at the end of the file.
    ///
    /// - Throws: ``FixtureError`` for a line that is not a well-formed event, names an unknown sensor, goes back
    ///   in time, follows an `end` action, or is cut short at the end of the file.
    public func next() throws(FixtureError) -> FixtureEvent? {
        while true {
            let read: (line: ArraySlice<UInt8>, terminated: Bool)?
            do {
                read = try Self.readLine(handle: handle, buffer: &buffer, start: &start, endOfFile: &endOfFile)
            } catch let problem {
                throw FixtureError(file: path, line: lineNumber + 1, problem.text)
            }
            guard let (line, terminated) = read else { return nil }
            lineNumber += 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            let result: Result<FixtureEvent, FixtureError> = line.withUnsafeBufferPointer { bytes in
                do throws(FixtureError) { return .success(try event(from: bytes)) } catch { return .failure(error) }
            }
            switch result {
            case .success(let event): return event
            case .failure(let error):
                guard terminated else {
                    throw FixtureError(
                        file: path, line: lineNumber,
                        error.problem + " (the last line has no newline: the file looks truncated)")
                }
                throw error
            }
        }
    }

    private func event(from bytes: UnsafeBufferPointer<UInt8>) throws(FixtureError) -> FixtureEvent {
        let fields: FixtureLine
        do { fields = try FixtureLine.parse(bytes) } catch { throw fail(error.text) }
        guard let time = fields.time else { throw fail("expected \"t\", the time in seconds since the start") }
        guard time >= lastTime else {
            throw fail(
                "expected \"t\" to be at least \(FixtureTime.seconds(milliseconds: lastTime)), the time of the event before, not \(FixtureTime.seconds(milliseconds: time))"
            )
        }
        guard !ended else { throw fail("expected nothing after the \"end\" action") }
        lastTime = time
        if let value = fields.value {
            let sensor = try sensor(fields.sensor)
            guard let characteristic = fields.characteristic else {
                throw fail("expected \"c\", the characteristic the bytes belong to")
            }
            return FixtureEvent(
                time: time, kind: .notification(sensor: sensor, characteristic: characteristic, bytes: value))
        }
        if let connection = fields.connection {
            let sensor = try sensor(fields.sensor)
            let state: SensorConnectionState
            switch connection {
            case "connecting": state = .connecting
            case "connected": state = .connected
            case "disconnected": state = .disconnected(reason: fields.reason)
            default:
                throw fail("expected \"connection\" to be connecting, connected or disconnected, not \"\(connection)\"")
            }
            return FixtureEvent(time: time, kind: .connection(sensor: sensor, state: state))
        }
        if let action = fields.action {
            let value: FixtureAction
            switch action {
            case "beginActivity":
                guard let activity = fields.activity else {
                    throw fail("expected \"activity\" with a beginActivity action")
                }
                value = .beginActivity(activity: activity, location: fields.location)
            case "endActivity": value = .endActivity
            case "pause": value = .pause
            case "resume": value = .resume
            case "lap": value = .lap
            case "marker": value = .marker
            case "end":
                value = .end
                ended = true
            default:
                throw fail(
                    "expected \"action\" to be one of \(FixtureAction.names.joined(separator: ", ")), not \"\(action)\""
                )
            }
            return FixtureEvent(time: time, kind: .action(value))
        }
        throw fail(
            "expected a notification (\"v\"), a connection change (\"connection\") or a session action (\"action\")")
    }

    private func sensor(_ id: Substring?) throws(FixtureError) -> Int {
        guard let id else { throw fail("expected \"s\", the id of a sensor named in the header") }
        guard let index = sensorIndex[id] else {
            throw fail(
                "expected \"s\" to name a sensor in the header (\(sensorIDs.joined(separator: ", "))), not \"\(id)\"")
        }
        return index
    }

    private func fail(_ problem: String) -> FixtureError { FixtureError(file: path, line: lineNumber, problem) }

    /// The next line (without its newline) and whether a newline ended it; nil at the end of the file.
    private static func readLine(
        handle: FileHandle, buffer: inout [UInt8], start: inout Int, endOfFile: inout Bool
    )
        throws(FixtureLine.LineProblem) -> (line: ArraySlice<UInt8>, terminated: Bool)?
    {
        var searched = start
        while true {
            if let newline = buffer[searched...].firstIndex(of: 0x0A) {
                defer { start = newline + 1 }
                return (buffer[start ..< newline], true)
            }
            searched = buffer.count
            if endOfFile {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                return (buffer[start...], false)
            }
            guard buffer.count - start <= maximumLineLength else {
                throw FixtureLine.LineProblem(
                    "expected a line of at most \(maximumLineLength) bytes: this is not a fixture line")
            }
            if start > 0 {
                buffer.removeSubrange(0 ..< start)
                searched -= start
                start = 0
            }
            let chunk = (try? handle.read(upToCount: 1 << 16)) ?? nil
            if let chunk, !chunk.isEmpty { buffer.append(contentsOf: chunk) } else { endOfFile = true }
        }
    }

    private struct Preamble: Decodable {
        var format: String?
        var version: Int?
    }

    private static func decodeHeader(_ data: Data, file: String) throws(FixtureError) -> FixtureHeader {
        let expectation =
            "expected a fixture header: a JSON object with \"format\": \"\(FixtureHeader.formatName)\" and \"version\": \(FixtureHeader.currentVersion)"
        guard let preamble = try? JSONDecoder().decode(Preamble.self, from: data),
            preamble.format == FixtureHeader.formatName
        else {
            throw FixtureError(file: file, line: 1, expectation)
        }
        guard preamble.version == FixtureHeader.currentVersion else {
            let found = preamble.version.map { "version \($0)" } ?? "no version"
            throw FixtureError(
                file: file, line: 1, "expected fixture format version \(FixtureHeader.currentVersion), found \(found)")
        }
        do {
            return try JSONDecoder().decode(FixtureHeader.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw FixtureError(
                file: file, line: 1,
                "expected the header to have \"\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))\""
            )
        } catch let DecodingError.typeMismatch(_, context) {
            throw FixtureError(
                file: file, line: 1,
                "expected a different kind of value at \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\" in the header"
            )
        } catch {
            throw FixtureError(file: file, line: 1, expectation)
        }
    }
}
