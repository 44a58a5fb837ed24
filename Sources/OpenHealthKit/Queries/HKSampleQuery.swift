import Foundation
import HealthKitModel
import WorkoutEngine

/// Reads samples of one type, or of several through query descriptors, sorted and limited.
///
/// HealthKit: HKSampleQuery.
public final class HKSampleQuery: HKQuery, @unchecked Sendable {
    public typealias ResultsHandler = @Sendable (HKSampleQuery, [HKSample]?, (any Error)?) -> Void

    /// The maximum number of samples; `HKObjectQueryNoLimit` (0) for all.
    public let limit: Int
    public let sortDescriptors: [NSSortDescriptor]?
    private let resultsHandler: ResultsHandler

    public init(
        sampleType: HKSampleType, predicate: NSPredicate?, limit: Int, sortDescriptors: [NSSortDescriptor]?,
        resultsHandler: @escaping ResultsHandler
    ) {
        self.limit = limit
        self.sortDescriptors = sortDescriptors
        self.resultsHandler = resultsHandler
        super.init(
            objectType: sampleType, predicate: predicate,
            descriptors: [HKQueryDescriptor(sampleType: sampleType, predicate: predicate)])
    }

    public init(queryDescriptors: [HKQueryDescriptor], limit: Int, resultsHandler: @escaping ResultsHandler) {
        self.limit = limit
        self.sortDescriptors = nil
        self.resultsHandler = resultsHandler
        super.init(objectType: nil, predicate: nil, descriptors: queryDescriptors)
    }

    public init(
        queryDescriptors: [HKQueryDescriptor], limit: Int, sortDescriptors: [NSSortDescriptor],
        resultsHandler: @escaping ResultsHandler
    ) {
        self.limit = limit
        self.sortDescriptors = sortDescriptors
        self.resultsHandler = resultsHandler
        super.init(objectType: nil, predicate: nil, descriptors: queryDescriptors)
    }

    override func run(in store: HKHealthStore) {
        let (descriptors, sorts, limit) = (self.descriptors, (sortDescriptors ?? []).map(SampleSort.init), limit)
        store.complete(
            { try await store.fetchSamples(descriptors, limit: limit, sorts: sorts) },
            { [self] result in
                store.finished(self)
                switch result {
                case .success(let samples): resultsHandler(self, samples, nil)
                case .failure(let error): resultsHandler(self, nil, error)
                }
            })
    }
}

extension HKHealthStore {
    /// Starts a query; its handlers are called on a background queue.
    public func execute(_ query: HKQuery) {
        state.withLock { $0.runningQueries[ObjectIdentifier(query)] = query }
        query.run(in: self)
        if query is StoreObserving { watchForChanges() }
    }

    /// Stops a long-running query: its update handler is not called again.
    public func stop(_ query: HKQuery) {
        let removed = state.withLock { $0.runningQueries.removeValue(forKey: ObjectIdentifier(query)) }
        if removed != nil { query.didStop() }
    }

    /// Called when a one-shot query has delivered its results.
    func finished(_ query: HKQuery) {
        _ = state.withLock { $0.runningQueries.removeValue(forKey: ObjectIdentifier(query)) }
    }

    /// Tells running long-lived queries that the store changed.
    func notifyChange() {
        let queries = state.withLock { Array($0.runningQueries.values) }
        for case let query as StoreObserving in queries {
            query.storeDidChange(self)
        }
    }

    /// Reads samples for the query machinery, applying this client's read access.
    func fetchSamples(_ descriptors: [HKQueryDescriptor], limit: Int, sorts: [SampleSort]) async throws -> [HKSample] {
        try await backend().samples(descriptors, limit: limit, sorts: sorts, client: clientIdentifier)
    }
}

/// A query that wants to hear about changes to the store after it was started.
protocol StoreObserving: AnyObject {
    func storeDidChange(_ store: HKHealthStore)
}
