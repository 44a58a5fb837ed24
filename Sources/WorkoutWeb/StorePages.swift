import Foundation

/// The store's pages as HTML (``StoreServer``): plain documents with their style inline, no script, nothing fetched
/// from elsewhere (the route is an SVG track, no map tiles), readable on a phone and printable.
enum StorePages {

    static let style = """
        <style>
        :root { color-scheme: light; --text: #1d2329; --dim: #5f6b76; --line: #d8dee4; --accent: #1c6fd1; }
        * { box-sizing: border-box; }
        body { margin: 0 auto; max-width: 1040px; padding: 16px; color: var(--text);
          font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
        h1 { font-size: 1.5rem; margin: .2em 0 .6em; }
        h2 { font-size: 1.1rem; margin: 1.4em 0 .4em; }
        a { color: var(--accent); }
        table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
        th, td { text-align: left; padding: .45em .6em; border-bottom: 1px solid var(--line); white-space: nowrap; }
        th { color: var(--dim); font-weight: 600; font-size: .85rem; text-transform: uppercase; letter-spacing: .05em; }
        tr:hover td { background: #f3f6f9; }
        pre { background: #f6f8fa; border: 1px solid var(--line); border-radius: 6px; padding: .8em 1em;
          overflow-x: auto; font-size: .85rem; line-height: 1.35; }
        svg { width: 100%; height: auto; display: block; }
        .downloads a { display: inline-block; margin-right: .6em; padding: .35em .9em; border: 1px solid var(--accent);
          border-radius: 1em; text-decoration: none; }
        .back { font-size: .9rem; }
        .empty { color: var(--dim); }
        @media (max-width: 600px) { th:nth-child(4), td:nth-child(4) { display: none; } }
        </style>
        """

    static func document(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(SVGDrawing.escape(title))</title>
        \(style)
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }

    /// The list, newest first, each row linking to its page.
    static func list(_ rows: [StoreListRow], query: String) -> String {
        guard !rows.isEmpty else {
            return document(
                title: "Workouts", body: "<h1>Workouts</h1>\n<p class=\"empty\">No workouts in this store yet.</p>")
        }
        var body = [
            "<h1>Workouts</h1>", "<table>",
            "<tr><th>Start</th><th>Activity</th><th>Duration</th><th>Distance</th></tr>",
        ]
        for row in rows {
            let link = "/workouts/\(row.id.uuidString)\(query)"
            body.append(
                "<tr><td><a href=\"\(SVGDrawing.escape(link))\">\(SVGDrawing.escape(row.start))</a></td><td>\(SVGDrawing.escape(row.activity))</td>"
                    + "<td>\(SVGDrawing.escape(row.duration))</td><td>\(SVGDrawing.escape(row.distance))</td></tr>")
        }
        body.append("</table>")
        return document(title: "Workouts", body: body.joined(separator: "\n"))
    }

    /// A workout: its summary, the heart-rate and power chart, a chart per further figure, the route, the downloads.
    static func workout(_ page: StoreWorkoutPage, query: String) -> String {
        var body = [
            "<p class=\"back\"><a href=\"/\(SVGDrawing.escape(query))\">← all workouts</a></p>",
            "<h1>\(SVGDrawing.escape(page.title))</h1>",
        ]
        if !page.downloads.isEmpty {
            let links = page.downloads.map { format in
                "<a href=\"\(SVGDrawing.escape("/workouts/\(page.id.uuidString)/\(format)\(query)"))\">\(format.uppercased())</a>"
            }
            body.append("<p class=\"downloads\">Download: \(links.joined(separator: " "))</p>")
        }
        if let chart = page.chart { body.append("<h2>Heart rate and power</h2>\n\(chart)") }
        for series in page.series where !series.points.isEmpty {
            body.append("<h2>\(SVGDrawing.escape(series.name))</h2>")
            body.append(seriesChart(series, span: page.span, pauses: page.pauses, laps: page.laps))
        }
        if page.route.count > 1 {
            body.append("<h2>Route</h2>")
            body.append(routeTrack(page.route))
        }
        body.append("<h2>Summary</h2>")
        body.append("<pre>\(SVGDrawing.escape(page.summary.joined(separator: "\n")))</pre>")
        return document(title: page.title, body: body.joined(separator: "\n"))
    }

    private static func number(_ value: Double) -> String { String(format: "%.1f", value) }

    /// A figure over time: its line (broken where the sensor was silent longer than a reading holds), pauses
    /// shaded, laps as dashed lines, the scale at the left and minutes below.
    static func seriesChart(
        _ series: StoreSeries, span: Double, pauses: [(start: Double, end: Double)], laps: [Double]
    ) -> String {
        let (width, height) = (1000.0, 200.0)
        let plot = (left: 60.0, top: 10.0, width: 920.0, height: 160.0)
        let span = max(span, 1)
        let values = series.points.map(\.value)
        let low = min(0, values.min() ?? 0)
        // The top a round number above the highest value (a tenth above, to the next 10 past 20).
        let top = max(low + 1, values.max() ?? 1) * 1.05
        let high = top > 20 ? (top / 10).rounded(.up) * 10 : top.rounded(.up)
        func x(_ seconds: Double) -> Double { plot.left + min(max(seconds, 0), span) / span * plot.width }
        func y(_ value: Double) -> Double { plot.top + plot.height - (value - low) / (high - low) * plot.height }
        var out = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" "
                + "aria-label=\"\(SVGDrawing.escape(series.name)) over time\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">"
        ]
        for pause in pauses {
            out.append(
                "<rect x=\"\(number(x(pause.start)))\" y=\"\(number(plot.top))\" width=\"\(number(max(0, x(pause.end) - x(pause.start))))\" "
                    + "height=\"\(number(plot.height))\" fill=\"#000\" fill-opacity=\"0.08\"/>")
        }
        for lap in laps {
            out.append(
                "<line x1=\"\(number(x(lap)))\" y1=\"\(number(plot.top))\" x2=\"\(number(x(lap)))\" y2=\"\(number(plot.top + plot.height))\" "
                    + "stroke=\"#666\" stroke-dasharray=\"4 3\"/>")
        }
        let lines = SVGDrawing.lines(
            series.points, hold: series.hold, seconds: \.seconds, value: \.value, pixel: { x($0.seconds) })
        for line in lines where !line.isEmpty {
            let coordinates = line.map { "\(number($0.0)),\(number(y($0.1)))" }.joined(separator: " ")
            out.append(
                "<polyline fill=\"none\" stroke=\"\(series.colour)\" stroke-width=\"1.6\" points=\"\(coordinates)\"/>")
        }
        out.append(
            "<rect x=\"\(number(plot.left))\" y=\"\(number(plot.top))\" width=\"\(number(plot.width))\" height=\"\(number(plot.height))\" fill=\"none\" stroke=\"#333\"/>"
        )
        for tick in [low, (low + high) / 2, high] {
            out.append(
                "<text x=\"\(number(plot.left - 6))\" y=\"\(number(y(tick) + 4))\" text-anchor=\"end\">\(Int(tick.rounded()))</text>"
            )
        }
        out.append(
            "<text x=\"12\" y=\"\(number(plot.top + plot.height / 2))\" transform=\"rotate(-90 12 \(number(plot.top + plot.height / 2)))\" "
                + "text-anchor=\"middle\" fill=\"\(series.colour)\">\(SVGDrawing.escape(series.unit))</text>")
        let minutes = span / 60
        let step = [1.0, 5, 10, 15, 30, 60].first { minutes / $0 <= 12 } ?? 120
        for minute in stride(from: 0, through: minutes, by: step) {
            out.append(
                "<text x=\"\(number(x(minute * 60)))\" y=\"\(number(plot.top + plot.height + 18))\" text-anchor=\"middle\">\(Int(minute)) min</text>"
            )
        }
        out.append("</svg>")
        return out.joined(separator: "\n")
    }

    /// The route as a track on a plain background: positions projected equirectangularly (longitude scaled by the
    /// cosine of the mean latitude, so a square on the ground is square on the page), fitted into the frame, with
    /// the start (green) and the end (red) marked.
    static func routeTrack(_ route: [(latitude: Double, longitude: Double)]) -> String {
        let side = 600.0
        let margin = 20.0
        let meanLatitude = route.map(\.latitude).reduce(0, +) / Double(route.count)
        let scale = cos(meanLatitude * .pi / 180)
        let xs = route.map { $0.longitude * scale }
        let ys = route.map(\.latitude)
        let (minX, maxX, minY, maxY) = (xs.min()!, xs.max()!, ys.min()!, ys.max()!)
        let extent = max(maxX - minX, maxY - minY, 1e-9)
        let fit = (side - 2 * margin) / extent
        // Centred in the square.
        let offsetX = margin + ((side - 2 * margin) - (maxX - minX) * fit) / 2
        let offsetY = margin + ((side - 2 * margin) - (maxY - minY) * fit) / 2
        func px(_ index: Int) -> (Double, Double) {
            (offsetX + (xs[index] - minX) * fit, side - (offsetY + (ys[index] - minY) * fit))
        }
        let points = route.indices.map { px($0) }.map { "\(number($0.0)),\(number($0.1))" }.joined(separator: " ")
        let start = px(0)
        let end = px(route.count - 1)
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(Int(side)) \(Int(side))" role="img" aria-label="Route" style="max-width: 600px">
            <rect width="100%" height="100%" fill="#f4f1ea"/>
            <polyline fill="none" stroke="#c2410c" stroke-width="3" stroke-linejoin="round" points="\(points)"/>
            <circle cx="\(number(start.0))" cy="\(number(start.1))" r="7" fill="#2b8a3e"/>
            <circle cx="\(number(end.0))" cy="\(number(end.1))" r="7" fill="#c92a2a"/>
            </svg>
            """
    }
}
