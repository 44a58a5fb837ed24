// Live web benchmark: what a browser beside the bike sees, end to end, with the release `workout` binary.
//
// 1. Latency: `workout record --serve` records a strap this program serves on a Unix socket (a new heart rate every
//    0.5 s, each value dated when it is sent), with its terminal view on a pseudo-terminal. A value's latency is the
//    time from its notification to the first terminal frame that shows it, and to the first Server-Sent Event that
//    carries it, in each browser (raw HTTP clients on loopback reading `/api/live/events`). Run twice, with no
//    browser and with `browsers` of them: the terminal's latency and the recording's CPU time with browsers against
//    without is what the browsers cost the recording.
// 2. Memory: `workout replay --serve` of a 3-hour four-sensor fixture at `--speed 100`, with one browser attached and
//    with none; the replay's peak resident memory (VmHWM, read until it exits).
//
//     swift build -c release --product workout && swift run -c release LiveWebBenchmark [seconds] [browsers]
import BlueZTransport
import BluetoothLE
import FitnessSensors
import FixtureSynthesis
import Foundation
import Glibc
import Synchronization
import UnixSockets

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let seconds = max(arguments.first ?? 120, 10)
let browserCount = max(arguments.dropFirst().first ?? 10, 1)
let workout = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
    "workout"
).path
guard FileManager.default.isExecutableFile(atPath: workout) else {
    print("LiveWebBenchmark: no \(workout); build it first: swift build -c release --product workout")
    exit(1)
}
let directory = NSTemporaryDirectory() + "ohk-web-bench-" + UUID().uuidString
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

/// Seconds since this program started, on the monotonic clock every side is dated with.
enum Stopwatch {
    static let origin = ContinuousClock.now
    static func now() -> Double {
        let duration = origin.duration(to: .now)
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
func now() -> Double { Stopwatch.now() }

/// A free loopback TCP port (bound, read, closed).
func freePort() -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
    }
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Every number that follows `prefix` in a byte stream (`"heartRate":N` in the events, `heart rate N bpm` on the
/// terminal), dated when its bytes arrived: a reader on a thread of its own, keeping a short tail so that a value
/// split across two reads is still found.
final class ValueReader: Sendable {
    private let seen = Mutex<[(value: Int, at: Double)]>([])

    init(descriptor: Int32, prefix: String) {
        let thread = Thread { [self] in
            var tail = ""
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                guard count > 0 else { return }
                let at = Stopwatch.now()
                let text = tail + String(decoding: buffer[0 ..< count], as: UTF8.self)
                let values = Self.numbers(in: text, after: prefix)
                if !values.isEmpty { seen.withLock { $0 += values.map { ($0, at) } } }
                // A value cut at the end of this read is whole in the next: keep the last bytes (already matched
                // ones are matched again, and only their first arrival counts).
                tail = String(text.suffix(40))
            }
        }
        thread.start()
    }

    /// The numbers right after each `prefix` in `text`.
    static func numbers(in text: String, after prefix: String) -> [Int] {
        var numbers: [Int] = []
        var rest = Substring(text)
        while let range = rest.range(of: prefix) {
            rest = rest[range.upperBound...]
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            if let number = Int(digits), digits.endIndex < rest.endIndex { numbers.append(number) }
        }
        return numbers
    }

    /// When `value` first arrived after `time`.
    func first(_ value: Int, after time: Double) -> Double? {
        seen.withLock { $0.first { $0.value == value && $0.at >= time }?.at }
    }
}

/// A browser: an HTTP GET of the live events on loopback, read as they come.
func attachBrowser(port: Int) -> ValueReader? {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else {
        close(descriptor)
        return nil
    }
    let request = "GET /api/live/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n"
    _ = request.withCString { write(descriptor, $0, strlen($0)) }
    return ValueReader(descriptor: descriptor, prefix: "\"heartRate\":")
}

/// A child process with its standard output on a pipe; stderr is kept in a file for when it fails.
func launch(_ executable: String, _ arguments: [String]) throws -> (Process, Int32) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle(forWritingAtPath: "/dev/null")
    process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
    try process.run()
    return (process, output.fileHandleForReading.fileDescriptor)
}

/// CPU seconds of this program's waited-for children so far.
func childrenCPU() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
        + Double(usage.ru_stime.tv_usec) / 1e6
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
}

struct RecordRun {
    var terminal: [Double]
    var pages: [Double]
    /// A page's event after the terminal's frame of the same value (both come from one frame's snapshot).
    var afterTerminal: [Double]
    var missed: Int
    var cpu: Double
}

/// One `workout record --serve` of `seconds` from the strap served here, with `browsers` attached.
func record(browsers: Int) async throws -> RecordRun {
    let socketPath = directory + "/strap-\(browsers).sock"
    let listener = try UnixListener(path: socketPath)
    defer { listener.close() }
    let peripheral = SimulatedPeripheral(profile: .heartRateStrap())
    let server = Task {
        while let bearer = try? await listener.acceptBearer() { Task { await peripheral.serve(bearer) } }
    }
    defer { server.cancel() }
    let port = freePort()
    let command = [
        workout, "record", "--sensor", "unix:\(socketPath)", "--serve", "127.0.0.1:\(port)", "--duration",
        "\(seconds + 5)", "--store", directory + "/record-\(browsers).sqlite",
    ].joined(separator: " ")
    let cpuBefore = childrenCPU()
    // The terminal view on a pseudo-terminal (util-linux's script), its frames read here.
    let (process, output) = try launch("/usr/bin/script", ["-qfec", command, "/dev/null"])
    let terminal = ValueReader(descriptor: output, prefix: "heart rate ")
    // Wait for the recording to connect to the strap and to serve its page.
    let deadline = now() + 30
    while await peripheral.measurementSubscriptions.isEmpty, now() < deadline {
        try await Task.sleep(for: .milliseconds(50))
    }
    var pages: [ValueReader] = []
    while pages.count < browsers, now() < deadline {
        if let page = attachBrowser(port: port) {
            pages.append(page)
        } else {
            try await Task.sleep(for: .milliseconds(50))
        }
    }
    guard pages.count == browsers else {
        process.terminate()
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the page never answered"])
    }
    // A new heart rate every 0.5–0.75 s, 60–199 bpm in turn (a value comes back at least 70 s after it was last
    // sent): the spread puts the values at every phase of the views' 250 ms frames.
    let measurement = PeripheralProfile.heartRateStrap().measurement
    var sent: [(value: Int, at: Double)] = []
    try await Task.sleep(for: .seconds(1))
    let end = now() + Double(seconds)
    var index = 0
    while now() < end {
        let value = 60 + index % 140
        sent.append((value, now()))
        await peripheral.publish(HeartRateMeasurement(heartRate: UInt16(value)).encode(), of: measurement)
        try await Task.sleep(for: .milliseconds(500 + index * 97 % 250))
        index += 1
    }
    process.waitUntilExit()
    let cpu = childrenCPU() - cpuBefore
    var terminalLatencies: [Double] = []
    var pageLatencies: [Double] = []
    var afterTerminal: [Double] = []
    var missed = 0
    for (value, at) in sent.dropLast(2) {
        let onTerminal = terminal.first(value, after: at)
        if let onTerminal { terminalLatencies.append(onTerminal - at) } else { missed += 1 }
        for page in pages {
            guard let shown = page.first(value, after: at) else {
                missed += 1
                continue
            }
            pageLatencies.append(shown - at)
            if let onTerminal { afterTerminal.append(shown - onTerminal) }
        }
    }
    return RecordRun(
        terminal: terminalLatencies, pages: pageLatencies, afterTerminal: afterTerminal, missed: missed, cpu: cpu)
}

/// The peak resident memory of `workout replay --serve` of `fixture` at `--speed 100`, with a browser or none.
func replayPeak(_ fixture: String, browser: Bool) async throws -> (peak: Double, events: Int) {
    let port = freePort()
    let (process, output) = try launch(
        workout,
        [
            "replay", fixture, "--speed", "100", "--serve", "127.0.0.1:\(port)", "--store",
            directory + "/replay-\(browser).sqlite",
        ])
    _ = ValueReader(descriptor: output, prefix: "\u{0}")  // drains its output
    var page: ValueReader?
    var peak = 0.0
    let status = "/proc/\(process.processIdentifier)/status"
    while process.isRunning {
        if browser, page == nil { page = attachBrowser(port: port) }
        if let text = try? String(contentsOfFile: status, encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kb = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
        {
            peak = max(peak, kb / 1024)
        }
        try await Task.sleep(for: .milliseconds(200))
    }
    return (peak, page == nil ? 0 : 1)
}

print(
    "Live web benchmark: `workout record --serve` from a strap on a Unix socket (a new heart rate every 0.5 s), "
        + "its terminal view on a pty, \(seconds) s a run")
let alone = try await record(browsers: 0)
let watched = try await record(browsers: browserCount)
func line(_ name: String, _ values: [Double]) -> String {
    String(
        format: "%@ p50 %6.1f ms  p99 %6.1f ms  (%d values)", name, percentile(values, 0.5) * 1000,
        percentile(values, 0.99) * 1000, values.count)
}
print("  no browser:     " + line("terminal", alone.terminal) + String(format: "   CPU %.2f s", alone.cpu))
print(
    "  \(browserCount) browsers:    " + line("terminal", watched.terminal)
        + String(format: "   CPU %.2f s", watched.cpu))
print("                  " + line("page    ", watched.pages) + " over \(browserCount) browsers")
print("                  " + line("page after the terminal's frame", watched.afterTerminal))
print(
    String(
        format:
            "  with %d browsers against none: terminal p50 %.2f×, p99 %.2f×; CPU %.2f×; values never shown: %d and %d",
        browserCount, percentile(watched.terminal, 0.5) / percentile(alone.terminal, 0.5),
        percentile(watched.terminal, 0.99) / percentile(alone.terminal, 0.99), watched.cpu / alone.cpu, alone.missed,
        watched.missed))

let fixture = directory + "/three-hours.jsonl"
try FixtureSynthesizer.generate(.benchmark, hours: 3, to: fixture)
print("\nMemory: `workout replay --serve --speed 100` of a 3-hour fixture (4 sensors), peak resident memory")
let bare = try await replayPeak(fixture, browser: false)
let served = try await replayPeak(fixture, browser: true)
print(String(format: "  no browser   %6.1f MB", bare.peak))
print(String(format: "  a browser    %6.1f MB   (%d browser attached throughout)", served.peak, served.events))
