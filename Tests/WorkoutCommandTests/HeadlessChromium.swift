import Foundation
import Glibc
import TestSupport
import Testing

/// Debian's Chromium, headless, driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: commands
/// in on descriptor 3, answers and events out on 4, each message JSON ended by a NUL byte), so no WebSocket client is
/// needed. Every read has a deadline; the browser runs in a process group of its own, killed at the end.
final class HeadlessChromium {
    /// One page (a target attached in flat mode: commands carry its session id).
    struct Page {
        let session: String
    }

    /// Where Chromium is, or nil when it is not installed (the tests that need it say so and are skipped).
    static let executable: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    private let pid: pid_t
    private let input: Int32
    private let output: Int32
    private let profile: String
    private var pending = [UInt8]()
    private var nextID = 0

    init() throws {
        let executable = try #require(Self.executable, "chromium is not installed")
        profile = NSTemporaryDirectory() + "ohk-chromium-" + UUID().uuidString.prefix(8)
        var toBrowser: [Int32] = [-1, -1]
        var fromBrowser: [Int32] = [-1, -1]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else { throw POSIXError(.EMFILE) }
        // Only the browser gets them, as 3 and 4 (dup2 clears the flag on the copies).
        for descriptor in toBrowser + fromBrowser { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toBrowser[0], 3)
        posix_spawn_file_actions_adddup2(&actions, fromBrowser[1], 4)
        // Nothing else of this process's: the other tests' sockets, held by a browser, would never be seen to close.
        // (glibc's posix_spawn ignores a close of a descriptor closed meanwhile.)
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 4 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let arguments = [
            executable, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
            "--user-data-dir=\(profile)", "about:blank",
        ]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, &argv, environ)
        close(toBrowser[0])
        close(fromBrowser[1])
        guard spawned == 0 else {
            close(toBrowser[1])
            close(fromBrowser[0])
            throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .ENOEXEC)
        }
        self.pid = pid
        input = toBrowser[1]
        output = fromBrowser[0]
    }

    deinit {
        close(input)
        close(output)
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        try? FileManager.default.removeItem(atPath: profile)
    }

    /// Opens `url` in a new page of `width` × `height` CSS pixels.
    func open(_ url: String, width: Int = 1280, height: Int = 800) throws -> Page {
        let target = try call("Target.createTarget", ["url": "about:blank"])
        let targetID = try #require(target["targetId"] as? String)
        let attached = try call("Target.attachToTarget", ["targetId": targetID, "flatten": true])
        let page = Page(session: try #require(attached["sessionId"] as? String))
        try resize(page, width: width, height: height)
        _ = try call("Page.navigate", ["url": url], page: page)
        return page
    }

    /// Sets the page's viewport.
    func resize(_ page: Page, width: Int, height: Int) throws {
        _ = try call(
            "Emulation.setDeviceMetricsOverride",
            ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false], page: page)
    }

    /// The value of a JavaScript expression in `page` (a promise is awaited, by the browser).
    func evaluate(_ expression: String, in page: Page, within seconds: Double = 45) throws -> Any? {
        let answer = try call(
            "Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true], page: page,
            within: seconds)
        if let exception = answer["exceptionDetails"] {
            throw BrowserFailure("the page threw: \(exception)")
        }
        return (answer["result"] as? [String: Any])?["value"]
    }

    /// Waits, in the page, until `condition` (a JavaScript expression) holds, then returns `value`'s value: the
    /// browser checks every 20 ms; the test reads its answer with a deadline of `seconds`.
    func wait(
        until condition: String, thenRead value: String, in page: Page, within seconds: Double = 45
    ) throws -> Any? {
        let script = """
            new Promise((resolve) => { const check = () => { try { if (\(condition)) return resolve(\(value)); } \
            catch (e) {} setTimeout(check, 20); }; check(); })
            """
        return try evaluate(script, in: page, within: seconds)
    }

    /// A PNG of the page as it is now.
    func screenshot(_ page: Page) throws -> Data {
        let answer = try call("Page.captureScreenshot", ["format": "png"], page: page)
        let base64 = try #require(answer["data"] as? String)
        return try #require(Data(base64Encoded: base64))
    }

    /// Sends one command and returns its result, skipping the events in between.
    func call(
        _ method: String, _ parameters: [String: Any] = [:], page: Page? = nil, within seconds: Double = 45
    ) throws -> [String: Any] {
        nextID += 1
        let id = nextID
        var message: [String: Any] = ["id": id, "method": method, "params": parameters]
        if let page { message["sessionId"] = page.session }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        guard bytes.withUnsafeBytes({ write(input, $0.baseAddress, $0.count) }) == bytes.count else {
            throw BrowserFailure("chromium stopped reading its commands")
        }
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(seconds * 1000)))
        while true {
            let reply = try next(before: deadline, waitingFor: method)
            guard reply["id"] as? Int == id else { continue }
            if let error = reply["error"] { throw BrowserFailure("\(method) failed: \(error)") }
            return reply["result"] as? [String: Any] ?? [:]
        }
    }

    /// The next message from the browser, read before `deadline`.
    private func next(before deadline: ContinuousClock.Instant, waitingFor method: String) throws -> [String: Any] {
        expectMayBlock("Waiting for the browser's \(method)")
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let end = pending.firstIndex(of: 0) {
                let message = Data(pending[..<end])
                pending.removeSubrange(...end)
                return try JSONSerialization.jsonObject(with: message) as? [String: Any] ?? [:]
            }
            let left = ContinuousClock.now.duration(to: deadline)
            var ready = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(
                max(0, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            guard left > .zero, poll(&ready, 1, milliseconds) > 0 else {
                throw BrowserFailure("chromium did not answer \(method) in time")
            }
            let count = read(output, &buffer, buffer.count)
            guard count > 0 else { throw BrowserFailure("chromium closed its pipe while answering \(method)") }
            pending += buffer[0 ..< count]
        }
    }
}

struct BrowserFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
