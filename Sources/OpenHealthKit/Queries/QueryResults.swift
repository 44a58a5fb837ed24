import Foundation
import HealthKitModel

/// The iterator of every query descriptor's `Results`: each delivery of the query behind it, in order, until the
/// query finishes, fails (the error is thrown) or the consuming task stops iterating. OpenHealthKit.
public struct QueryResultsIterator<Element>: AsyncIteratorProtocol {
    var base: AsyncThrowingStream<Element, any Error>.Iterator

    public mutating func next() async throws -> Element? { try await base.next() }
}

/// The one stream behind every descriptor's `results(for:)`, in its two kinds: a long-running query's deliveries,
/// and one read of the store handed out element by element.
enum QueryResults {
    /// Executes the query `make` builds (its handlers deliver to the continuation it is given) and stops it when the
    /// consumer stops iterating or is cancelled.
    static func running<Element>(
        on healthStore: HKHealthStore,
        _ make: (AsyncThrowingStream<Element, any Error>.Continuation) -> HKQuery
    ) -> AsyncThrowingStream<Element, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Element, any Error>.makeStream()
        let query = UncheckedBox(make(continuation))
        continuation.onTermination = { _ in healthStore.stop(query.value) }
        healthStore.execute(query.value)
        return stream
    }

    /// Reads once, in a task of its own (cancelled when the consumer stops), and hands out what was read in order,
    /// then finishes; a failed read finishes the stream with its error.
    static func reading<Item, Element: Sendable>(
        _ read: @escaping @Sendable () async throws -> [Item], _ element: @escaping @Sendable (Item) -> Element
    ) -> AsyncThrowingStream<Element, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for item in try await read() { continuation.yield(element(item)) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
