import Foundation
import Glibc
import TestSupport
import Testing

/// `workout serve`: the store's workouts in a real headless Chromium (the list, a ride's page with its charts, a
/// run's route), the files it offers, and plain HTTP for who may look and for bad addresses.
///
/// Serialized: each test waits synchronously on child processes and the browser (with deadlines), holding one of the
/// two cooperative threads of this machine while it does; two at once starved the rest of the test process.
@Suite(.blockingWaits, .serialized, .timeLimit(.minutes(3))) struct StoreWebTests {
    /// A store with the intervals ride (cadence, speed, pauses, laps) and a 30-minute loop run imported from GPX
    /// (a route); returns the store and the two workouts' UUIDs.
    static func filledStore(in directory: borrowing TemporaryDirectory) throws -> (String, ride: String, run: String) {
        let store = directory.file("store.sqlite")
        let ride = try Tool.run(["replay", fixture("intervals-pauses-laps.jsonl"), "--instant", "--store", store])
        #expect(ride.status == 0, "\(ride.stderr)")
        var points: [String] = []
        for i in 0 ..< 600 {
            let angle = Double(i) / 600 * 2 * .pi
            let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: 1_793_520_000 + Double(i) * 3))
            points.append(
                String(
                    format: #"<trkpt lat="%.6f" lon="%.6f"><ele>520</ele><time>%@</time></trkpt>"#,
                    48.137 + 0.01 * sin(angle), 11.575 + 0.015 * cos(angle), time))
        }
        let gpx = directory.file("loop.gpx")
        try
            (#"<?xml version="1.0"?><gpx version="1.1" creator="tests" xmlns="http://www.topografix.com/GPX/1/1">"#
            + "<trk><type>running</type><trkseg>\(points.joined())</trkseg></trk></gpx>")
            .write(toFile: gpx, atomically: true, encoding: .utf8)
        let run = try Tool.run(["import", gpx, "--store", store])
        #expect(run.status == 0, "\(run.stderr)")
        return (store, try #require(Self.uuid(in: ride.stdout)), try #require(Self.uuid(in: run.stdout)))
    }

    /// The first whole UUID in `text` (the saved workout's).
    static func uuid(in text: String) -> String? {
        text.firstMatch(of: /[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}/).map { String($0.output) }
    }

    /// `workout serve ADDRESS` running; returns it, its URL (with the token) and its port.
    static func serve(
        _ address: String, store: String
    ) throws -> (
        process: Process, url: String, port: Int, result: () -> Tool.Result
    ) {
        let process = Process()
        process.executableURL = Tool.url
        process.standardInput = FileHandle.nullDevice
        process.arguments = ["serve", address, "--store", store]
        let pipes = Tool.piped(process)
        try process.run()
        let banner = read(pipes.out, until: "Ctrl-C stops")
        let url = try #require(
            banner.split(separator: " ").first { $0.hasPrefix("http://") && $0.contains("token=") }, "\(banner)")
        let port = try #require(URLComponents(string: String(url))?.port)
        return (process, String(url), port, pipes.result)
    }

    @Test(.enabled(if: HeadlessChromium.executable != nil, "Debian's chromium is not installed"))
    func theListAndAWorkoutsPageInABrowser() throws {
        let directory = try TemporaryDirectory()
        let (store, ride, run) = try Self.filledStore(in: directory)
        let served = try Self.serve("127.0.0.1:0", store: store)
        // A test that fails early leaves no server behind.
        defer { served.process.killGroup() }
        let browser = try HeadlessChromium()
        let page = try browser.open(served.url)
        // Newest first: the ride of 2026-11-20, then the run of 2026-11-01 (local times, so only the links are read).
        let links = try browser.wait(
            until: "document.querySelectorAll('td a').length === 2",
            thenRead: "[...document.querySelectorAll('td a')].map(a => a.getAttribute('href'))", in: page)
        #expect(links as? [String] == ["/workouts/\(ride)", "/workouts/\(run)"])

        // The first link, followed in a page of its own (a click would navigate under the next evaluation).
        let ridePage = try browser.open("http://127.0.0.1:\(served.port)/workouts/\(ride)")
        let headings = try browser.wait(
            until: "document.readyState === 'complete' && document.querySelectorAll('h2').length > 0",
            thenRead: "[...document.querySelectorAll('h2')].map(h => h.textContent)", in: ridePage)
        #expect(headings as? [String] == ["Heart rate and power", "Cadence", "Speed", "Summary"])
        // Cadence over 42 minutes with its two pauses shaded, its eleven lap starts dashed, and its line in three
        // pieces (the sensor is silent through each pause, longer than a reading holds); the ride has no route.
        let cadence = try browser.evaluate(
            """
            (() => { const svg = document.querySelectorAll('svg')[1];
              return [svg.querySelectorAll('rect[fill-opacity="0.08"]').length,
                      svg.querySelectorAll('line[stroke-dasharray]').length,
                      svg.querySelectorAll('polyline').length].join(' '); })()
            """, in: ridePage)
        #expect(cadence as? String == "2 11 3")
        let downloads = try browser.evaluate(
            "[...document.querySelectorAll('.downloads a')].map(a => a.textContent)", in: ridePage)
        #expect(downloads as? [String] == ["FIT", "TCX"])
        #expect(
            try browser.evaluate(
                "document.querySelector('pre').textContent.startsWith('Workout \(ride)')", in: ridePage)
                as? Bool == true)
        if let folder = ProcessInfo.processInfo.environment["OHK_SCREENSHOTS"] {
            try browser.resize(ridePage, width: 1280, height: 2000)
            try browser.screenshot(ridePage).write(to: URL(fileURLWithPath: folder + "/serve-ride.png"))
        }

        let runPage = try browser.open(
            served.url.replacingOccurrences(of: "/?", with: "/workouts/\(run)?"), width: 800, height: 1280)
        let route = try browser.wait(
            until: "document.readyState === 'complete' && document.querySelector('svg[aria-label=\"Route\"]') !== null",
            thenRead:
                "document.querySelector('svg[aria-label=\"Route\"] polyline').getAttribute('points').split(' ').length",
            in: runPage)
        #expect(route as? Int == 600)
        #expect(
            try browser.evaluate("[...document.querySelectorAll('.downloads a')].map(a => a.textContent)", in: runPage)
                as? [String] == ["FIT", "TCX", "GPX"])

        // The files: a FIT file of the ride, a GPX of the run, none of the ride.
        let fit = try HTTP.request("GET", "/workouts/\(ride)/fit", port: served.port)
        #expect(fit.status == 200 && fit.body.contains(".FIT"))
        let gpx = try HTTP.request("GET", "/workouts/\(run)/gpx", port: served.port)
        #expect(gpx.status == 200 && gpx.body.contains("<trkpt"))
        let none = try HTTP.request("GET", "/workouts/\(ride)/gpx", port: served.port)
        #expect(none.status == 404 && none.body == "The workout \(ride) has no GPX file.\n")
        #expect(try HTTP.request("GET", "/workouts/\(ride)/csv", port: served.port).status == 404)
        #expect(try HTTP.request("GET", "/workouts/nothing", port: served.port).status == 404)
        let unknown = UUID().uuidString
        let missing = try HTTP.request("GET", "/workouts/\(unknown)", port: served.port)
        #expect(missing.status == 404 && missing.body == "The store has no workout \(unknown).\n")

        served.process.interrupt()
        let ended = served.result()
        #expect(ended.status == 0 && ended.stderr == "", "\(ended.transcript)")
    }

    @Test func elsewhereEveryRequestNeedsTheTokenAndLinksCarryIt() throws {
        let directory = try TemporaryDirectory()
        let (store, ride, _) = try Self.filledStore(in: directory)
        let served = try Self.serve("0.0.0.0:0", store: store)
        // A test that fails early leaves no server behind.
        defer { served.process.killGroup() }
        let token = try #require(URLComponents(string: served.url)?.queryItems?.first { $0.name == "token" }?.value)
        #expect(try HTTP.request("GET", "/", port: served.port).status == 401)
        #expect(try HTTP.request("GET", "/workouts/\(ride)", port: served.port).status == 401)
        #expect(try HTTP.request("GET", "/workouts/\(ride)/fit?token=0123", port: served.port).status == 403)
        let list = try HTTP.request("GET", "/?token=\(token)", port: served.port)
        #expect(list.status == 200 && list.body.contains("href=\"/workouts/\(ride)?token=\(token)\""))
        let page = try HTTP.request("GET", "/workouts/\(ride)?token=\(token)", port: served.port)
        #expect(page.status == 200 && page.body.contains("href=\"/workouts/\(ride)/fit?token=\(token)\""))
        served.process.interrupt()
        #expect(served.result().status == 0)
    }

    @Test func aPortInUseOrABadAddressIsOneSentence() throws {
        let directory = try TemporaryDirectory()
        let (listener, port) = try HTTP.listen()
        defer { close(listener) }
        let taken = try Tool.run(["serve", "127.0.0.1:\(port)", "--store", directory.file("s.sqlite")])
        #expect(
            taken.transcript == """
                --- stderr
                workout: Port \(port) on 127.0.0.1 is in use by another program \(HTTP.thisProcess); choose another with `workout serve [HOST:]PORT`.
                --- exit 1

                """)
        let bad = try Tool.run(["serve", "localhost:http", "--store", directory.file("s.sqlite")])
        #expect(bad.status != 0 && bad.stderr.contains("the port must be a number from 0 to 65535"), "\(bad.stderr)")
    }
}
