import Foundation
import HealthKitModel
import WorkoutEngine

/// Exercise time as OpenHealthKit counts it for ``HKActivitySummary``: workout time. Pure.
///
/// HealthKit counts "every full minute of movement that equals or exceeds the intensity of a brisk walk", and
/// workout sessions contribute to it (HealthKit: HKActivitySummary.appleExerciseTime). Without a watch's motion
/// sensors OpenHealthKit counts workout time only: the running time of every workout (its span minus its paused
/// spans), overlapping workouts (two apps recording one ride) counted once, and each day's total rounded down to
/// whole minutes.
enum ExerciseTime {
    /// A half-open span of running time, in seconds since the reference date.
    struct Span: Equatable, Sendable {
        var start: Double
        var end: Double
    }

    /// A workout's running spans: `[start, end)` cut by pause and resume events in time order. A pause while paused
    /// and a resume while running are ignored, as the elapsed-time rule ignores them.
    static func runningSpans(start: Double, end: Double, pauses: [(paused: Bool, at: Double)]) -> [Span] {
        var spans: [Span] = []
        var runningSince: Double? = start
        for event in pauses where event.at >= start && event.at <= end {
            if event.paused, let since = runningSince {
                if event.at > since { spans.append(Span(start: since, end: event.at)) }
                runningSince = nil
            } else if !event.paused, runningSince == nil {
                runningSince = event.at
            }
        }
        if let since = runningSince, end > since { spans.append(Span(start: since, end: end)) }
        return spans
    }

    /// The spans merged where they overlap or touch, in start order.
    static func union(_ spans: [Span]) -> [Span] {
        var merged: [Span] = []
        for span in spans.sorted(by: { $0.start < $1.start }) where span.end > span.start {
            if let last = merged.last, span.start <= last.end {
                merged[merged.count - 1].end = max(last.end, span.end)
            } else {
                merged.append(span)
            }
        }
        return merged
    }

    /// Whole minutes of the (merged) spans inside `[start, end)`.
    static func minutes(of merged: [Span], from start: Double, to end: Double) -> Int {
        var seconds = 0.0
        for span in merged where span.end > start && span.start < end {
            seconds += min(span.end, end) - max(span.start, start)
        }
        return Int(((seconds + 1e-6) / 60).rounded(.down))  // a microsecond of slack for sums of doubles
    }
}
