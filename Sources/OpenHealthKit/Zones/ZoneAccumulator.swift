import Foundation

/// A pause of the workout clock, `[start, end)`; `end` is infinite while the workout is paused.
package struct ZonePause: Sendable, Equatable {
    package var start: Double
    package var end: Double

    package init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }

    /// The pauses that HealthKit's pause and resume events make, as `ElapsedTime` reads them: a pause while
    /// paused and a resume while running are ignored; other event types never stop the clock.
    static func from(_ events: [HKWorkoutEvent]) -> [ZonePause] {
        var pauses: [ZonePause] = []
        var pausedSince: Double?
        for event in events.sorted(by: { $0.dateInterval.start < $1.dateInterval.start }) {
            let at = event.dateInterval.start.storeValue
            switch event.type {
            case .pause where pausedSince == nil: pausedSince = at
            case .resume:
                if let since = pausedSince { pauses.append(ZonePause(start: since, end: at)) }
                pausedSince = nil
            default: continue
            }
        }
        if let since = pausedSince { pauses.append(ZonePause(start: since, end: .infinity)) }
        return pauses
    }
}

/// Time in zone for one quantity type: the pure engine every workout builder uses.
///
/// **The attribution rule** (HealthKit does not publish one; this is OpenHealthKit's):
/// - A sample's value is in zone *i* when `boundary[i-1] <= value < boundary[i]` (min-inclusive, max-exclusive).
/// - A sample with a duration covers its own span; a zero-length reading *holds* for at most `maximumHold`
///   (10 s, as `StatisticsAccumulator.defaultMaximumHold`). Either way its coverage ends where the next sample
///   starts: a later value replaces an earlier one, and no time is counted twice. A silence longer than the hold
///   is a dropout, counted in no zone.
/// - Coverage never crosses a pause: it stops where a pause starts, and a sample that starts while the workout is
///   paused counts nothing. After a resume, time counts again from the next sample.
/// - Samples are taken in time order; a sample that starts before the latest one taken is ignored. Of samples
///   starting at the same instant, the one in the higher zone counts (then the one covering longer).
///
/// Every sample is kept as `(start, coverage end, zone)` — 17 bytes — so pauses learned late (a past pause added to a
/// programmatic builder) and activity spans are computed exactly. Running totals are kept as samples arrive, so the
/// cost per sample is constant; a pause that reaches back before the latest sample recomputes them once.
///
/// Pure: every time is an argument, in seconds since the reference date.
package struct ZoneAccumulator: Sendable {
    /// Upper thresholds in the type's storage unit, ascending.
    package let boundaries: [Double]
    package let maximumHold: Double
    private var starts: [Double] = []
    private var limits: [Double] = []
    private var zones: [UInt8] = []
    private(set) var pauses: [ZonePause] = []
    /// Totals over every sample but the latest, with the pauses known now.
    private var committed: [Double]

    package init(boundaries: [Double], maximumHold: Double = StatisticsAccumulator.defaultMaximumHold) {
        self.boundaries = boundaries
        self.maximumHold = maximumHold
        self.committed = Array(repeating: 0, count: boundaries.count + 1)
    }

    package var zoneCount: Int { boundaries.count + 1 }
    /// How many samples were taken.
    package var sampleCount: Int { starts.count }
    /// The start of the latest sample taken.
    package var latestStart: Double? { starts.last }

    /// The zone a value falls in.
    @inline(__always)
    package func zone(of value: Double) -> Int {
        var index = 0
        while index < boundaries.count, value >= boundaries[index] { index += 1 }
        return index
    }

    /// Takes a sample. Returns false when it is ignored (it starts before the latest sample, or not at a finite time).
    @discardableResult
    package mutating func add(start: Double, end: Double, value: Double) -> Bool {
        guard start.isFinite, end.isFinite else { return false }
        let last = starts.count - 1
        if last >= 0 {
            guard start >= starts[last] else { return false }
            if start == starts[last] {
                // Samples starting at the same instant: the higher zone counts (then the longer coverage), whatever
                // order they come in.
                let zone = UInt8(truncatingIfNeeded: zone(of: value))
                let limit = end > start ? end : start + maximumHold
                if zone > zones[last] || (zone == zones[last] && limit > limits[last]) {
                    zones[last] = zone
                    limits[last] = limit
                }
                return true
            }
            if start < limits[last] { limits[last] = start }
            committed[Int(zones[last])] += contribution(last, from: -.infinity, to: .infinity)
        }
        starts.append(start)
        limits.append(end > start ? end : start + maximumHold)
        zones.append(UInt8(truncatingIfNeeded: zone(of: value)))
        return true
    }

    /// Replaces the pauses (sorted, non-overlapping). Recomputes the totals only if a change reaches back before
    /// the latest sample.
    package mutating func setPauses(_ newPauses: [ZonePause]) {
        guard newPauses != pauses else { return }
        let changedAt = Self.earliestDifference(pauses, newPauses)
        pauses = newPauses
        guard let latest = starts.last, changedAt < latest else { return }
        committed = Array(repeating: 0, count: zoneCount)
        for index in 0 ..< starts.count - 1 {
            committed[Int(zones[index])] += contribution(index, from: -.infinity, to: .infinity)
        }
    }

    /// Running time per zone up to `now`: what a live builder reports. O(zones).
    package func durations(at now: Double) -> [Double] {
        var result = committed
        if let last = starts.indices.last { result[Int(zones[last])] += contribution(last, from: -.infinity, to: now) }
        return result
    }

    /// Running time per zone within `[from, to)`: an activity's span, or the whole workout at its end. Exact from
    /// the kept samples and the current pauses; O(samples in the span).
    package func durations(from windowStart: Double, to windowEnd: Double) -> [Double] {
        var result = Array(repeating: 0.0, count: zoneCount)
        guard !starts.isEmpty, windowEnd > windowStart else { return result }
        // Only the sample before the first one starting in the window can reach into it.
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] < windowStart { low = middle + 1 } else { high = middle }
        }
        var index = max(0, low - 1)
        while index < starts.count, starts[index] < windowEnd {
            result[Int(zones[index])] += contribution(index, from: windowStart, to: windowEnd)
            index += 1
        }
        return result
    }

    /// The zone in effect at `now`: the latest sample's, unless its coverage has ended (a dropout, a pause).
    package func currentZone(at now: Double) -> Int? {
        guard let last = starts.indices.last, now >= starts[last], now < coverageEnd(last) else { return nil }
        return Int(zones[last])
    }

    /// Where the coverage of sample `index` ends after pauses (its start when it starts inside a pause).
    private func coverageEnd(_ index: Int) -> Double {
        let start = starts[index]
        var end = limits[index]
        // The first pause that ends after the sample starts: it either holds the start or cuts the coverage.
        var low = 0
        var high = pauses.count
        while low < high {
            let middle = (low + high) / 2
            if pauses[middle].end <= start { low = middle + 1 } else { high = middle }
        }
        if low < pauses.count {
            if pauses[low].start <= start { return start }
            end = min(end, pauses[low].start)
        }
        return end
    }

    @inline(__always)
    private func contribution(_ index: Int, from windowStart: Double, to windowEnd: Double) -> Double {
        let end = pauses.isEmpty ? limits[index] : coverageEnd(index)
        return max(0, min(end, windowEnd) - max(starts[index], windowStart))
    }

    /// A time no later than the first instant at which two pause lists disagree.
    static func earliestDifference(_ a: [ZonePause], _ b: [ZonePause]) -> Double {
        for index in 0 ..< min(a.count, b.count) where a[index] != b[index] {
            return a[index].start != b[index].start ? min(a[index].start, b[index].start) : min(a[index].end, b[index].end)
        }
        if a.count > b.count { return a[b.count].start }
        if b.count > a.count { return b[a.count].start }
        return .infinity
    }
}
