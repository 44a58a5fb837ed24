import Foundation
import Hummingbird
import NIOCore
import OpenHealthKit
import Synchronization

/// What a page may ask of the running workout, as the keys do. OpenHealthKit.
public enum LiveControl: String, Sendable, CaseIterable {
    case pause, resume, lap, raiseTarget, lowerTarget
}

/// How a command answered a ``LiveControl``: done, or why this workout cannot (a replay has no trainer).
public enum LiveControlOutcome: Sendable, Equatable {
    case done
    case unavailable(String)
}

/// Serves the live view over HTTP with Hummingbird: the page at `/`, the snapshot as JSON at `/api/live`, the graph's
/// points at `/api/live/history`, Server-Sent Events at `/api/live/events`, and control at `POST /api/control`
/// (`{"action": "pause"}`). OpenHealthKit.
///
/// Who may look: on a loopback address anyone on this machine may look; elsewhere every request needs the access
/// token (`?token=` or `Authorization: Bearer`), and is refused with 401 without one, 403 with a wrong one. Control
/// needs the token on any address (a page from another site cannot steer the workout). The page reads only the
/// feed (``LiveFeed``), never a sensor or the store.
public final class LiveServer: Sendable {
    /// The biggest control request body taken, in bytes.
    static let maximumBody = 1024

    public let address: ServeAddress
    /// The access token the URL carries.
    public let token: String
    public let feed: LiveFeed
    private let control: @Sendable (LiveControl) async -> LiveControlOutcome
    private struct State {
        var task: Task<Void, any Error>?
        var port: Int?
    }
    private let state = Mutex(State())

    /// A server for `feed` at `address`; `control` carries out what a page asks. Nothing listens until ``start()``.
    public init(
        address: ServeAddress, feed: LiveFeed, token: String = LiveServer.makeToken(),
        control: @escaping @Sendable (LiveControl) async -> LiveControlOutcome
    ) {
        self.address = address
        self.feed = feed
        self.token = token
        self.control = control
    }

    /// 128 random bits in hex.
    public static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0 ..< 16).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }
            .joined()
    }

    /// The page's URL with the token, once listening (the port the system chose when asked for 0).
    public var url: String { WebListener.url(address, port: state.withLock { $0.port }, token: token) }

    /// Starts listening; returns once it does.
    ///
    /// - Throws: ``WebError`` with one sentence when the address cannot be listened on (the port in use, say).
    public func start() async throws {
        let (task, port) = try await WebListener.start(
            makeRouter(), at: address, serving: "The live view", option: "--serve")
        state.withLock {
            $0.task = task
            $0.port = port
        }
    }

    /// Ends every browser's stream (each gets its `end` event, for at most a second: a stalled browser is not
    /// waited for longer) and stops listening.
    public func stop() async {
        feed.close()
        let feed = self.feed
        await Self.wait(atMost: .seconds(1)) { await feed.drained() }
        let task = state.withLock { $0.task }
        task?.cancel()
        // The server closes its connections; one stalled in a write is not waited for past a second either.
        await Self.wait(atMost: .seconds(1)) { _ = try? await task?.value }
    }

    /// Runs `operation` and returns when it has, or after `limit` (it then goes on, unawaited).
    static func wait(atMost limit: Duration, _ operation: @escaping @Sendable () async -> Void) async {
        let (done, finish) = AsyncStream.makeStream(of: Void.self)
        let work = Task {
            await operation()
            finish.finish()
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            finish.finish()
        }
        for await _ in done {}
        timer.cancel()
        _ = work
    }

    // MARK: Routes

    private func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: AccessMiddleware(token: token, looking: address.isLoopback ? .free : .withToken))
        let feed = self.feed
        router.get("/") { _, _ -> Response in
            Response(
                status: .ok,
                headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: LivePage.html)))
        }
        router.get("/api/live") { _, _ -> Response in
            guard let latest = feed.latest else {
                return Self.text(.serviceUnavailable, "The workout has not shown a figure yet.")
            }
            return Self.json(latest.json)
        }
        router.get("/api/live/history") { _, _ -> Response in
            Self.json(Data(Self.historyJSON(feed.history).utf8))
        }
        router.get("/api/live/events") { _, _ -> Response in
            let (id, messages) = feed.subscribe()
            return Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                body: ResponseBody { writer in
                    defer { feed.unsubscribe(id) }
                    for await message in messages { try await writer.write(ByteBuffer(bytes: message)) }
                    try await writer.finish(nil)
                })
        }
        let control = self.control
        router.post("/api/control") { request, _ -> Response in
            let body = try await request.body.collect(upTo: Self.maximumBody)
            struct Body: Decodable { var action: String }
            guard let decoded = try? JSONDecoder().decode(Body.self, from: Data(body.readableBytesView)) else {
                return Self.text(.badRequest, "The body must be JSON: {\"action\": \"pause\"}.")
            }
            guard let action = LiveControl(rawValue: decoded.action) else {
                let known = LiveControl.allCases.map(\.rawValue).joined(separator: ", ")
                return Self.text(.badRequest, "'\(decoded.action)' is not an action; the actions are \(known).")
            }
            switch await control(action) {
            case .done: return Response(status: .noContent)
            case .unavailable(let reason): return Self.text(.conflict, reason)
            }
        }
        return router
    }

    static func text(_ status: HTTPResponse.Status, _ sentence: String) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: sentence + "\n")))
    }

    static func json(_ data: Data) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `{"points": [[elapsed, heartRate|null, power|null], …]}`.
    static func historyJSON(_ points: [LiveFeed.Point]) -> String {
        func number(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "null" }
        let items = points.map { "[\(number($0.elapsed)),\(number($0.heartRate)),\(number($0.power))]" }
        return "{\"points\":[\(items.joined(separator: ","))]}"
    }
}

/// The token rule, before every route (an unknown path too): looking is free on loopback, else needs the token;
/// control always needs it. 401 without a token, 403 with a wrong one.
struct AccessMiddleware<Context: RequestContext>: RouterMiddleware {
    enum Looking { case free, withToken }
    let token: String
    let looking: Looking

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let needed = request.method != .get || looking == .withToken
        guard needed else { return try await next(request, context) }
        var given = request.uri.queryParameters.get("token")
        if given == nil, let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer ") {
            given = String(authorization.dropFirst("Bearer ".count))
        }
        guard let given else {
            return LiveServer.text(.unauthorized, "This needs the access token the workout printed (?token=…).")
        }
        guard Self.same(given, token) else {
            return LiveServer.text(.forbidden, "The access token is wrong.")
        }
        return try await next(request, context)
    }

    /// Compares in time that does not depend on where the strings differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
