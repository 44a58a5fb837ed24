import Foundation
import HealthKitModel

/// A builder's running statistics: one accumulator per quantity type for the whole workout, and one per type for
/// each activity over the activity's own span. Fed with collected samples in time order; O(1) per sample.
package struct BuilderStatistics: Sendable {
    // One slot per type collected, found by the type's code: no string is hashed per sample on the live path.
    private var slotTypes: [HKQuantityType] = []
    /// Slot by type code; -1 for a type not collected.
    private var slotsByCode: [Int] = []
    private var workout: [StatisticsAccumulator] = []
    /// Activities in start order (they never overlap).
    private var activities: [ActivityAccumulators] = []
    /// The 3-second power (``TrailingAverage/threeSecondPower``), fed with every power sample collected.
    package private(set) var threeSecondPower = TrailingAverage.threeSecondPower()

    /// The types collected so far.
    package var collectedTypes: Set<HKQuantityType> { Set(slotTypes) }

    private struct ActivityAccumulators: Sendable {
        package var uuid: UUID
        package var start: Double
        package var end: Double
        /// Indexed by slot; nil until a sample of the type falls in the activity.
        package var bySlot: [StatisticsAccumulator?] = []
    }

    /// Begins keeping statistics for an activity spanning `[start, end)` (end open while it runs).
    package mutating func beginActivity(_ uuid: UUID, start: Date, end: Date?) {
        let activity = ActivityAccumulators(
            uuid: uuid, start: start.storeValue, end: end?.storeValue ?? .greatestFiniteMagnitude)
        let index = activities.firstIndex { $0.start > activity.start } ?? activities.endIndex
        activities.insert(activity, at: index)
    }

    /// Closes an activity's span: later samples no longer count for it.
    package mutating func endActivity(_ uuid: UUID, at end: Date) {
        if let index = activities.firstIndex(where: { $0.uuid == uuid }) { activities[index].end = end.storeValue }
    }

    private mutating func slot(for code: UInt16) -> Int {
        if Int(code) < slotsByCode.count, slotsByCode[Int(code)] >= 0 { return slotsByCode[Int(code)] }
        if slotsByCode.isEmpty { slotsByCode = Array(repeating: -1, count: QuantityTypeCatalog.byCode.count) }
        let type = HKQuantityType.forCode(code)
        let slot = slotTypes.count
        slotTypes.append(type)
        slotsByCode[Int(code)] = slot
        workout.append(
            StatisticsAccumulator(
                style: type.aggregationStyle, rangeStart: -.greatestFiniteMagnitude,
                rangeEnd: .greatestFiniteMagnitude))
        return slot
    }

    private func slot(ifCollected type: HKQuantityType) -> Int? {
        let code = Int(type.code)
        return code < slotsByCode.count && slotsByCode[code] >= 0 ? slotsByCode[code] : nil
    }

    package mutating func add(_ sample: CollectedSample) {
        let slot = slot(for: sample.typeCode)
        let (start, end, value) = (sample.start, sample.end, sample.value)
        workout[slot].add(start: start, end: end, value: value, source: 0)
        if TrailingAverage.powerCodes.contains(sample.typeCode) {
            threeSecondPower.add(value, at: Date(storeValue: start))
        }
        // Activities that the sample touches: the latest ones, searched back from the end until one ends before
        // the sample starts.
        var index = activities.count - 1
        let sampleEnd = max(end, start)
        while index >= 0, activities[index].end > start {
            if sampleEnd >= activities[index].start {
                if activities[index].bySlot.count <= slot {
                    activities[index].bySlot.append(
                        contentsOf: repeatElement(nil, count: slot + 1 - activities[index].bySlot.count))
                }
                if activities[index].bySlot[slot] == nil {
                    activities[index].bySlot[slot] = StatisticsAccumulator(
                        style: workout[slot].style,
                        rangeStart: activities[index].start,
                        rangeEnd: activities[index].end)
                }
                activities[index].bySlot[slot]!.add(start: start, end: end, value: value, source: 0)
            }
            index -= 1
        }
    }

    /// The workout's statistics for one type, as of `now` (a held heart-rate value counts until now at most).
    package func statistics(
        for type: HKQuantityType, start: Date?, through now: Date, source: HKSource
    ) -> HKStatistics? {
        guard let slot = slot(ifCollected: type) else { return nil }
        return Self.make(slotTypes[slot], workout[slot], start: start ?? now, end: now, source: source)
    }

    package func allStatistics(start: Date?, through now: Date, source: HKSource) -> [HKQuantityType: HKStatistics] {
        var result: [HKQuantityType: HKStatistics] = [:]
        for (slot, type) in slotTypes.enumerated() {
            result[type] = Self.make(type, workout[slot], start: start ?? now, end: now, source: source)
        }
        return result
    }

    /// An activity's statistics by type, as of `now` or its end.
    package func activityStatistics(_ uuid: UUID, through now: Date, source: HKSource) -> [HKQuantityType: HKStatistics]
    {
        guard let activity = activities.first(where: { $0.uuid == uuid }) else { return [:] }
        let end = min(now.storeValue, activity.end)
        var result: [HKQuantityType: HKStatistics] = [:]
        for (slot, accumulator) in activity.bySlot.enumerated() {
            guard let accumulator else { continue }
            result[slotTypes[slot]] = Self.make(
                slotTypes[slot], accumulator, start: Date(storeValue: activity.start),
                end: Date(storeValue: end), source: source)
        }
        return result
    }

    private static func make(
        _ type: HKQuantityType, _ accumulator: StatisticsAccumulator, start: Date, end: Date,
        source: HKSource
    ) -> HKStatistics? {
        let (merged, bySource) = accumulator.values(through: end)
        guard let merged else { return nil }
        return HKStatistics(
            quantityType: type, startDate: start, endDate: max(start, end), merged: merged,
            bySource: bySource[0].map { [source: $0] } ?? [:])
    }
}
