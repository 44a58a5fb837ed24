import Foundation

/// Writes a fixture: the header line, then one line per event, buffered (64 KiB) so writing costs little.
///
/// Events must be written in time order; ``close()`` flushes. The writer does not check what it writes beyond
/// that: a ``FixtureReader`` reads back everything it writes.
public final class FixtureWriter {
    public let path: String
    private let handle: FileHandle
    private let sensorIDs: [String]
    private var pending: [UInt8] = []
    private var lastTime: Int64 = 0

    /// Creates (or truncates) `path` and writes the header line.
    ///
    /// - Throws: ``FixtureError`` (line 0) when the file cannot be created.
    public init(path: String, header: FixtureHeader) throws(FixtureError) {
        self.path = path
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw FixtureError(file: path, line: 0, "expected a file that can be written, but it cannot be created")
        }
        self.handle = handle
        sensorIDs = header.sensors.map(\.id)
        pending.reserveCapacity(1 << 16)
        try appendLine(header.encodedLine())
    }

    /// Appends one event.
    public func write(_ event: FixtureEvent) throws(FixtureError) {
        precondition(event.time >= lastTime, "fixture events must be written in time order")
        lastTime = event.time
        try appendLine(event.encodedLine(sensorIDs: sensorIDs))
    }

    /// Appends one line that is already encoded (copying a recorded body).
    func appendLine(_ line: String) throws(FixtureError) {
        pending.append(contentsOf: line.utf8)
        pending.append(0x0A)
        if pending.count >= 1 << 16 { try flush() }
    }

    /// Appends bytes that are already whole encoded lines.
    func appendRaw(_ bytes: [UInt8]) throws(FixtureError) {
        pending.append(contentsOf: bytes)
        if pending.count >= 1 << 16 { try flush() }
    }

    /// Writes what is buffered.
    public func flush() throws(FixtureError) {
        guard !pending.isEmpty else { return }
        do { try handle.write(contentsOf: pending) } catch {
            throw FixtureError(
                file: path, line: 0, "expected to write the fixture, but writing failed (\(error.localizedDescription))"
            )
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes the file.
    public func close() throws(FixtureError) {
        try flush()
        try? handle.close()
    }
}
