import Foundation
import HealthKitModel

/// Laps: the one rule for a workout's laps and their figures, shared by `workout replay`'s summary and the FIT and
/// TCX exports, so a lap reads the same in a file as on the screen.
///
/// **Which laps.** HealthKit keeps laps as `.lap` events and no statistics for them; this is OpenHealthKit's reading:
/// - a lap event with a duration is that lap; a lap event of zero length (a lap button's instant) closes a lap that
///   began where the previous lap ended (or at the start of the span);
/// - the time after the last lap, to the end of the span, is a lap of its own when it lasts a second or more, as a
///   watch closes its last lap when its timer stops: a workout with 11 lap events has 12 laps;
/// - a span without lap events has no laps (a file then writes its session as its one lap), unless the workout ran
///   a plan: then each step of the plan (a `.segment` event naming the step, ``PlanRunner/stepNameMetadataKey``)
///   is a lap, as a trainer app writes a plan's steps.
///
/// **Their figures** are the statistics of the workout's samples during the lap, by the same rules as every
/// statistic (``HKStatisticsQueryDescriptor`` over the lap's span): heart rate time-weighted, each reading holding
/// until the next one and at most its hold (``ReadingHold``); power, cadence and speed the mean of the readings in
/// the lap; energy and distance summed, a sample that straddles a lap's edge counted in proportion.
///
/// OpenHealthKit extension: HealthKit has no lap statistics.
public enum WorkoutLaps {
    /// The shortest stretch after the last lap event that is a lap of its own.
    public static let shortestLastLap: TimeInterval = 1

    /// The laps the events make within `[start, end)`, in time order.
    public static func intervals(in events: [HKWorkoutEvent], from start: Date, to end: Date) -> [DateInterval] {
        if !events.contains(where: { $0.type == .lap }) {
            return events.filter { $0.type == .segment && $0.metadata?[PlanRunner.stepNameMetadataKey] != nil }
                .map(\.dateInterval).sorted { $0.start < $1.start }
                .filter { $0.start >= start && $0.start < end }
                .map { DateInterval(start: $0.start, end: min($0.end, end)) }.filter { $0.duration > 0 }
        }
        var laps: [DateInterval] = []
        var lapStart = start
        for event in events.sorted(by: { $0.dateInterval.start < $1.dateInterval.start }) where event.type == .lap {
            let lap =
                event.dateInterval.duration > 0
                ? event.dateInterval
                : DateInterval(start: lapStart, end: max(lapStart, event.dateInterval.start))
            lapStart = max(lapStart, lap.end)
            guard lap.duration > 0, lap.start >= start, lap.start < end else { continue }
            laps.append(DateInterval(start: lap.start, end: min(lap.end, end)))
        }
        if let last = laps.last, end.timeIntervalSince(last.end) >= shortestLastLap {
            laps.append(DateInterval(start: last.end, end: end))
        }
        return laps
    }

    /// The laps of a workout: ``intervals(in:from:to:)`` over its whole span.
    public static func intervals(of workout: HKWorkout) -> [DateInterval] {
        intervals(in: workout.workoutEvents ?? [], from: workout.startDate, to: workout.endDate)
    }
}
