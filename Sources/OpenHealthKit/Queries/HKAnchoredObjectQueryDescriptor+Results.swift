import Foundation
import HealthKitModel
import WorkoutEngine

extension HKAnchoredObjectQueryDescriptor {
    /// What changed since the anchor, then what changes after each save or delete, as an `AsyncSequence`; the query
    /// runs until the consuming task stops iterating (or is cancelled). Changes made through another
    /// `HKHealthStore` object or by another process are seen as an ``HKObserverQuery`` sees them.
    /// HealthKit: HKAnchoredObjectQueryDescriptor.results(for:).
    public func results(for healthStore: HKHealthStore) -> Results {
        let (stream, continuation) = AsyncThrowingStream<Result, any Error>.makeStream()
        let handler: HKAnchoredObjectQuery.Handler = { _, samples, deleted, anchor, error in
            if let error {
                continuation.finish(throwing: error)
                return
            }
            if let anchor {
                continuation.yield(
                    Result(
                        addedSamples: (samples ?? []).compactMap { $0 as? Sample }, deletedObjects: deleted ?? [],
                        newAnchor: anchor))
            }
        }
        let query = HKAnchoredObjectQuery(
            queryDescriptors: predicates.map(\.descriptor), anchor: anchor, limit: limit ?? 0,
            resultsHandler: handler)
        query.updateHandler = handler
        let box = UncheckedBox(query)
        continuation.onTermination = { _ in healthStore.stop(box.value) }
        healthStore.execute(query)
        return Results(stream: stream)
    }

    /// The deliveries of a running anchored object query. HealthKit: HKAnchoredObjectQueryDescriptor.Results.
    public struct Results: AsyncSequence, Sendable {
        public typealias Element = Result
        let stream: AsyncThrowingStream<Result, any Error>

        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<Result, any Error>.Iterator
            public mutating func next() async throws -> Result? { try await base.next() }
        }

        public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator()) }
    }
}
