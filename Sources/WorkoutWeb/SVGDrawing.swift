/// What the store's pages (`workout serve`) and `workout chart` draw a figure over time with, so that both draw it
/// the same way.
public enum SVGDrawing {
    /// `text` with `&`, `<`, `>` and `"` escaped, for HTML and SVG text and attribute values.
    public static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// The line of a figure over time, in pieces: a new piece where the sensor was silent for longer than a reading
    /// of its kind holds (`hold` seconds, the library's `ReadingHold`), so a dropout is a gap; in each piece at most
    /// one point per horizontal pixel, the mean of the values falling in it. `pixel` is a point's horizontal position;
    /// each point returned is its pixel (whole) and that mean.
    public static func lines<Point>(
        _ points: [Point], hold: Double, seconds: (Point) -> Double, value: (Point) -> Double,
        pixel: (Point) -> Double
    ) -> [[(x: Double, value: Double)]] {
        var lines: [[(x: Double, value: Double)]] = []
        var last: Double?
        var bucket = (pixel: -1, sum: 0.0, count: 0.0)
        func flush() {
            if bucket.count > 0 { lines[lines.count - 1].append((Double(bucket.pixel), bucket.sum / bucket.count)) }
            bucket = (-1, 0, 0)
        }
        for point in points {
            let time = seconds(point)
            if last.map({ time - $0 > hold }) ?? true {
                if !lines.isEmpty { flush() }
                lines.append([])
            }
            last = time
            let at = Int(pixel(point))
            if at != bucket.pixel, bucket.count > 0 { flush() }
            bucket.pixel = at
            bucket.sum += value(point)
            bucket.count += 1
        }
        if !lines.isEmpty { flush() }
        return lines
    }
}
