import Foundation
import Glibc
import TestSupport
import Testing

@testable import OpenHealthKit
@testable import WorkoutWeb

/// The live view in a browser: the real `workout replay --serve` on stepped time as a child process, headless
/// Chromium (``HeadlessChromium``) reading its page, and plain HTTP for the rules on who may look.
@Suite(.blockingWaits, .timeLimit(.minutes(3))) struct LiveWebTests {
    /// A ride of 90 s made by hand: at t = k + 0.5 s the strap says 100 + k bpm and the power meter 150 + 2k W. So
    /// after n seconds the most recent values are 100 + n − 1 bpm and 150 + 2(n − 1) W.
    static func writeRide(in directory: borrowing TemporaryDirectory) throws -> String {
        var lines = [
            #"{"format":"openhealthkit-fixture","version":1,"start":"2026-11-20T07:00:00Z","session":{"activity":"cycling","location":"indoor"},"sensors":[{"id":"strap","name":"Strap","services":["180D"],"capabilities":["heartRate"]},{"id":"power","name":"Meter","services":["1818"],"capabilities":["power"]}]}"#
        ]
        for k in 0 ..< 90 {
            let watts = 150 + 2 * k
            // 0x2A37: flags 0x00 (8-bit bpm); 0x2A63: flags 0x0000, then the power as a little-endian Int16.
            lines.append(#"{"t":\#(k).500,"s":"strap","c":"2A37","v":"00\#(String(format: "%02X", 100 + k))"}"#)
            lines.append(
                #"{"t":\#(k).500,"s":"power","c":"2A63","v":"0000\#(String(format: "%02X%02X", watts & 0xFF, watts >> 8))"}"#
            )
        }
        lines.append(#"{"t":90.000,"action":"end"}"#)
        let path = directory.file("ride.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A paced replay serving its live view, on `clock`; returns it with its page's URL (with the token).
    static func startServedReplay(
        _ file: String, serve: String, clock: SteppedClock, directory: borrowing TemporaryDirectory
    ) throws -> (replay: SteppedClock.Member, url: String, result: () -> Tool.Result) {
        let process = Process()
        process.arguments = [
            "replay", file, "--speed", "1", "--serve", serve, "--store", directory.file("w.sqlite"),
            "--max-heart-rate", "190", "--resting-heart-rate", "50",
        ]
        let pipes = Tool.piped(process)
        let replay = try clock.start(process)
        let banner = read(pipes.out, until: "Replaying")
        let url = try #require(
            banner.split(separator: " ").first { $0.hasPrefix("http://") && $0.contains("token=") }, "\(banner)")
        return (replay, String(url), pipes.result)
    }

    /// The numbers on the page are the replay's, and change without a reload; a second browser sees the same; the
    /// page's Lap and Pause buttons lap and pause the session (the saved workout has the lap). Screenshots of the
    /// page at 1280×800 and 800×1280 are written to `OHK_SCREENSHOTS` when it names a folder.
    @Test(.enabled(if: HeadlessChromium.executable != nil, "Debian's chromium is not installed"))
    func thePageShowsTheReplaysNumbersAsTheyComeAndControlsIt() throws {
        let directory = try TemporaryDirectory()
        let file = try Self.writeRide(in: directory)
        let clock = try SteppedClock(directory: directory)
        let (replay, url, result) = try Self.startServedReplay(
            file, serve: "127.0.0.1:0", clock: clock, directory: directory)
        for _ in 0 ..< 5 { #expect(replay.send("advance 1000 0 0") == "ok") }
        let first = try HeadlessChromium()
        let page = try first.open(url)
        // At 5 s: the reading of 4.5 s, 104 bpm and 158 W.
        let shown = try first.wait(
            until: "document.body.dataset.updates >= 1",
            thenRead: "[heartRate.textContent, powerNow.textContent, elapsed.textContent]", in: page)
        #expect(shown as? [String] == ["104", "158", "0:05"])
        // The same document from here on: a reload would lose this mark.
        _ = try first.evaluate("window.mark = 42", in: page)
        for _ in 0 ..< 3 { #expect(replay.send("advance 1000 0 0") == "ok") }
        let later = try first.wait(
            until: "heartRate.textContent === '107'", thenRead: "[powerNow.textContent, String(window.mark)]",
            in: page)
        #expect(later as? [String] == ["164", "42"])
        // A second browser, at once: the same numbers.
        let second = try HeadlessChromium()
        let secondPage = try second.open(url, width: 800, height: 1280)
        let seen = try second.wait(
            until: "document.body.dataset.updates >= 1", thenRead: "heartRate.textContent", in: secondPage)
        #expect(seen as? String == "107")
        // Lap, then pause, from the page's buttons; the next frame says so in both browsers.
        _ = try first.evaluate("lapButton.click()", in: page)
        #expect(
            try first.wait(until: "lap.textContent === '2'", thenRead: "lapTime.textContent", in: page) as? String
                == "0:00")
        _ = try first.evaluate("pauseButton.click()", in: page)
        #expect(
            try second.wait(
                until: "state.textContent === 'paused'", thenRead: "pauseButton.textContent", in: secondPage)
                as? String == "Resume")
        _ = try second.evaluate("pauseButton.click()", in: secondPage)
        #expect(
            try first.wait(until: "state.textContent === 'live'", thenRead: "lap.textContent", in: page) as? String
                == "2")
        for _ in 0 ..< 40 { #expect(replay.send("advance 1000 0 0") == "ok") }
        _ = try first.wait(until: "heartRate.textContent === '147'", thenRead: "1", in: page)
        _ = try second.wait(until: "heartRate.textContent === '147'", thenRead: "1", in: secondPage)
        if let folder = ProcessInfo.processInfo.environment["OHK_SCREENSHOTS"] {
            try first.screenshot(page).write(to: URL(fileURLWithPath: folder + "/live-1280x800.png"))
            try second.screenshot(secondPage).write(to: URL(fileURLWithPath: folder + "/live-800x1280.png"))
        }
        let png = try first.screenshot(page)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(clock.run(replay, milliseconds: 1000, limit: 100) < 100)
        // The page was told the workout ended.
        #expect(
            try first.wait(until: "state.textContent === 'ended'", thenRead: "message.textContent", in: page)
                as? String == "The workout has ended.")
        let transcript = result().transcript
        // The lap the page marked at 8 s: lap 1 is 0:08, lap 2 the rest (the session was paused a moment at 8 s).
        #expect(transcript.contains("laps            lap  duration"), "\(transcript)")
        #expect(transcript.contains("1    0:08"), "\(transcript)")
    }

    /// Bound to an address other than loopback, every request needs the token (401 without, 403 wrong); control
    /// needs it on loopback too; unknown paths are 404, bad bodies 400, big ones 413; a replay has no trainer (409).
    @Test func whoMayLookAndBadRequests() throws {
        let directory = try TemporaryDirectory()
        let file = try Self.writeRide(in: directory)
        let clock = try SteppedClock(directory: directory)
        let (replay, url, result) = try Self.startServedReplay(
            file, serve: "0.0.0.0:0", clock: clock, directory: directory)
        let port = try #require(URLComponents(string: url)?.port)
        let token = try #require(URLComponents(string: url)?.queryItems?.first { $0.name == "token" }?.value)
        #expect(replay.send("advance 2000 0 0") == "ok")
        #expect(try HTTP.request("GET", "/", port: port).status == 401)
        #expect(try HTTP.request("GET", "/api/live?token=0123", port: port).status == 403)
        #expect(try HTTP.request("GET", "/api/live/events", port: port).status == 401)
        #expect(try HTTP.request("GET", "/nothing", port: port).status == 401)
        #expect(try HTTP.request("GET", "/nothing?token=\(token)", port: port).status == 404)
        let page = try HTTP.request("GET", "/?token=\(token)", port: port)
        #expect(page.status == 200 && page.body.contains("<title>Workout – live</title>"))
        let live = try HTTP.request("GET", "/api/live", port: port, headers: ["Authorization: Bearer \(token)"])
        #expect(live.status == 200)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(live.body.utf8)) as? [String: Any])
        // At 2 s: the reading of 1.5 s.
        #expect(json["heartRate"] as? Double == 101)
        #expect(json["power"] as? Double == 152)
        let control = "/api/control?token=\(token)"
        #expect(try HTTP.request("POST", "/api/control", port: port, body: #"{"action":"lap"}"#).status == 401)
        #expect(try HTTP.request("POST", control, port: port, body: "lap").status == 400)
        #expect(try HTTP.request("POST", control, port: port, body: #"{"action":"jump"}"#).status == 400)
        #expect(
            try HTTP.request("POST", control, port: port, body: String(repeating: "x", count: 5000)).status == 413)
        #expect(try HTTP.request("POST", control, port: port, body: #"{"action":"raiseTarget"}"#).status == 409)
        #expect(try HTTP.request("POST", control, port: port, body: #"{"action":"pause"}"#).status == 204)
        let paused = try HTTP.request("GET", "/api/live?token=\(token)", port: port)
        #expect(paused.body.contains(#""paused":true"#))
        #expect(clock.run(replay, milliseconds: 1000, limit: 100) < 100)
        #expect(result().status == 0)
    }

    /// On loopback anyone on the machine may look without the token; control still needs it.
    @Test func onLoopbackLookingIsFreeAndControlIsNot() throws {
        let directory = try TemporaryDirectory()
        let file = try Self.writeRide(in: directory)
        let clock = try SteppedClock(directory: directory)
        let (replay, url, result) = try Self.startServedReplay(
            file, serve: "127.0.0.1:0", clock: clock, directory: directory)
        let port = try #require(URLComponents(string: url)?.port)
        #expect(replay.send("advance 1000 0 0") == "ok")
        #expect(try HTTP.request("GET", "/api/live", port: port).status == 200)
        // One frame so far, at 1 s: the readings of 0.5 s.
        #expect(try HTTP.request("GET", "/api/live/history", port: port).body == #"{"points":[[1.0,100.0,150.0]]}"#)
        #expect(try HTTP.request("POST", "/api/control", port: port, body: #"{"action":"lap"}"#).status == 401)
        #expect(
            try HTTP.request("POST", "/api/control?token=nope", port: port, body: #"{"action":"lap"}"#).status == 403)
        // A browser that stalls: it asks for the events and never reads them. The replay runs to its end all the same,
        // and ends (its server does not wait on that browser for more than a second).
        let stalled = try HTTP.stalledEventStream(port: port)
        defer { close(stalled) }
        #expect(clock.run(replay, milliseconds: 1000, limit: 100) < 100)
        let ended = result()
        #expect(ended.status == 0)
        #expect(ended.stdout.contains("laps            none"), "\(ended.stdout)")
    }

    /// A port in use: one sentence naming it, exit 1, nothing replayed; a bad address or `--instant` is refused.
    @Test func aPortInUseOrABadAddressIsOneSentence() throws {
        let directory = try TemporaryDirectory()
        let file = try Self.writeRide(in: directory)
        let (listener, port) = try HTTP.listen()
        defer { close(listener) }
        let taken = try Tool.run([
            "replay", file, "--serve", "127.0.0.1:\(port)", "--store", directory.file("a.sqlite"),
        ])
        #expect(taken.status == 1)
        #expect(
            taken.stderr
                == "workout: Port \(port) on 127.0.0.1 is in use by another program \(HTTP.thisProcess); choose another with --serve.\n"
        )
        #expect(!taken.stdout.contains("Replaying"))
        let bad = try Tool.run(["replay", file, "--serve", "127.0.0.1:http", "--store", directory.file("a.sqlite")])
        #expect(bad.status != 0 && bad.stderr.contains("the port must be a number from 0 to 65535"))
        let instant = try Tool.run([
            "replay", file, "--instant", "--serve", "8080", "--store", directory.file("a.sqlite"),
        ])
        #expect(instant.status != 0 && instant.stderr.contains("cannot be used with --instant"))
    }
}

/// The feed alone: publishing never waits for a browser, a slow one gets the newest, the oldest is dropped past
/// the limit.
@Suite(.timeLimit(.minutes(1))) struct LiveFeedTests {
    static func snapshot(_ seconds: Double, heartRate: Double? = 120) -> LiveWorkoutSnapshot {
        var snapshot = LiveWorkoutSnapshot.waiting(activity: "cycling", paused: false)
        snapshot.elapsed = seconds
        snapshot.heartRate = heartRate
        return snapshot
    }

    @Test func aSlowBrowserGetsOnlyTheNewestAndTheOldestIsDroppedPastTheLimit() async throws {
        let feed = LiveFeed(limit: 2)
        let (_, slow) = feed.subscribe()
        // 1000 snapshots while the browser reads none: publishing returns at once, and it holds only the last.
        for second in 0 ..< 1000 { feed.publish(Self.snapshot(Double(second))) }
        var messages = slow.makeAsyncIterator()
        let newest = String(decoding: try #require(await messages.next()), as: UTF8.self)
        #expect(newest.hasPrefix("data: {") && newest.contains(#""elapsedSeconds":999"#) && newest.hasSuffix("}\n\n"))
        // Once a second of elapsed time, the last 600 s.
        #expect(feed.history.count == 601)
        #expect(feed.history.first?.elapsed == 399)
        let (_, second) = feed.subscribe()
        let (_, third) = feed.subscribe()
        #expect(feed.clientCount == 2)
        // The first, the oldest, was told and ended.
        let told = String(decoding: try #require(await messages.next()), as: UTF8.self)
        #expect(told.hasPrefix("event: dropped\n"))
        #expect(await messages.next() == nil)
        feed.close()
        for stream in [second, third] {
            var iterator = stream.makeAsyncIterator()
            let last = String(decoding: try #require(await iterator.next()), as: UTF8.self)
            #expect(last.hasPrefix("event: end\n"))
        }
    }

    @Test func addressesParse() throws {
        #expect(try ServeAddress(parsing: "8080") == ServeAddress(host: "127.0.0.1", port: 8080))
        #expect(try ServeAddress(parsing: "0.0.0.0:80") == ServeAddress(host: "0.0.0.0", port: 80))
        #expect(try ServeAddress(parsing: "[::1]:9000") == ServeAddress(host: "::1", port: 9000))
        #expect(try ServeAddress(parsing: "[::1]:9000").isLoopback)
        #expect(try !ServeAddress(parsing: "192.168.1.5:9000").isLoopback)
        #expect(throws: WebError.self) { try ServeAddress(parsing: "70000") }
        #expect(throws: WebError.self) { try ServeAddress(parsing: ":80") }
        #expect(throws: WebError.self) { try ServeAddress(parsing: "[::1]") }
    }
}

/// HTTP/1.1 over a plain socket to 127.0.0.1, one request per connection, every read with a deadline.
enum HTTP {
    struct Reply {
        var status: Int
        var body: String
    }

    static func request(
        _ method: String, _ path: String, port: Int, headers: [String] = [], body: String? = nil
    ) throws -> Reply {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for header in headers { text += header + "\r\n" }
        if let body { text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + (body ?? "")
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 8192)
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while true {
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero, poll(&ready, 1, Int32(left.components.seconds * 1000) + 1) > 0 else {
                throw BrowserFailure("no whole answer to \(method) \(path) in 10 s")
            }
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0 ..< count]
        }
        let reply = String(decoding: received, as: UTF8.self)
        let status = reply.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        let body = reply.range(of: "\r\n\r\n").map { String(reply[$0.upperBound...]) } ?? ""
        return Reply(status: status, body: body)
    }

    /// A connection that asks for `/api/live/events` with a receive buffer of 1 KiB and then never reads.
    static func stalledEventStream(port: Int) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var size: Int32 = 1024
        setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let request = Array("GET /api/live/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return socket
    }

    /// How a "port in use" sentence names this process, which holds the ports ``listen()`` opens: its name as the
    /// kernel keeps it and its pid.
    static var thisProcess: String {
        let name =
            (try? String(contentsOfFile: "/proc/self/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return "(\(name), pid \(getpid()))"
    }

    /// A socket listening on a free port of 127.0.0.1, and the port.
    static func listen() throws -> (Int32, Int) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && Glibc.listen(socket, 4) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return (socket, Int(UInt16(bigEndian: address.sin_port)))
    }
}
