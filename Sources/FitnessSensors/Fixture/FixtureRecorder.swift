import Foundation
import Synchronization

/// Records what live sensors receive into a fixture, as it arrives: a ``NotificationTap`` for sensors, plus
/// session actions from the recording program.
///
/// Lines go to a side file (`FILE.partial`) while recording, because the header names each sensor's device
/// information, which is known only once the sensors have connected; ``finish(session:sensors:)`` writes the
/// header and copies the lines after it, streaming, then removes the side file. Times are milliseconds from
/// `start`. Sensors are registered by identifier (``register(identifier:as:)``); bytes from unregistered
/// sensors are ignored.
public final class FixtureRecorder: NotificationTap {
    public let path: String
    public let start: Date
    private let state: Mutex<State>

    private struct State {
        var writer: FixtureWriter?
        var ids: [String: String] = [:]
        var lastTime: Int64 = 0
        var failure: FixtureError?
    }

    /// Starts recording towards `path`.
    public init(path: String, start: Date) throws(FixtureError) {
        self.path = path
        self.start = start
        let body = FixtureHeader(start: start, session: .init(activity: "other"), sensors: [])
        let writer = try FixtureWriter(path: path + ".partial", header: body)
        state = Mutex(State(writer: writer))
    }

    /// Names the sensor `identifier` as `id` in the fixture.
    public func register(identifier: String, as id: String) {
        state.withLock { $0.ids[identifier] = id }
    }

    public func sensor(_ identifier: String, received bytes: [UInt8], characteristic: UInt16, at date: Date) {
        append(identifier, at: date) {
            FixtureEvent.Kind.notification(sensor: 0, characteristic: characteristic, bytes: bytes)
        }
    }

    public func sensor(_ identifier: String, changedTo state: SensorConnectionState, at date: Date) {
        append(identifier, at: date) { FixtureEvent.Kind.connection(sensor: 0, state: state) }
    }

    /// Records a session action at `date`.
    public func record(_ action: FixtureAction, at date: Date) {
        append(nil, at: date) { .action(action) }
    }

    private func append(_ identifier: String?, at date: Date, _ kind: () -> FixtureEvent.Kind) {
        state.withLock { state in
            guard let writer = state.writer else { return }
            var ids = [""]
            if let identifier {
                guard let id = state.ids[identifier] else { return }
                ids = [id]
            }
            // Arrival times from different sensors can interleave by a hair; the file keeps time order.
            let time = max(state.lastTime, Int64((date.timeIntervalSince(start) * 1000).rounded()))
            state.lastTime = time
            do throws(FixtureError) {
                try writer.appendLine(FixtureEvent(time: time, kind: kind()).encodedLine(sensorIDs: ids))
            } catch {
                state.failure = error
                state.writer = nil
            }
        }
    }

    /// Writes the fixture: the header with `session` and `sensors`, then every recorded line.
    ///
    /// - Throws: ``FixtureError`` when writing failed at any point.
    public func finish(session: FixtureHeader.Session, sensors: [FixtureHeader.SensorDescription]) throws(FixtureError)
    {
        let (writer, failure) = state.withLock { state in
            defer { state.writer = nil }
            return (state.writer, state.failure)
        }
        if let failure { throw failure }
        guard let writer else { return }
        try writer.close()
        let header = FixtureHeader(
            start: start, session: session, sensors: sensors, source: ["recordedBy": "workout record"])
        let output = try FixtureWriter(path: path, header: header)
        guard let input = FileHandle(forReadingAtPath: writer.path) else {
            throw FixtureError(file: writer.path, line: 0, "expected the recorded lines, but the file is gone")
        }
        defer { try? input.close() }
        // Copy everything after the placeholder header line, a chunk at a time.
        var skippedHeader = false
        while let chunk = try? input.read(upToCount: 1 << 16), !chunk.isEmpty {
            var bytes = [UInt8](chunk)
            if !skippedHeader {
                guard let newline = bytes.firstIndex(of: 0x0A) else { continue }
                bytes.removeSubrange(...newline)
                skippedHeader = true
            }
            try output.appendRaw(bytes)
        }
        try output.close()
        try? FileManager.default.removeItem(atPath: writer.path)
    }
}
