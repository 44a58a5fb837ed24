import FitnessSensors
import FixtureSynthesis
import Foundation
import Testing

/// The fixture format: reading, writing, and the one-sentence errors for bad files.
@Suite(.timeLimit(.minutes(1))) struct FixtureFormatTests {
    let directory = NSTemporaryDirectory() + "ohk-fixture-" + UUID().uuidString

    init() throws { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }

    func write(_ name: String, _ text: String) throws -> String {
        let path = directory + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static let header = FixtureHeader(
        start: Date(timeIntervalSince1970: 1_795_158_000), session: .init(activity: "cycling", location: "indoor"),
        sensors: [.init(id: "strap", name: "Strap", services: ["180D"], capabilities: ["heartRate"])]
    ).encodedLine()

    /// Reads every event of a file, or the error's sentence.
    func readAll(_ path: String) -> Result<[FixtureEvent], FixtureError> {
        do throws(FixtureError) {
            let reader = try FixtureReader(path: path)
            var events: [FixtureEvent] = []
            while let event = try reader.next() { events.append(event) }
            return .success(events)
        } catch { return .failure(error) }
    }

    @Test func writtenEventsReadBackExactly() throws {
        let path = directory + "/round.jsonl"
        let header = FixtureHeader(
            start: Date(timeIntervalSince1970: 1_795_158_000), session: .init(activity: "running"),
            sensors: [.init(id: "a \"quoted\" id", name: "Strap ✓", services: ["180D"], capabilities: ["heartRate"])])
        let events: [FixtureEvent] = [
            FixtureEvent(time: 0, kind: .connection(sensor: 0, state: .connected)),
            FixtureEvent(
                time: 5, kind: .notification(sensor: 0, characteristic: 0x2A37, bytes: [0x16, 0x46, 0x38, 0x03])),
            FixtureEvent(time: 1005, kind: .action(.beginActivity(activity: "cycling", location: "outdoor"))),
            FixtureEvent(time: 2000, kind: .connection(sensor: 0, state: .disconnected(reason: "Gone.\n\"x\""))),
            FixtureEvent(time: 2000, kind: .action(.lap)),
            FixtureEvent(time: 123_456_789, kind: .action(.end)),
        ]
        let writer = try FixtureWriter(path: path, header: header)
        for event in events { try writer.write(event) }
        try writer.close()
        let reader = try FixtureReader(path: path)
        #expect(reader.header == header)
        #expect(reader.sensorIDs == ["a \"quoted\" id"])
        #expect(try readAll(path).get() == events)
    }

    @Test(arguments: [
        (
            "truncated", "{\"t\":1.000,\"s\":\"strap\",\"c\":\"2A37\",\"v\":\"0648\"}\n{\"t\":2.000,\"s\":\"str", 3,
            "expected a closing '\"' but the line ends early (the last line has no newline: the file looks truncated)"
        ),
        (
            "garbled", "{\"t\":1.000,\"s\":\"strap\",\"c\":\"2A37\",\"v\":\"0648\"}\n\u{1}\u{2}garbage\n", 3,
            "expected a JSON object starting with '{'"
        ),
        (
            "odd hex", "{\"t\":1.000,\"s\":\"strap\",\"c\":\"2A37\",\"v\":\"064\"}\n", 2,
            "expected \"v\" to be the notification bytes as an even number of hex digits"
        ),
        (
            "unknown sensor", "{\"t\":1.000,\"s\":\"meter\",\"c\":\"2A63\",\"v\":\"0000\"}\n", 2,
            "expected \"s\" to name a sensor in the header (strap), not \"meter\""
        ),
        (
            "backwards", "{\"t\":2.000,\"action\":\"pause\"}\n{\"t\":1.500,\"action\":\"resume\"}\n", 3,
            "expected \"t\" to be at least 2.000, the time of the event before, not 1.500"
        ),
        (
            "unknown action", "{\"t\":2.000,\"action\":\"jump\"}\n", 2,
            "expected \"action\" to be one of beginActivity, endActivity, pause, resume, lap, marker, end, not \"jump\""
        ),
    ])
    func badLinesNameFileLineAndWhatWasExpected(name: String, body: String, line: Int, problem: String) throws {
        let path = try write("bad.jsonl", Self.header + "\n" + body)
        let error = try #require(readAll(path).failure)
        #expect(error.line == line)
        #expect(error.description == "\(path):\(line): \(problem).")
    }

    @Test func wrongVersionAndNotAFixtureFailOnTheHeader() throws {
        let newer = try write(
            "v2.jsonl", Self.header.replacingOccurrences(of: "\"version\":1", with: "\"version\":2") + "\n")
        #expect(throws: FixtureError(file: newer, line: 1, "expected fixture format version 1, found version 2")) {
            _ = try FixtureReader(path: newer)
        }
        let csv = try write("data.csv", "time,hr\n0,120\n")
        let error = try #require(readAll(csv).failure)
        #expect(
            error.description
                == "\(csv):1: expected a fixture header: a JSON object with \"format\": \"openhealthkit-fixture\" and \"version\": 1."
        )
        let empty = try write("empty.jsonl", "")
        #expect(
            try #require(readAll(empty).failure).description.hasSuffix(
                ":1: expected a fixture header (a JSON object with \"format\": \"openhealthkit-fixture\"), but the file is empty."
            ))
        #expect(
            readAll(directory + "/missing.jsonl").failure?.description
                == "\(directory)/missing.jsonl: expected a fixture file, but there is no such file.")
    }

    @Test func aFileManyBuffersLongIsReadWhole() throws {
        // A file far larger than the reader's buffer is read whole, with the lines counted exactly.
        let path = directory + "/long.jsonl"
        let count = try FixtureSynthesizer.generate(.benchmark, hours: 0.5, to: path)
        let reader = try FixtureReader(path: path)
        var notifications = 0
        while let event = try reader.next() { if case .notification = event.kind { notifications += 1 } }
        #expect(notifications == count)
        #expect(count > 10_000)
    }
}

extension Result {
    var failure: Failure? { if case .failure(let error) = self { error } else { nil } }
}
