import Foundation
import Glibc
import OpenHealthKit
import Testing

/// `workout record` on a terminal: a pseudo-terminal (openpty) is its standard input and output; the test types
/// space (pause), space (resume), `l` (lap) and `q` (end and save), each once the view shows the previous one took.
@Suite(.timeLimit(.minutes(1))) struct KeysTests {
    /// The master side of a pseudo-terminal, read with a deadline.
    final class Terminal {
        let master: Int32
        let slave: Int32
        private(set) var output = ""

        init() throws {
            var master: Int32 = -1, slave: Int32 = -1
            var size = winsize(ws_row: 40, ws_col: 120, ws_xpixel: 0, ws_ypixel: 0)
            guard openpty(&master, &slave, nil, nil, &size) == 0 else { throw POSIXError(.EIO) }
            self.master = master
            self.slave = slave
        }

        deinit {
            close(master)
            close(slave)
        }

        func type(_ text: String) {
            _ = text.utf8CString.withUnsafeBufferPointer { write(master, $0.baseAddress, text.utf8.count) }
        }

        /// Reads until `condition` holds for what was read after `offset`, or `seconds` pass (real time: the tool
        /// runs in real time). Returns whether it held.
        func wait(seconds: Double = 15, after offset: String.Index? = nil, until condition: (Substring) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while Date() < deadline {
                if condition(output[(offset ?? output.startIndex)...]) { return true }
                var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 100) > 0 else { continue }
                let count = read(master, &buffer, buffer.count)
                if count <= 0 { return condition(output[(offset ?? output.startIndex)...]) }
                output += String(decoding: buffer[0 ..< count], as: UTF8.self)
            }
            return false
        }
    }

    @Test func spacePausesAndResumesLMarksALapQEndsAndSaves() async throws {
        let directory = try TemporaryDirectory()
        let socket = directory.file("strap.sock")
        let (peripheral, _) = try PeripheralCommandTests.startPeripheral(["--profile", "heart-rate", "--listen", socket])
        defer { if peripheral.isRunning { peripheral.terminate() } }
        let store = directory.file("keys.sqlite")

        let terminal = try Terminal()
        let record = Process()
        record.executableURL = Tool.url
        record.arguments = ["record", "--sensor", "unix:\(socket)", "--store", store]
        let handle = FileHandle(fileDescriptor: terminal.slave, closeOnDealloc: false)
        record.standardInput = handle
        record.standardOutput = handle
        record.standardError = handle
        try record.run()
        defer { if record.isRunning { record.terminate() } }

        #expect(terminal.wait { $0.contains("space pauses, l marks a lap, q or Ctrl-C ends and saves.") }, "\(terminal.output)")
        #expect(terminal.wait { $0.contains("heart rate 1") }, "a heart rate on the view: \(terminal.output)")
        terminal.type(" ")
        #expect(terminal.wait { $0.contains("cycling (paused)") }, "\(terminal.output)")
        var mark = terminal.output.endIndex
        terminal.type(" ")
        #expect(terminal.wait(after: mark) { $0.contains("cycling   moving") }, "resumed: \(terminal.output)")
        mark = terminal.output.endIndex
        terminal.type("l")
        #expect(terminal.wait(after: mark) { $0.contains("lap 2") }, "\(terminal.output)")
        terminal.type("q")
        #expect(terminal.wait { $0.contains("  skipped ") }, "\(terminal.output)")
        record.waitUntilExit()
        #expect(record.terminationStatus == 0)
        #expect(terminal.output.contains("  laps            lap  duration  heart rate  power"))

        let health = try HKHealthStore(databasePath: store, clientIdentifier: "workout")
        let types = HKLiveWorkoutDataSource.collectableTypes
        try await health.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
        let workout = try #require(try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: health).first)
        // Events are in date order, and the lap spans from the start: lap, pause, resume.
        #expect((workout.workoutEvents ?? []).map(\.type) == [.lap, .pause, .resume])
        kill(peripheral.processIdentifier, SIGINT)
        peripheral.waitUntilExit()
    }
}
