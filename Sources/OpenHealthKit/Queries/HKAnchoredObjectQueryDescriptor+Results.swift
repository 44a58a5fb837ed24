import Foundation
import HealthKitModel
import WorkoutEngine

extension HKAnchoredObjectQueryDescriptor {
    /// What changed since the anchor, then what changes after each save or delete, as an `AsyncSequence`; the query
    /// runs until the consuming task stops iterating (or is cancelled). Changes made through another
    /// `HKHealthStore` object or by another process are seen as an ``HKObserverQuery`` sees them.
    /// HealthKit: HKAnchoredObjectQueryDescriptor.results(for:).
    public func results(for healthStore: HKHealthStore) -> Results {
        Results(
            stream: QueryResults.running(on: healthStore) { continuation in
                let handler: HKAnchoredObjectQuery.Handler = { _, samples, deleted, anchor, error in
                    if let error {
                        continuation.finish(throwing: error)
                        return
                    }
                    if let anchor {
                        continuation.yield(
                            Result(
                                addedSamples: (samples ?? []).compactMap { $0 as? Sample },
                                deletedObjects: deleted ?? [], newAnchor: anchor))
                    }
                }
                let query = HKAnchoredObjectQuery(
                    queryDescriptors: predicates.map(\.descriptor), anchor: anchor, limit: limit ?? 0,
                    resultsHandler: handler)
                query.updateHandler = handler
                return query
            })
    }

    /// The deliveries of a running anchored object query. HealthKit: HKAnchoredObjectQueryDescriptor.Results.
    public struct Results: AsyncSequence, Sendable {
        public typealias Element = Result
        let stream: AsyncThrowingStream<Result, any Error>

        public func makeAsyncIterator() -> QueryResultsIterator<Result> {

            QueryResultsIterator(base: stream.makeAsyncIterator())

        }
    }
}
