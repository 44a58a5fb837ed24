import Foundation

/// A builder's running statistics: one accumulator per quantity type for the whole workout, and one per type for
/// each activity over the activity's own span. Fed with collected samples in time order; O(1) per sample.
struct BuilderStatistics: Sendable {
    // Keyed by type identifier: hashing a string is cheaper than `HKQuantityType`'s NSObject equality.
    private var workout: [String: StatisticsAccumulator] = [:]
    private var types: [String: HKQuantityType] = [:]
    private var activities: [UUID: ActivityAccumulators] = [:]

    /// The types collected so far.
    var collectedTypes: Set<HKQuantityType> { Set(types.values) }

    private struct ActivityAccumulators: Sendable {
        var start: Double
        var end: Double
        var byType: [String: StatisticsAccumulator] = [:]
    }

    /// Begins keeping statistics for an activity spanning `[start, end)` (end open while it runs).
    mutating func beginActivity(_ uuid: UUID, start: Date, end: Date?) {
        activities[uuid] = ActivityAccumulators(start: start.storeValue, end: end?.storeValue ?? .greatestFiniteMagnitude)
    }

    /// Closes an activity's span: later samples no longer count for it.
    mutating func endActivity(_ uuid: UUID, at end: Date) {
        activities[uuid]?.end = end.storeValue
    }

    mutating func add(_ sample: CollectedSample) {
        let type = sample.type
        let key = type.identifier
        if types[key] == nil { types[key] = type }
        workout[key, default: StatisticsAccumulator(style: type.aggregationStyle, rangeStart: -.greatestFiniteMagnitude,
                                                     rangeEnd: .greatestFiniteMagnitude)]
            .add(start: sample.start, end: sample.end, value: sample.value, source: 0)
        for (uuid, activity) in activities where sample.start < activity.end && max(sample.end, sample.start) >= activity.start {
            activities[uuid]!.byType[key, default: StatisticsAccumulator(style: type.aggregationStyle, rangeStart: activity.start,
                                                                          rangeEnd: activity.end)]
                .add(start: sample.start, end: sample.end, value: sample.value, source: 0)
        }
    }

    /// The workout's statistics for one type, as of `now` (a held heart-rate value counts until now at most).
    func statistics(for type: HKQuantityType, start: Date?, through now: Date, source: HKSource) -> HKStatistics? {
        guard let accumulator = workout[type.identifier] else { return nil }
        return Self.make(type, accumulator, start: start ?? now, end: now, source: source)
    }

    func allStatistics(start: Date?, through now: Date, source: HKSource) -> [HKQuantityType: HKStatistics] {
        var result: [HKQuantityType: HKStatistics] = [:]
        for (key, accumulator) in workout {
            guard let type = types[key] else { continue }
            result[type] = Self.make(type, accumulator, start: start ?? now, end: now, source: source)
        }
        return result
    }

    /// An activity's statistics by type, as of `now` or its end.
    func activityStatistics(_ uuid: UUID, through now: Date, source: HKSource) -> [HKQuantityType: HKStatistics] {
        guard let activity = activities[uuid] else { return [:] }
        let end = min(now.storeValue, activity.end)
        var result: [HKQuantityType: HKStatistics] = [:]
        for (key, accumulator) in activity.byType {
            guard let type = types[key] else { continue }
            result[type] = Self.make(type, accumulator, start: Date(storeValue: activity.start), end: Date(storeValue: end),
                                     source: source)
        }
        return result
    }

    private static func make(_ type: HKQuantityType, _ accumulator: StatisticsAccumulator, start: Date, end: Date,
                             source: HKSource) -> HKStatistics? {
        let (merged, bySource) = accumulator.values(through: end)
        guard let merged else { return nil }
        return HKStatistics(quantityType: type, startDate: start, endDate: max(start, end), merged: merged,
                            bySource: bySource[0].map { [source: $0] } ?? [:])
    }
}
