import Foundation
import HealthKitModel

extension HKWorkoutZoneConfiguration {
    /// How the journal keeps the configuration a builder began with.
    package var journalEntry: JournalEntry {
        .zoneConfiguration(
            type: quantityType.identifier, source: source.storeCode, boundaries: boundaryValues)
    }

    /// A configuration read back from the journal.
    package init(journaled type: String, source: Int, boundaries: [Double]) throws {
        guard let quantityType = Self.zonedTypes.first(where: { $0.identifier == type }),
            let source = HKWorkoutZoneConfiguration.Source(storeCode: source)
        else {
            throw HKError(.errorDatabaseInaccessible, "A journaled zone configuration is damaged.")
        }
        try self.init(quantityType: quantityType, boundaryValues: boundaries, source: source)
    }
}

extension HKWorkoutZoneConfiguration {
    /// The zone a value falls in, by the zone engine's rule (`ZoneAccumulator`: min-inclusive, max-exclusive, the
    /// first zone open below and the last open above); nil for a quantity of another dimension.
    ///
    /// OpenHealthKit extension.
    public func zone(containing quantity: HKQuantity) -> HKWorkoutZone? {
        guard quantity.is(compatibleWith: quantityType.storageUnit) else { return nil }
        let index = ZoneAccumulator.zone(
            of: quantity.doubleValue(for: quantityType.storageUnit), boundaries: boundaryValues)
        return zones[index]
    }
}

extension HKLiveWorkoutZoneUpdate {
    /// The update a zone change in the builder's zones announces.
    package convenience init(_ change: ZoneChange) {
        self.init(
            group: change.group, current: change.current, previous: change.previous,
            lastSampleProcessedDate: change.lastSampleDate.map(Date.init(storeValue:)))
    }
}
