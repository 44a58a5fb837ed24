import Foundation
import HealthKitModel

/// A pause of the workout clock, `[start, end)`; `end` is infinite while the workout is paused.
package struct ZonePause: Sendable, Equatable {
    package var start: Double
    package var end: Double

    package init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }

    /// The pauses of ``WorkoutPauses`` (the one rule), in seconds; a pause never resumed ends at infinity.
    package static func from(_ events: [HKWorkoutEvent]) -> [ZonePause] {
        WorkoutPauses.open(events).map { ZonePause(start: $0.start.storeValue, end: $0.end?.storeValue ?? .infinity) }
    }
}

/// Time in zone for one quantity type: the pure engine every workout builder uses.
///
/// **The attribution rule** (HealthKit does not publish one; this is OpenHealthKit's):
/// - A sample's value is in zone *i* when `boundary[i-1] <= value < boundary[i]` (min-inclusive, max-exclusive).
/// - A sample with a duration covers its own span; a zero-length reading *holds* for at most `maximumHold` (its
///   kind's ``ReadingHold``: 10 s for heart rate, 5 s for power). Either way its coverage ends where the next sample
///   starts: a later value replaces an earlier one, and no time is counted twice. A silence longer than the hold
///   is a dropout, counted in no zone.
/// - Coverage never crosses a pause: it stops where a pause starts, and a sample that starts while the workout is
///   paused counts nothing. After a resume, time counts again from the next sample.
/// - Samples are taken in time order; a sample that starts before the latest one taken is ignored. Of samples
///   starting at the same instant, the one in the higher zone counts (then the one covering longer).
///
/// **Memory is bounded**, whatever the session's length. Three tiers, newest first:
/// 1. *The exact window*: the latest `exactWindow` to `2 × exactWindow − 1` samples, each kept as
///    `(start, coverage end, zone)`, 17 bytes. Once it holds `2 × exactWindow`, all but the latest `exactWindow`
///    are folded in one chunk, so the cost per sample stays constant (amortized).
/// 2. *Runs*: a folded sample leaves only its coverage after the pauses known when it is folded (it stops at a
///    pause start; a sample starting inside a pause leaves nothing). Consecutive samples in the same zone whose
///    coverages touch become one run `(start, end, zone)`, 17 bytes; a dropout, a pause or a zone change starts a
///    new one. A heart-rate trace whose zone changes every few tens of seconds makes a few thousand runs a day.
///    Clipping a contiguous coverage at a window edge equals clipping each sample, so windows over runs are exact.
/// 3. *Blocks*, only when the zone flips every few samples for hours: past `runCapacity` runs, the oldest half
///    is coarsened into blocks of consecutive runs, each keeping its time extent and its total per zone; past 256
///    blocks (fewer for a small `runCapacity`), neighbouring blocks merge in pairs. Running totals, and windows
///    that contain each block whole or not at all (the whole workout), stay exact; a window edge inside a block
///    takes the block's totals in proportion to the running (unpaused) time of the block it covers.
///
/// With the defaults that is at most 8,191 samples, 65,536 runs and 256 blocks (about 1.3 MB with 5 zones) in
/// the worst case, and under 200 KB for a day of heart rate at 4 Hz whose zone changes every 20–40 s.
///
/// **Exactness.** Everything in the exact window is exact, and so is all history (blocks aside) as long as pause
/// changes never reach back past the exact window — as in a live session, which learns a pause at its start and
/// its end at the resume, at worst a few samples late. **The one approximation** is for a pause change that reaches
/// back before the exact window, only possible when an app adds past pause events to a programmatic builder long
/// after the fact. Folded history keeps only coverage, not the samples' starts, so such a change is applied by
/// removing the newly paused time from each run (from a block, in proportion to the running time it loses): within
/// folded history, counting after such a late resume restarts at the resume instant rather than at the next
/// sample start. Removing is all it can do: folded history cannot count again time that a pause known when it
/// was folded had hidden, should a late change shorten or drop that pause.
///
/// Running totals are kept as samples arrive; a pause that reaches back before the latest sample recomputes them
/// from the folded totals and the exact window once.
///
/// Pure: every time is an argument, in seconds since the reference date.
package struct ZoneAccumulator: Sendable {
    /// Upper thresholds in the type's storage unit, ascending.
    package let boundaries: [Double]
    package let maximumHold: Double
    /// How many of the latest samples are always kept individually (up to twice as many are).
    package let exactWindow: Int
    /// How many runs are kept before the oldest half is coarsened into blocks.
    package let runCapacity: Int
    /// The exact window holds this many samples when its oldest are folded.
    private let foldThreshold: Int

    // The exact window: the latest samples, `(start, limit, zone)`; a limit is cut to the next sample's start.
    private var starts: [Double] = []
    private var limits: [Double] = []
    private var zones: [UInt8] = []
    // Runs: folded coverage, contiguous per run, in time order; never overlapping a current pause.
    private var runStarts: [Double] = []
    private var runEnds: [Double] = []
    private var runZones: [UInt8] = []
    // Blocks: coarsened runs, in time order; `blockTotals` holds `zoneCount` totals per block.
    private var blockStarts: [Double] = []
    private var blockEnds: [Double] = []
    private var blockTotals: [Double] = []
    /// Totals over the runs and blocks.
    private var foldedTotals: [Double]
    /// How many samples were folded.
    private var foldedCount = 0
    package private(set) var pauses: [ZonePause] = []
    /// Totals over every sample but the latest, with the pauses known now.
    private var committed: [Double]

    /// At most this many blocks are kept: 256 (fewer for a small `runCapacity`).
    private let blockCapacity: Int

    /// - Parameters:
    ///   - exactWindow: how many of the latest samples are kept individually (at least 1).
    ///   - runCapacity: how many runs are kept before the oldest half is coarsened into blocks (at least 2).
    package init(
        boundaries: [Double], maximumHold: Double = StatisticsAccumulator.defaultMaximumHold,
        exactWindow: Int = 4096, runCapacity: Int = 65_536
    ) {
        self.boundaries = boundaries
        self.maximumHold = maximumHold
        self.exactWindow = max(1, exactWindow)
        self.runCapacity = max(2, runCapacity)
        self.foldThreshold = self.exactWindow > Int.max / 2 ? Int.max : 2 * self.exactWindow
        self.blockCapacity = min(256, max(4, self.runCapacity / 16))
        self.committed = Array(repeating: 0, count: boundaries.count + 1)
        self.foldedTotals = committed
    }

    package var zoneCount: Int { boundaries.count + 1 }
    /// How many samples were taken.
    package var sampleCount: Int { foldedCount + starts.count }
    /// The start of the latest sample taken.
    package var latestStart: Double? { starts.last }
    /// How many entries are stored: samples in the exact window, runs and blocks.
    package var storedEntryCount: Int { starts.count + runStarts.count + blockStarts.count }
    /// The bytes those entries take (without the arrays' spare capacity).
    package var storedBytes: Int { 17 * (starts.count + runStarts.count) + (16 + 8 * zoneCount) * blockStarts.count }
    /// The time extents of the blocks, oldest first.
    package var blockExtents: [(start: Double, end: Double)] { zip(blockStarts, blockEnds).map { ($0, $1) } }

    /// The zone a value falls in.
    @inline(__always)
    package func zone(of value: Double) -> Int { Self.zone(of: value, boundaries: boundaries) }

    /// The zone a value falls in, by the rule above: zone *i* when `boundaries[i-1] <= value < boundaries[i]`.
    @inline(__always)
    package static func zone(of value: Double, boundaries: [Double]) -> Int {
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
        if starts.count >= foldThreshold { foldOldestSamples() }
        return true
    }

    /// Replaces the pauses (sorted, non-overlapping). Recomputes the totals only if a change reaches back before
    /// the latest sample; applies it to folded history only if it reaches back before the exact window.
    package mutating func setPauses(_ newPauses: [ZonePause]) {
        guard newPauses != pauses else { return }
        let changedAt = Self.earliestDifference(pauses, newPauses)
        let previous = pauses
        pauses = newPauses
        guard let latest = starts.last, changedAt < latest else { return }
        // Folded coverage ends by the first kept sample's start: a change from then on cannot touch it.
        if changedAt < starts[0], !runStarts.isEmpty || !blockStarts.isEmpty {
            applyToFoldedHistory(changedAt: changedAt, previous: previous)
        }
        committed = foldedTotals
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

    /// Running time per zone within `[from, to)`: an activity's span, or the whole workout at its end. From the
    /// blocks, runs and samples in the span and the current pauses; O(entries in the span).
    package func durations(from windowStart: Double, to windowEnd: Double) -> [Double] {
        var result = Array(repeating: 0.0, count: zoneCount)
        guard windowEnd > windowStart else { return result }
        if !blockStarts.isEmpty {
            var index = Self.firstIndex(in: blockEnds) { $0 > windowStart }
            while index < blockStarts.count, blockStarts[index] < windowEnd {
                let start = blockStarts[index]
                let end = blockEnds[index]
                var share = 1.0
                if start < windowStart || end > windowEnd {
                    // An edge inside the block: its totals in proportion to the running time the window covers.
                    let whole = Self.runningTime(pauses, from: start, to: end)
                    let covered = Self.runningTime(pauses, from: max(start, windowStart), to: min(end, windowEnd))
                    share = whole > 0 ? covered / whole : 0
                }
                for zone in 0 ..< zoneCount { result[zone] += blockTotals[index * zoneCount + zone] * share }
                index += 1
            }
        }
        if !runStarts.isEmpty {
            var index = Self.firstIndex(in: runEnds) { $0 > windowStart }
            while index < runStarts.count, runStarts[index] < windowEnd {
                result[Int(runZones[index])] += min(runEnds[index], windowEnd) - max(runStarts[index], windowStart)
                index += 1
            }
        }
        guard !starts.isEmpty else { return result }
        // Only the sample before the first one starting in the window can reach into it.
        var index = max(0, Self.firstIndex(in: starts) { $0 >= windowStart } - 1)
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

    // MARK: Folding

    /// Folds all but the latest `exactWindow` samples into runs. Each has a successor, so its coverage is final
    /// under the pauses known now.
    private mutating func foldOldestSamples() {
        let count = starts.count - exactWindow
        // The latest run, which these samples may extend, is held here until it closes.
        var open: (start: Double, end: Double, zone: UInt8)?
        if runStarts.last != nil {
            open = (runStarts.removeLast(), runEnds.removeLast(), runZones.removeLast())
        }
        var totals = foldedTotals
        // The first pause ending after the sample's start, walked forward with the samples (see `coverageEnd`).
        var pause = pauses.isEmpty ? 0 : Self.firstIndex(in: pauses) { $0.end > starts[0] }
        for index in 0 ..< count {
            let start = starts[index]
            var end = limits[index]
            if pause < pauses.count {
                while pause < pauses.count, pauses[pause].end <= start { pause += 1 }
                if pause < pauses.count { end = pauses[pause].start <= start ? start : min(end, pauses[pause].start) }
            }
            guard end > start else { continue }
            let zone = zones[index]
            totals[Int(zone)] += end - start
            if let run = open, run.end == start, run.zone == zone {
                open = (run.start, end, zone)
            } else {
                if let run = open { appendRun(run) }
                open = (start, end, zone)
            }
        }
        if let run = open { appendRun(run) }
        foldedTotals = totals
        foldedCount += count
        starts.removeFirst(count)
        limits.removeFirst(count)
        zones.removeFirst(count)
    }

    private mutating func appendRun(_ run: (start: Double, end: Double, zone: UInt8)) {
        runStarts.append(run.start)
        runEnds.append(run.end)
        runZones.append(run.zone)
        if runStarts.count > runCapacity { coarsenOldestRuns() }
    }

    /// Coarsens the oldest half of the runs into blocks (never the latest run, which may still grow), then merges
    /// neighbouring blocks in pairs while there are too many.
    private mutating func coarsenOldestRuns() {
        let count = min(runCapacity / 2, runStarts.count - 1)
        let perBlock = max(2, runCapacity / 128)
        var first = 0
        while first < count {
            let end = min(count, first + perBlock)
            blockStarts.append(runStarts[first])
            blockEnds.append(runEnds[end - 1])
            var totals = Array(repeating: 0.0, count: zoneCount)
            for index in first ..< end { totals[Int(runZones[index])] += runEnds[index] - runStarts[index] }
            blockTotals.append(contentsOf: totals)
            first = end
        }
        runStarts.removeFirst(count)
        runEnds.removeFirst(count)
        runZones.removeFirst(count)
        while blockStarts.count > blockCapacity {
            var starts: [Double] = []
            var ends: [Double] = []
            var totals: [Double] = []
            for pair in stride(from: 0, to: blockStarts.count, by: 2) {
                let second = min(pair + 1, blockStarts.count - 1)
                starts.append(blockStarts[pair])
                ends.append(blockEnds[second])
                for zone in 0 ..< zoneCount {
                    let total = blockTotals[pair * zoneCount + zone]
                    totals.append(second == pair ? total : total + blockTotals[second * zoneCount + zone])
                }
            }
            blockStarts = starts
            blockEnds = ends
            blockTotals = totals
        }
    }

    /// A pause change reaching back before the exact window: the newly paused time is removed from each run (and,
    /// in proportion to the running time lost, from each block). Runs never overlap the pauses already applied, so
    /// removing every current pause removes exactly the new paused time. Time is never added back.
    private mutating func applyToFoldedHistory(changedAt: Double, previous: [ZonePause]) {
        // Runs (and blocks) ending by the change are untouched: the pause lists agree before it.
        let firstRun = Self.firstIndex(in: runEnds) { $0 > changedAt }
        var starts = Array(runStarts[..<firstRun])
        var ends = Array(runEnds[..<firstRun])
        var zones = Array(runZones[..<firstRun])
        for index in firstRun ..< runStarts.count {
            var cursor = runStarts[index]
            let end = runEnds[index]
            var pause = Self.firstIndex(in: pauses) { $0.end > cursor }
            while cursor < end {
                let stop = pause < pauses.count ? min(end, pauses[pause].start) : end
                if stop > cursor {
                    starts.append(cursor)
                    ends.append(stop)
                    zones.append(runZones[index])
                }
                guard pause < pauses.count else { break }
                cursor = max(cursor, pauses[pause].end)
                pause += 1
            }
        }
        runStarts = starts
        runEnds = ends
        runZones = zones
        for index in Self.firstIndex(in: blockEnds, where: { $0 > changedAt }) ..< blockStarts.count {
            let before = Self.runningTime(previous, from: blockStarts[index], to: blockEnds[index])
            let after = Self.runningTime(pauses, from: blockStarts[index], to: blockEnds[index])
            guard after < before else { continue }
            let share = before > 0 ? after / before : 0
            for zone in 0 ..< zoneCount { blockTotals[index * zoneCount + zone] *= share }
        }
        foldedTotals = Array(repeating: 0, count: zoneCount)
        for index in blockStarts.indices {
            for zone in 0 ..< zoneCount { foldedTotals[zone] += blockTotals[index * zoneCount + zone] }
        }
        for index in runStarts.indices { foldedTotals[Int(runZones[index])] += runEnds[index] - runStarts[index] }
    }

    // MARK: Helpers

    /// Where the coverage of sample `index` ends after pauses (its start when it starts inside a pause).
    private func coverageEnd(_ index: Int) -> Double {
        let start = starts[index]
        var end = limits[index]
        // The first pause that ends after the sample starts: it either holds the start or cuts the coverage.
        let pause = Self.firstIndex(in: pauses) { $0.end > start }
        if pause < pauses.count {
            if pauses[pause].start <= start { return start }
            end = min(end, pauses[pause].start)
        }
        return end
    }

    @inline(__always)
    private func contribution(_ index: Int, from windowStart: Double, to windowEnd: Double) -> Double {
        let end = pauses.isEmpty ? limits[index] : coverageEnd(index)
        return max(0, min(end, windowEnd) - max(starts[index], windowStart))
    }

    /// The first index whose element satisfies `predicate`, in an array where it holds for a suffix.
    @inline(__always)
    private static func firstIndex<Element>(in array: [Element], where predicate: (Element) -> Bool) -> Int {
        var low = 0
        var high = array.count
        while low < high {
            let middle = (low + high) / 2
            if predicate(array[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// The time in `[start, end)` outside `pauses` (finite bounds).
    package static func runningTime(_ pauses: [ZonePause], from start: Double, to end: Double) -> Double {
        guard end > start else { return 0 }
        var running = end - start
        var index = firstIndex(in: pauses) { $0.end > start }
        while index < pauses.count, pauses[index].start < end {
            running -= min(end, pauses[index].end) - max(start, pauses[index].start)
            index += 1
        }
        return max(0, running)
    }

    /// A time no later than the first instant at which two pause lists disagree.
    package static func earliestDifference(_ a: [ZonePause], _ b: [ZonePause]) -> Double {
        for index in 0 ..< min(a.count, b.count) where a[index] != b[index] {
            return a[index].start != b[index].start
                ? min(a[index].start, b[index].start) : min(a[index].end, b[index].end)
        }
        if a.count > b.count { return a[b.count].start }
        if b.count > a.count { return b[a.count].start }
        return .infinity
    }
}
