import Foundation
import HealthKitModel

/// Rebuilds beat times from the RR intervals heart-rate straps send, per sensor.
///
/// A notification carries the intervals between the latest beats, oldest first, and arrives just after the last
/// of them. The first notification anchors the beats so the last one falls at its arrival time; after that each
/// interval extends the previous beat. When the rebuilt time drifts more than `maximumDrift` from the arrival
/// time (a dropout, missed notifications), the beats are re-anchored and the first new one is marked as preceded
/// by a gap, as HealthKit's heartbeat series marks it.
package struct HeartbeatCollector: Sendable {
    package struct Beat: Sendable, Equatable {
        /// Seconds since the reference date.
        package var time: Double
        package var precededByGap: Bool

        package init(time: Double, precededByGap: Bool) {
            self.time = time
            self.precededByGap = precededByGap
        }
    }

    package static let maximumDrift: Double = 2
    private var lastBeat: [String: Double] = [:]
    private var gapPending: Set<String> = []

    package init() {}

    /// Adds a notification's intervals; returns the beats they place.
    package mutating func add(_ intervals: [Double], arrivedAt time: Double, sensor: String) -> [Beat] {
        let valid = intervals.filter { $0 > 0.2 && $0 < 3 }
        guard !valid.isEmpty else { return [] }
        var beats: [Beat] = []
        var next: Double
        var gap = gapPending.remove(sensor) != nil
        if let last = lastBeat[sensor], abs(last + valid.reduce(0, +) - time) <= Self.maximumDrift {
            next = last
        } else {
            gap = gap || lastBeat[sensor] != nil
            next = time - valid.reduce(0, +)
        }
        for interval in valid {
            next += interval
            beats.append(Beat(time: next, precededByGap: gap))
            gap = false
        }
        lastBeat[sensor] = next
        return beats
    }

    /// The sensor lost its link: its next beat follows a gap.
    package mutating func gap(sensor: String) {
        gapPending.insert(sensor)
        lastBeat.removeValue(forKey: sensor)
    }
}
