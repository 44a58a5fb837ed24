import Foundation
import OpenHealthKit
import WorkoutWeb

/// An SVG chart of a workout: heart rate (and power, when there is any) over time on bands coloured by heart-rate
/// zone, pauses shaded, a multisport workout's legs marked and named, and bars of the time spent in each zone.
struct WorkoutChart {
    var workout: HKWorkout
    var heartRate: [ChartPoint]
    var power: [ChartPoint]
    var zones: HeartRateZones
    /// Seconds in each zone: the workout's own zone group, or the library's timing in the zones asked for.
    var seconds: [TimeInterval]

    /// Colours from the lowest zone to the highest, spread over however many zones there are (3 to 10).
    static let palette = [
        "#d9d9d9", "#9ec9ff", "#a6e3a1", "#d8ec8f", "#ffe08a", "#ffc97a", "#ffb36b", "#ff9a6e", "#ff7b7b", "#e85a5a",
    ]
    func colour(_ zone: Int) -> String {
        let step = Double(Self.palette.count - 1) / Double(max(1, zones.count - 1))
        return Self.palette[min(Self.palette.count - 1, Int((Double(zone) * step).rounded()))]
    }

    private let width = 1000.0
    private let plot = (left: 70.0, top: 60.0, width: 860.0, height: 300.0)

    /// The chart of a stored workout in `zones`: the time in them the builder kept when they are the store's zones,
    /// else the library's timing of the workout in them. `heartRate`: its heart-rate points when the caller has
    /// read them already (else they are read here).
    static func svg(
        of workout: HKWorkout, zones: HeartRateZones, store: HKHealthStore, heartRate: [ChartPoint]? = nil
    ) async throws -> String {
        let bpm = HKUnit.count().unitDivided(by: .minute())
        let kept = workout.zoneGroup(for: HKQuantityType(.heartRate))
        let seconds: [TimeInterval]
        if zones.fromStore, let kept, kept.zoneDurations.count == zones.count {
            seconds = kept.zoneDurations.map(\.duration)
        } else {
            seconds = try await store.zoneGroup(of: workout, configuration: zones.configuration())
                .zoneDurations.map(\.duration)
        }
        let points: [ChartPoint]
        if let heartRate {
            points = heartRate
        } else {
            points = try await ChartPoint.points(.heartRate, unit: bpm, of: workout, store: store)
        }
        return WorkoutChart(
            workout: workout,
            heartRate: points,
            power: try await ChartPoint.points(.cyclingPower, unit: .watt(), of: workout, store: store),
            zones: zones, seconds: seconds
        ).svg()
    }

    func svg() -> String {
        var out: [String] = []
        let total = plot.top + plot.height + 70 + Double(zones.count) * 26 + 40
        out.append(
            """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(total))" viewBox="0 0 \(Int(width)) \(Int(total))" \
            font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="13">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(plot.left)" y="28" font-size="18" font-weight="bold">\(SVGDrawing.escape(title))</text>
            <text x="\(plot.left)" y="46" fill="#555">\(SVGDrawing.escape(zones.label))</text>
            """)
        let start = workout.startDate
        let span = max(1, workout.endDate.timeIntervalSince(start))
        func x(_ date: Date) -> Double { plot.left + date.timeIntervalSince(start) / span * plot.width }

        // Heart-rate scale and zone bands.
        let low = min(zones.low, heartRate.map(\.value).min() ?? zones.low)
        let high = max(zones.high, heartRate.map(\.value).max() ?? zones.high)
        func y(_ bpm: Double) -> Double { plot.top + plot.height - (bpm - low) / (high - low) * plot.height }
        let edges = [low] + zones.boundaries + [high]
        for zone in zones.indices {
            let top = y(min(edges[zone + 1], high))
            let bottom = y(max(edges[zone], low))
            out.append(rect(plot.left, top, plot.width, bottom - top, fill: colour(zone), opacity: 0.55))
            out.append(
                "<text x=\"\(fmt(plot.left + plot.width + 6))\" y=\"\(fmt((top + bottom) / 2 + 4))\" fill=\"#333\">\(zones.name(zone))</text>"
            )
        }
        // Pauses, as the library counts them (the workout's duration leaves them out).
        for pause in WorkoutPauses.intervals(
            in: workout.workoutEvents ?? [], from: workout.startDate, to: workout.endDate)
        {
            out.append(
                rect(x(pause.start), plot.top, x(pause.end) - x(pause.start), plot.height, fill: "#000", opacity: 0.12))
        }
        // A multisport workout's legs: a dashed line where each begins, its name at the top of its span (a
        // transition as T1, T2, …), left out where the span is too narrow for it.
        let legs = workout.workoutActivities
        if legs.count > 1 {
            var transitions = 0
            for (index, leg) in legs.enumerated() {
                let from = x(leg.startDate), to = x(leg.endDate ?? workout.endDate)
                if index > 0 {
                    out.append(
                        "<line x1=\"\(fmt(from))\" y1=\"\(fmt(plot.top))\" x2=\"\(fmt(from))\" y2=\"\(fmt(plot.top + plot.height))\" stroke=\"#333\" stroke-dasharray=\"4 3\"/>"
                    )
                }
                let type = leg.workoutConfiguration.activityType
                if type == .transition { transitions += 1 }
                let name = type == .transition ? "T\(transitions)" : type.name
                if to - from >= Double(name.count) * 7 + 4 {
                    out.append(
                        "<text x=\"\(fmt((from + to) / 2))\" y=\"\(fmt(plot.top + 16))\" text-anchor=\"middle\" fill=\"#333\">\(SVGDrawing.escape(name))</text>"
                    )
                }
            }
        }
        // Axes.
        out.append(
            "<rect x=\"\(fmt(plot.left))\" y=\"\(fmt(plot.top))\" width=\"\(fmt(plot.width))\" height=\"\(fmt(plot.height))\" fill=\"none\" stroke=\"#333\"/>"
        )
        for bpm in stride(from: (low / 20).rounded(.up) * 20, through: high, by: 20) {
            out.append(
                "<text x=\"\(fmt(plot.left - 8))\" y=\"\(fmt(y(bpm) + 4))\" text-anchor=\"end\">\(Int(bpm))</text>")
        }
        out.append(
            "<text x=\"16\" y=\"\(fmt(plot.top + plot.height / 2))\" transform=\"rotate(-90 16 \(fmt(plot.top + plot.height / 2)))\" text-anchor=\"middle\" fill=\"#b00020\">heart rate (bpm)</text>"
        )
        let minutes = span / 60
        let step = [1.0, 5, 10, 15, 30, 60].first { minutes / $0 <= 12 } ?? 120
        for minute in stride(from: 0, through: minutes, by: step) {
            let px = plot.left + minute * 60 / span * plot.width
            out.append(
                "<line x1=\"\(fmt(px))\" y1=\"\(fmt(plot.top + plot.height))\" x2=\"\(fmt(px))\" y2=\"\(fmt(plot.top + plot.height + 5))\" stroke=\"#333\"/>"
            )
            out.append(
                "<text x=\"\(fmt(px))\" y=\"\(fmt(plot.top + plot.height + 20))\" text-anchor=\"middle\">\(Int(minute)) min</text>"
            )
        }
        // Power, on its own scale at the right, drawn under heart rate.
        if let maxPower = power.map(\.value).max(), maxPower > 0 {
            let top = (maxPower * 1.1 / 50).rounded(.up) * 50
            func yp(_ watts: Double) -> Double { plot.top + plot.height - watts / top * plot.height }
            for line in lines(power, hold: ReadingHold.power, x: x) {
                out.append(polyline(line, y: yp, stroke: "#1f5fbf", width: 1, opacity: 0.7))
            }
            out.append(
                "<text x=\"\(fmt(plot.left + plot.width))\" y=\"\(fmt(plot.top + plot.height + 38))\" text-anchor=\"end\" fill=\"#1f5fbf\">blue: power, 0–\(Int(top)) W from bottom to top</text>"
            )
        }
        for line in lines(heartRate, hold: ReadingHold.heartRate, x: x) {
            out.append(polyline(line, y: y, stroke: "#b00020", width: 1.6, opacity: 1))
        }

        // Time in zones.
        let barsTop = plot.top + plot.height + 60
        let longest = max(1, seconds.max() ?? 1)
        out.append(
            "<text x=\"\(fmt(plot.left))\" y=\"\(fmt(barsTop - 12))\" font-weight=\"bold\">Time in heart-rate zones</text>"
        )
        for zone in zones.indices {
            let top = barsTop + Double(zone) * 26
            let length = seconds[zone] / longest * (plot.width - 220)
            out.append(
                "<text x=\"\(fmt(plot.left))\" y=\"\(fmt(top + 15))\">\(zones.name(zone)) \(SVGDrawing.escape(zones.range(of: zone)))</text>"
            )
            out.append(rect(plot.left + 150, top, max(length, 1), 20, fill: colour(zone), opacity: 1))
            out.append(
                "<text x=\"\(fmt(plot.left + 156 + length))\" y=\"\(fmt(top + 15))\">\(Format.duration(seconds[zone]))</text>"
            )
        }
        out.append("</svg>")
        return out.joined(separator: "\n") + "\n"
    }

    private var title: String {
        "\(workout.workoutActivityType.name.capitalized), \(Format.date(workout.startDate)), \(Format.duration(workout.duration))"
    }

    /// The points as the line's pieces (``SVGDrawing/lines(_:hold:seconds:value:pixel:)``): a gap at each dropout,
    /// at most one point per horizontal pixel.
    private func lines(
        _ points: [ChartPoint], hold: TimeInterval, x: (Date) -> Double
    ) -> [[(x: Double, value: Double)]] {
        SVGDrawing.lines(
            points, hold: hold, seconds: { $0.start.timeIntervalSinceReferenceDate }, value: \.value,
            pixel: { x($0.start) })
    }

    private func polyline(
        _ points: [(Double, Double)], y: (Double) -> Double, stroke: String, width: Double, opacity: Double
    ) -> String {
        let coordinates = points.map { "\(fmt($0.0)),\(fmt(y($0.1)))" }.joined(separator: " ")
        return
            "<polyline fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"\(width)\" stroke-opacity=\"\(opacity)\" points=\"\(coordinates)\"/>"
    }

    private func rect(
        _ x: Double, _ y: Double, _ width: Double, _ height: Double, fill: String, opacity: Double
    ) -> String {
        "<rect x=\"\(fmt(x))\" y=\"\(fmt(y))\" width=\"\(fmt(max(0, width)))\" height=\"\(fmt(max(0, height)))\" fill=\"\(fill)\" fill-opacity=\"\(opacity)\"/>"
    }

    private func fmt(_ value: Double) -> String { String(format: "%.1f", value) }

}

/// A plotted value that holds from `start`.
struct ChartPoint {
    var start: Date
    var value: Double

    /// The workout's samples of `identifier` in time order, in `unit`.
    static func points(
        _ identifier: HKQuantityTypeIdentifier, unit: HKUnit, of workout: HKWorkout,
        store: HKHealthStore
    ) async throws -> [ChartPoint] {
        let samples = try await HKSampleQueryDescriptor(
            predicates: [
                .quantitySample(type: HKQuantityType(identifier), predicate: HKQuery.predicateForObjects(from: workout))
            ],
            sortDescriptors: [SortDescriptor(\.startDate)]
        ).result(for: store)
        return samples.map { ChartPoint(start: $0.startDate, value: $0.quantity.doubleValue(for: unit)) }
    }
}
