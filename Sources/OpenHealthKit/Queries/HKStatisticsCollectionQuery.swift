import Foundation
import HealthKitModel
import Synchronization
import WorkoutEngine

/// Computes statistics over consecutive intervals of equal length (`intervalComponents`, calendar-aware) tiling
/// time from `anchorDate` in both directions; with a ``statisticsUpdateHandler`` it keeps running and reports
/// changes when matching samples are saved or deleted.
///
/// A sample contributes to every interval it overlaps (cumulative values prorated by time). Only intervals with
/// data appear in ``HKStatisticsCollection/statistics()``.
///
/// HealthKit: HKStatisticsCollectionQuery.
public final class HKStatisticsCollectionQuery: HKQuery, StoreObserving, @unchecked Sendable {
    public typealias InitialResultsHandler =
        @Sendable (HKStatisticsCollectionQuery, HKStatisticsCollection?, (any Error)?) -> Void
    public typealias UpdateHandler =
        @Sendable (HKStatisticsCollectionQuery, HKStatistics?, HKStatisticsCollection?, (any Error)?) -> Void

    public let anchorDate: Date
    public let options: HKStatisticsOptions
    public let intervalComponents: DateComponents
    let quantityType: HKQuantityType
    let tiling: DateTiling
    private let state = Mutex(State())

    private struct State {
        var initialResultsHandler: InitialResultsHandler?
        var statisticsUpdateHandler: UpdateHandler?
        var last: HKStatisticsCollection?
        var stopped = false
        var running = false
        var pending = false
    }

    /// Called once with the collection when the query starts. HealthKit: initialResultsHandler.
    public var initialResultsHandler: InitialResultsHandler? {
        get { state.withLock { $0.initialResultsHandler } }
        set { state.withLock { $0.initialResultsHandler = newValue } }
    }

    /// Called after each change to matching samples, with the newest changed interval's statistics and the new
    /// collection; setting it keeps the query running until stopped. HealthKit: statisticsUpdateHandler.
    public var statisticsUpdateHandler: UpdateHandler? {
        get { state.withLock { $0.statisticsUpdateHandler } }
        set { state.withLock { $0.statisticsUpdateHandler = newValue } }
    }

    public init(
        quantityType: HKQuantityType, quantitySamplePredicate: NSPredicate?, options: HKStatisticsOptions = [],
        anchorDate: Date, intervalComponents: DateComponents
    ) {
        options.check(for: quantityType, function: "HKStatisticsCollectionQuery")
        self.quantityType = quantityType
        self.options = options
        self.anchorDate = anchorDate
        self.intervalComponents = intervalComponents
        self.tiling = DateTiling(anchor: anchorDate, components: intervalComponents)
        super.init(
            objectType: quantityType, predicate: quantitySamplePredicate,
            descriptors: [HKQueryDescriptor(sampleType: quantityType, predicate: quantitySamplePredicate)])
    }

    override func run(in store: HKHealthStore) {
        deliver(in: store, initial: true)
    }

    override func didStop() {
        state.withLock { $0.stopped = true }
    }

    func storeDidChange(_ store: HKHealthStore) {
        let start = state.withLock { state -> Bool in
            guard !state.stopped, state.statisticsUpdateHandler != nil else { return false }
            if state.running {
                state.pending = true
                return false
            }
            state.running = true
            return true
        }
        if start { deliver(in: store, initial: false) }
    }

    private func deliver(in store: HKHealthStore, initial: Bool) {
        if initial { state.withLock { $0.running = true } }
        let request = UncheckedBox((quantityType, predicate, options, tiling))
        store.complete(
            {
                let (type, predicate, options, tiling) = request.value
                return try await store.computeCollection(
                    type: type, predicate: predicate, options: options, tiling: tiling)
            },
            { [self] result in
                let (initialHandler, updateHandler, previous, again, keepRunning) = state.withLock { state in
                    let previous = state.last
                    if case .success(let collection) = result { state.last = collection }
                    state.running = false
                    let again = state.pending && !state.stopped
                    state.pending = false
                    return (
                        state.stopped ? nil : state.initialResultsHandler,
                        state.stopped ? nil : state.statisticsUpdateHandler,
                        previous, again, state.statisticsUpdateHandler != nil
                    )
                }
                if initial && !keepRunning { store.finished(self) }
                switch result {
                case .success(let collection):
                    if initial {
                        initialHandler?(self, collection, nil)
                    } else if let updateHandler {
                        let changed = collection.changedIndices(since: previous)
                        if let newest = changed.last {
                            updateHandler(self, collection.statistics(for: tiling.start(of: newest)), collection, nil)
                        }
                    }
                case .failure(let error):
                    if initial { initialHandler?(self, nil, error) } else { updateHandler?(self, nil, nil, error) }
                }
                if again {
                    state.withLock { $0.running = true }
                    deliver(in: store, initial: false)
                }
            })
    }
}
