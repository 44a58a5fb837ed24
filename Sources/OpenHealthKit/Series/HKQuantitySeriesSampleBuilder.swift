import Foundation
import HealthKitModel
import Synchronization
import WorkoutEngine

/// Builds a sample holding many quantities of one type (a series, `count > 1`), stored compactly.
///
/// Quantities may arrive in any order; one inserted with the same start as an earlier one replaces it. Errors are
/// HealthKit's `errorInvalidArgument` (code 3): a unit incompatible with the type, a quantity starting before the
/// builder's start date or lasting longer than the type allows, a non-finite value, and (where HealthKit raises) any
/// insert or finish after the series was finished or discarded. A failed insert changes nothing.
///
/// The series is saved by ``finishSeries(metadata:endDate:)`` in one transaction, as one sample whose quantity is
/// the sum (cumulative types) or the average (discrete types; time-weighted for heart rate) of its quantities. The
/// last zero-length heart-rate quantity holds until the series' end date at most (see `StatisticsAccumulator`).
///
/// HealthKit: HKQuantitySeriesSampleBuilder.
public final class HKQuantitySeriesSampleBuilder: NSObject, @unchecked Sendable {
    public let quantityType: HKQuantityType
    public let startDate: Date
    public let device: HKDevice?
    private let healthStore: HKHealthStore
    private let state = Mutex(State())

    private struct State {
        /// Quantities by start (seconds since the reference date): end and value in the storage unit.
        var quantities: [Double: (end: Double, value: Double)] = [:]
        var phase = Phase.building
    }

    private enum Phase { case building, finishing, finished, discarded }

    public init(healthStore: HKHealthStore, quantityType: HKQuantityType, startDate: Date, device: HKDevice?) {
        self.healthStore = healthStore
        self.quantityType = quantityType
        self.startDate = startDate
        self.device = device
    }

    /// Adds a quantity at an instant. HealthKit: HKQuantitySeriesSampleBuilder.insert(_:at:).
    public func insert(_ quantity: HKQuantity, at date: Date) throws {
        try insert(quantity, for: DateInterval(start: date, duration: 0))
    }

    /// Adds a quantity over an interval; the same start replaces an earlier quantity.
    /// HealthKit: HKQuantitySeriesSampleBuilder.insert(_:for:).
    public func insert(_ quantity: HKQuantity, for dateInterval: DateInterval) throws {
        guard quantityType.is(compatibleWith: quantity.unit) else {
            throw HKError(
                .errorInvalidArgument,
                "A quantity in \(quantity.unit.unitString) cannot be added to a \(quantityType.identifier) series.")
        }
        let value = quantity.doubleValue(for: quantityType.storageUnit)
        guard value.isFinite else {
            throw HKError(
                .errorInvalidArgument, "A \(quantityType.identifier) series quantity must be a finite number.")
        }
        guard dateInterval.start >= startDate else {
            throw HKError(
                .errorInvalidArgument,
                "A quantity starting at \(dateInterval.start) is earlier than the series' start date \(startDate).")
        }
        if quantityType.isMaximumDurationRestricted, dateInterval.duration > quantityType.maximumAllowedDuration {
            throw HKError(
                .errorInvalidArgument,
                "A \(quantityType.identifier) quantity may last at most \(quantityType.maximumAllowedDuration) s.")
        }
        try state.withLock { state in
            try Self.requireBuilding(state.phase)
            state.quantities[dateInterval.start.storeValue] = (dateInterval.end.storeValue, value)
        }
    }

    private static func requireBuilding(_ phase: Phase) throws {
        switch phase {
        case .building: return
        case .finishing, .finished:
            throw HKError(.errorInvalidArgument, "The quantity series was already finished.")
        case .discarded:
            throw HKError(.errorInvalidArgument, "The quantity series was discarded.")
        }
    }

    /// Saves the series and returns its sample (none when nothing was inserted). `endDate` defaults to the latest
    /// quantity end and must not be earlier. HealthKit: HKQuantitySeriesSampleBuilder.finishSeries(metadata:endDate:).
    public func finishSeries(metadata: [String: Any]?, endDate: Date?) async throws -> [HKQuantitySample] {
        let quantities = try state.withLock { state -> [SeriesQuantity] in
            try Self.requireBuilding(state.phase)
            state.phase = .finishing
            return state.quantities.map { SeriesQuantity(start: $0.key, end: $0.value.end, value: $0.value.value) }
                .sorted { $0.start < $1.start }
        }
        do {
            let samples = try await save(quantities, metadata: metadata, endDate: endDate)
            state.withLock { $0.phase = .finished }
            return samples
        } catch {
            state.withLock { $0.phase = .building }
            throw error
        }
    }

    /// HealthKit: HKQuantitySeriesSampleBuilder.finishSeries(metadata:).
    public func finishSeries(metadata: [String: Any]?) async throws -> [HKQuantitySample] {
        try await finishSeries(metadata: metadata, endDate: nil)
    }

    /// HealthKit: HKQuantitySeriesSampleBuilder.finishSeries(metadata:endDate:completion:).
    public func finishSeries(
        metadata: [String: Any]?, endDate: Date?,
        completion: @escaping @Sendable ([HKQuantitySample]?, (any Error)?) -> Void
    ) {
        let box = UncheckedBox(metadata)
        healthStore.report({ UncheckedBox(try await self.finishSeries(metadata: box.value, endDate: endDate)) }) {
            result in
            switch result {
            case .success(let samples): completion(samples.value, nil)
            case .failure(let error): completion(nil, error)
            }
        }
    }

    /// HealthKit: HKQuantitySeriesSampleBuilder.finishSeries(metadata:completion:).
    public func finishSeries(
        metadata: [String: Any]?, completion: @escaping @Sendable ([HKQuantitySample]?, (any Error)?) -> Void
    ) {
        finishSeries(metadata: metadata, endDate: nil, completion: completion)
    }

    /// Drops everything inserted; the builder cannot be used again. HealthKit: HKQuantitySeriesSampleBuilder.discard().
    public func discard() {
        state.withLock { state in
            state.quantities = [:]
            if state.phase == .building { state.phase = .discarded }
        }
    }

    private func save(
        _ quantities: [SeriesQuantity], metadata: [String: Any]?, endDate: Date?
    ) async throws -> [HKQuantitySample] {
        guard let first = quantities.first else { return [] }
        let latest = quantities.map(\.end).max() ?? first.start
        let end = endDate?.storeValue ?? latest
        guard end >= latest else {
            throw HKError(.errorInvalidArgument, "The series' end date is earlier than its last quantity.")
        }
        try MetadataCoding.validate(metadata)
        let encodedMetadata = try MetadataCoding.encode(metadata)
        let (type, uuid, store) = (quantityType, UUID(), healthStore)
        try await store.backend().saveSeries(
            QuantitySeriesToSave(
                type: type, quantities: quantities, start: first.start, end: end, uuid: uuid,
                metadata: encodedMetadata, device: device, source: store.sourceRevision),
            check: ShareCheck(client: store.clientIdentifier, types: [type]))
        healthStore.notifyChange()
        let samples = try await store.fetchSamples(
            [HKQueryDescriptor(sampleType: type, predicate: HKQuery.predicateForObject(with: uuid))],
            limit: 0, sorts: [])
        return samples.compactMap { $0 as? HKQuantitySample }
    }
}
