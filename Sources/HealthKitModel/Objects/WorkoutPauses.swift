import Foundation

/// Paused time: the one rule for which stretches of a workout are paused. Elapsed time (`HKWorkout.duration`,
/// `HKWorkoutActivity.duration`, the builders' `elapsedTime(at:)`), time in zones, normalized power, the timer time
/// of an exported FIT or TCX file and the pauses a chart shades all take their pauses from here.
///
/// The rule is HealthKit's for elapsed time: walk the `.pause` and `.resume` events in start order; a pause while
/// paused and a resume while running are ignored; a pause that is never resumed lasts to the end.
///
/// **Motion pauses do not count.** HealthKit's `HKWorkout.duration` excludes the person's pause/resume intervals
/// only; the system's `.motionPaused`/`.motionResumed` events (auto-pause) mark stretches without motion but never
/// stop the elapsed-time clock (see `HKWorkoutEventType`). Counting them here would make a FIT file's
/// `total_timer_time` differ from the workout's duration, so they are left out everywhere: a file's timer time
/// equals `HKWorkout.duration`, and its motion pauses stay events of the workout.
///
/// OpenHealthKit. Pure: no clock.
public enum WorkoutPauses {
    /// The pauses the events make, unclipped, in time order; `end` is nil for a pause never resumed.
    package static func open(_ events: [HKWorkoutEvent]) -> [(start: Date, end: Date?)] {
        var pauses: [(start: Date, end: Date?)] = []
        var pausedSince: Date?
        for event in events.sorted(by: { $0.dateInterval.start < $1.dateInterval.start }) {
            switch event.type {
            case .pause where pausedSince == nil: pausedSince = event.dateInterval.start
            case .resume:
                if let since = pausedSince { pauses.append((since, event.dateInterval.start)) }
                pausedSince = nil
            default: continue
            }
        }
        if let since = pausedSince { pauses.append((since, nil)) }
        return pauses
    }

    /// The paused stretches of `[start, end]`, in time order, each clipped to it; empty ones left out.
    public static func intervals(in events: [HKWorkoutEvent], from start: Date, to end: Date) -> [DateInterval] {
        guard end > start else { return [] }
        return open(events).compactMap { pause in
            let from = min(max(pause.start, start), end)
            let to = min(max(pause.end ?? end, start), end)
            return to > from ? DateInterval(start: from, end: to) : nil
        }
    }

    /// The running (not paused) time of `[start, end]`: what `HKWorkout.duration` is for the workout's span.
    public static func runningTime(from start: Date, to end: Date, events: [HKWorkoutEvent]) -> TimeInterval {
        guard end > start else { return 0 }
        // Summed span by span from the start, as HealthKit's elapsed time walks its events.
        var total: TimeInterval = 0
        var cursor = start
        for pause in intervals(in: events, from: start, to: end) {
            total += pause.start.timeIntervalSince(cursor)
            cursor = pause.end
        }
        total += end.timeIntervalSince(cursor)
        return max(0, total)
    }

    /// The running time of `interval` outside `pauses` (``intervals(in:from:to:)``, sorted and disjoint).
    public static func runningTime(of interval: DateInterval, outside pauses: [DateInterval]) -> TimeInterval {
        let paused = pauses.reduce(0.0) { total, pause in
            total + max(0, min(pause.end, interval.end).timeIntervalSince(max(pause.start, interval.start)))
        }
        return max(0, interval.duration - paused)
    }
}
