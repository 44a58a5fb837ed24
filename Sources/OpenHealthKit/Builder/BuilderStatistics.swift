import Foundation

/// A builder's running statistics: one accumulator per quantity type for the whole workout, and one per type for
/// each activity over the activity's own span. Fed with collected samples in time order; O(1) per sample.
struct BuilderStatistics: Sendable {
    // One slot per type collected, found by the identity of the (interned) type instances live samples carry, or
    // by identifier for any other instance: no string is hashed per sample on the live path.
    private var slotTypes: [HKQuantityType] = []
    private var slotsByIdentifier: [String: Int] = [:]
    /// Interned instances seen, and their slots: a handful, searched in a list faster than hashed.
    private var slotsByInstance: [(instance: ObjectIdentifier, slot: Int)] = []
    private var workout: [StatisticsAccumulator] = []
    /// Activities in start order (they never overlap).
    private var activities: [ActivityAccumulators] = []

    /// The types collected so far.
    var collectedTypes: Set<HKQuantityType> { Set(slotTypes) }

    private struct ActivityAccumulators: Sendable {
        var uuid: UUID
        var start: Double
        var end: Double
        /// Indexed by slot; nil until a sample of the type falls in the activity.
        var bySlot: [StatisticsAccumulator?] = []
    }

    /// Begins keeping statistics for an activity spanning `[start, end)` (end open while it runs).
    mutating func beginActivity(_ uuid: UUID, start: Date, end: Date?) {
        let activity = ActivityAccumulators(uuid: uuid, start: start.storeValue, end: end?.storeValue ?? .greatestFiniteMagnitude)
        let index = activities.firstIndex { $0.start > activity.start } ?? activities.endIndex
        activities.insert(activity, at: index)
    }

    /// Closes an activity's span: later samples no longer count for it.
    mutating func endActivity(_ uuid: UUID, at end: Date) {
        if let index = activities.firstIndex(where: { $0.uuid == uuid }) { activities[index].end = end.storeValue }
    }

    private mutating func slot(for type: HKQuantityType) -> Int {
        let instance = ObjectIdentifier(type)
        for known in slotsByInstance where known.instance == instance { return known.slot }
        let slot: Int
        if let known = slotsByIdentifier[type.identifier] {
            slot = known
        } else {
            slot = slotTypes.count
            slotTypes.append(type)
            slotsByIdentifier[type.identifier] = slot
            workout.append(StatisticsAccumulator(style: type.aggregationStyle, rangeStart: -.greatestFiniteMagnitude,
                                                 rangeEnd: .greatestFiniteMagnitude))
        }
        // Only instances that live for ever are remembered by identity (an address may be reused otherwise).
        if HKQuantityType.interned(HKQuantityTypeIdentifier(rawValue: type.identifier)) === type {
            slotsByInstance.append((instance, slot))
        }
        return slot
    }

    private func slot(ifCollected type: HKQuantityType) -> Int? {
        slotsByInstance.first { $0.instance == ObjectIdentifier(type) }?.slot ?? slotsByIdentifier[type.identifier]
    }

    mutating func add(_ sample: CollectedSample) {
        add(type: sample.type, start: sample.start, end: sample.end, value: sample.value)
    }

    /// Adds one sample given by its fields (a live builder reads them out of its array in place, not copying
    /// each sample with its references).
    mutating func add(type: HKQuantityType, start: Double, end: Double, value: Double) {
        let slot = slot(for: type)
        workout[slot].add(start: start, end: end, value: value, source: 0)
        // Activities that the sample touches: the latest ones, searched back from the end until one ends before
        // the sample starts.
        var index = activities.count - 1
        let sampleEnd = max(end, start)
        while index >= 0, activities[index].end > start {
            if sampleEnd >= activities[index].start {
                if activities[index].bySlot.count <= slot {
                    activities[index].bySlot.append(contentsOf: repeatElement(nil, count: slot + 1 - activities[index].bySlot.count))
                }
                if activities[index].bySlot[slot] == nil {
                    activities[index].bySlot[slot] = StatisticsAccumulator(style: type.aggregationStyle,
                                                                            rangeStart: activities[index].start,
                                                                            rangeEnd: activities[index].end)
                }
                activities[index].bySlot[slot]!.add(start: start, end: end, value: value, source: 0)
            }
            index -= 1
        }
    }

    /// The workout's statistics for one type, as of `now` (a held heart-rate value counts until now at most).
    func statistics(for type: HKQuantityType, start: Date?, through now: Date, source: HKSource) -> HKStatistics? {
        guard let slot = slot(ifCollected: type) else { return nil }
        return Self.make(slotTypes[slot], workout[slot], start: start ?? now, end: now, source: source)
    }

    func allStatistics(start: Date?, through now: Date, source: HKSource) -> [HKQuantityType: HKStatistics] {
        var result: [HKQuantityType: HKStatistics] = [:]
        for (slot, type) in slotTypes.enumerated() {
            result[type] = Self.make(type, workout[slot], start: start ?? now, end: now, source: source)
        }
        return result
    }

    /// An activity's statistics by type, as of `now` or its end.
    func activityStatistics(_ uuid: UUID, through now: Date, source: HKSource) -> [HKQuantityType: HKStatistics] {
        guard let activity = activities.first(where: { $0.uuid == uuid }) else { return [:] }
        let end = min(now.storeValue, activity.end)
        var result: [HKQuantityType: HKStatistics] = [:]
        for (slot, accumulator) in activity.bySlot.enumerated() {
            guard let accumulator else { continue }
            result[slotTypes[slot]] = Self.make(slotTypes[slot], accumulator, start: Date(storeValue: activity.start),
                                                end: Date(storeValue: end), source: source)
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
