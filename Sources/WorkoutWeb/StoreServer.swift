import Foundation
import Hummingbird
import NIOCore
import OpenHealthKit
import Synchronization

/// A workout in the store's list, as the command words it. OpenHealthKit.
public struct StoreListRow: Sendable, Equatable {
    public var id: UUID
    public var start: String
    public var activity: String
    public var duration: String
    public var distance: String

    public init(id: UUID, start: String, activity: String, duration: String, distance: String) {
        self.id = id
        self.start = start
        self.activity = activity
        self.duration = duration
        self.distance = distance
    }
}

/// A figure over a workout's time, for a chart of its own: (seconds from the start, value) points. OpenHealthKit.
public struct StoreSeries: Sendable, Equatable {
    public var name: String
    public var unit: String
    public var colour: String
    public var points: [(seconds: Double, value: Double)]
    /// The longest gap between two points a line joins (longer is a dropout, drawn as a gap).
    public var hold: Double

    public init(name: String, unit: String, colour: String, points: [(seconds: Double, value: Double)], hold: Double) {
        self.name = name
        self.unit = unit
        self.colour = colour
        self.points = points
        self.hold = hold
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.name == b.name && a.unit == b.unit && a.colour == b.colour && a.hold == b.hold
            && a.points.elementsEqual(b.points) { $0.seconds == $1.seconds && $0.value == $1.value }
    }
}

/// One workout's page, as the command computes it: the summary `workout show` prints, the heart-rate and power
/// chart it draws, a chart per further figure, the route, and the formats it can be downloaded in. OpenHealthKit.
public struct StoreWorkoutPage: Sendable {
    public var id: UUID
    public var title: String
    /// The lines of `workout show`, shown as they are.
    public var summary: [String]
    /// The heart-rate and power chart (SVG), nil when there is neither.
    public var chart: String?
    /// Cadence, speed, … each over the workout's time.
    public var series: [StoreSeries]
    /// The workout's length in seconds (the series' time axis), and its pauses and laps as seconds from the start.
    public var span: Double
    public var pauses: [(start: Double, end: Double)]
    public var laps: [Double]
    /// The route's positions (latitude, longitude) in time order; empty without one.
    public var route: [(latitude: Double, longitude: Double)]
    /// The file formats it can be downloaded in (`fit`, `tcx`, `gpx`).
    public var downloads: [String]

    public init(
        id: UUID, title: String, summary: [String], chart: String?, series: [StoreSeries], span: Double,
        pauses: [(start: Double, end: Double)], laps: [Double], route: [(latitude: Double, longitude: Double)],
        downloads: [String]
    ) {
        self.id = id
        self.title = title
        self.summary = summary
        self.chart = chart
        self.series = series
        self.span = span
        self.pauses = pauses
        self.laps = laps
        self.route = route
        self.downloads = downloads
    }
}

/// A file to download: its bytes, name and media type. OpenHealthKit.
public struct StoreDownload: Sendable {
    public var bytes: [UInt8]
    public var filename: String
    public var contentType: String

    public init(bytes: [UInt8], filename: String, contentType: String) {
        self.bytes = bytes
        self.filename = filename
        self.contentType = contentType
    }
}

/// What the store's pages show, computed by the command from the store (the library's queries and the tool's own
/// wording): this target only serves and lays it out. OpenHealthKit.
public struct StoreSite: Sendable {
    public var list: @Sendable () async throws -> [StoreListRow]
    /// A workout's page; nil when the store has no such workout.
    public var workout: @Sendable (UUID) async throws -> StoreWorkoutPage?
    /// A workout in a format; nil when there is no such workout or it has nothing for the format (a GPX without a
    /// route). Throws with one sentence when the file cannot be made.
    public var download: @Sendable (UUID, String) async throws -> StoreDownload?

    public init(
        list: @escaping @Sendable () async throws -> [StoreListRow],
        workout: @escaping @Sendable (UUID) async throws -> StoreWorkoutPage?,
        download: @escaping @Sendable (UUID, String) async throws -> StoreDownload?
    ) {
        self.list = list
        self.workout = workout
        self.download = download
    }
}

/// Serves a store's past workouts as pages (`workout serve`): the list at `/`, a workout at `/workouts/UUID`, its
/// files at `/workouts/UUID/fit` (and `tcx`, `gpx`). The token rule is the live view's (``LiveServer``): on loopback
/// anyone on this machine may look; elsewhere every request needs the token, and the pages' links carry it.
/// Read-only: nothing a request asks changes the store. OpenHealthKit.
public final class StoreServer: Sendable {
    public let address: ServeAddress
    public let token: String
    private let site: StoreSite
    private struct State {
        var task: Task<Void, any Error>?
        var port: Int?
    }
    private let state = Mutex(State())

    public init(address: ServeAddress, site: StoreSite, token: String = LiveServer.makeToken()) {
        self.address = address
        self.site = site
        self.token = token
    }

    /// The list's URL with the token, once listening.
    public var url: String { WebListener.url(address, port: state.withLock { $0.port }, token: token) }

    /// Starts listening; returns once it does.
    ///
    /// - Throws: ``WebError`` with one sentence when the address cannot be listened on.
    public func start() async throws {
        let (task, port) = try await WebListener.start(
            makeRouter(), at: address, serving: "The store's pages", option: "`workout serve [HOST:]PORT`")
        state.withLock {
            $0.task = task
            $0.port = port
        }
    }

    /// Stops listening (a connection stalled in a write is not waited for past a second).
    public func stop() async {
        let task = state.withLock { $0.task }
        task?.cancel()
        await LiveServer.wait(atMost: .seconds(1)) { _ = try? await task?.value }
    }

    private func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: AccessMiddleware(token: token, looking: address.isLoopback ? .free : .withToken))
        let site = self.site
        // Links carry the token where looking needs it.
        let query = address.isLoopback ? "" : "?token=\(token)"
        router.get("/") { _, _ -> Response in
            try await Self.answering { Self.html(StorePages.list(try await site.list(), query: query)) }
        }
        router.get("/workouts/:id") { _, context -> Response in
            guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
                return LiveServer.text(.notFound, "There is no workout at this address.")
            }
            return try await Self.answering {
                guard let page = try await site.workout(id) else {
                    return LiveServer.text(.notFound, "The store has no workout \(id.uuidString).")
                }
                return Self.html(StorePages.workout(page, query: query))
            }
        }
        router.get("/workouts/:id/:format") { _, context -> Response in
            guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)),
                let format = context.parameters.get("format"), ["fit", "tcx", "gpx"].contains(format)
            else {
                return LiveServer.text(.notFound, "There is no file at this address; the formats are fit, tcx and gpx.")
            }
            return try await Self.answering {
                guard let file = try await site.download(id, format) else {
                    return LiveServer.text(
                        .notFound, "The workout \(id.uuidString) has no \(format.uppercased()) file.")
                }
                return Response(
                    status: .ok,
                    headers: [
                        .contentType: file.contentType,
                        .contentDisposition: "attachment; filename=\"\(file.filename)\"",
                    ],
                    body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
            }
        }
        return router
    }

    /// A store that fails (damaged, gone) answers 500 with its sentence, not an empty error page.
    static func answering(_ body: () async throws -> Response) async throws -> Response {
        do { return try await body() } catch let error as HKError {
            return LiveServer.text(.internalServerError, error.message)
        } catch let error as WebError {
            return LiveServer.text(.internalServerError, error.message)
        }
    }

    static func html(_ text: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
