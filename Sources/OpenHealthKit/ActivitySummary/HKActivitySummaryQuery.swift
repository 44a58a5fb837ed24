import Foundation
import HealthKitModel
import Synchronization
import WorkoutEngine

/// Reads activity summaries; with an ``updateHandler`` it keeps running and reports the summaries that change.
///
/// The results handler gets every matching day's summary, oldest first (see ``HKActivitySummary`` for how a day
/// is computed). With an update handler, each change to the store recomputes the matching days and the handler
/// gets the summaries that are new or different; the query runs until ``HKHealthStore/stop(_:)``.
///
/// HealthKit: HKActivitySummaryQuery.
public final class HKActivitySummaryQuery: HKQuery, StoreObserving, @unchecked Sendable {
    public typealias Handler = @Sendable (HKActivitySummaryQuery, [HKActivitySummary]?, (any Error)?) -> Void

    private let resultsHandler: Handler
    private struct Progress {
        var updateHandler: Handler?
        var known: [Date: HKActivitySummary] = [:]
        var stopped = false
        /// Whether the results handler has had the first results (what changes are measured against).
        var started = false
        /// A change heard before then: looked at once they are delivered.
        var changedWhileStarting = false
    }
    private let progress = Mutex(Progress())

    /// Called with the new or changed summaries after each change to the store. Set it before executing the query.
    public var updateHandler: Handler? {
        get { progress.withLock { $0.updateHandler } }
        set { progress.withLock { $0.updateHandler = newValue } }
    }

    public init(predicate: NSPredicate?, resultsHandler handler: @escaping Handler) {
        self.resultsHandler = handler
        super.init(objectType: HKObjectType.activitySummaryType(), predicate: predicate, descriptors: [])
    }

    override func run(in store: HKHealthStore) {
        let predicate = UncheckedBox(self.predicate)
        store.complete(
            { UncheckedBox(try await store.activitySummaries(matching: predicate.value)) },
            { [self] result in
                let (keepRunning, changedMeanwhile) = progress.withLock { state -> (Bool, Bool) in
                    if case .success(let summaries) = result {
                        for summary in summaries.value { if let day = summary.dayStart { state.known[day] = summary } }
                    }
                    state.started = true
                    defer { state.changedWhileStarting = false }
                    return (state.updateHandler != nil && !state.stopped, state.changedWhileStarting)
                }
                if !keepRunning { store.finished(self) }
                switch result {
                case .success(let summaries): resultsHandler(self, summaries.value, nil)
                case .failure(let error): resultsHandler(self, nil, error)
                }
                // The first results may have been read before that change: look again, reporting only what differs.
                if keepRunning && changedMeanwhile { storeDidChange(store) }
            })
    }

    override func didStop() {
        progress.withLock { $0.stopped = true }
    }

    func storeDidChange(_ store: HKHealthStore) {
        // Changes are reported against the first results: a change heard before they are delivered waits for them
        // (otherwise every day would be reported as new).
        let ready = progress.withLock { state -> Bool in
            guard !state.stopped, state.updateHandler != nil else { return false }
            guard state.started else {
                state.changedWhileStarting = true
                return false
            }
            return true
        }
        guard ready else { return }
        let predicate = UncheckedBox(self.predicate)
        store.complete(
            { UncheckedBox(try await store.activitySummaries(matching: predicate.value)) },
            { [self] result in
                let (handler, changed) = progress.withLock { state -> (Handler?, [HKActivitySummary]) in
                    guard !state.stopped, case .success(let summaries) = result else {
                        return (state.stopped ? nil : state.updateHandler, [])
                    }
                    var changed: [HKActivitySummary] = []
                    for summary in summaries.value {
                        guard let day = summary.dayStart else { continue }
                        if state.known[day] != summary {
                            changed.append(summary)
                            state.known[day] = summary
                        }
                    }
                    return (state.updateHandler, changed)
                }
                guard let handler else { return }
                switch result {
                case .success: if !changed.isEmpty { handler(self, changed, nil) }
                case .failure(let error): handler(self, nil, error)
                }
            })
    }
}

/// Reads activity summaries with `async`/`await`. HealthKit: HKActivitySummaryQueryDescriptor.
public struct HKActivitySummaryQueryDescriptor: HKAsyncQuery, Sendable {
    // HealthKit declares this type Sendable with an NSPredicate in it; an NSPredicate is immutable once made, but
    // Foundation on Linux does not mark it Sendable.
    /// The predicate the summaries match; nil for every day.
    nonisolated(unsafe) public var predicate: NSPredicate?

    public init(predicate: NSPredicate?) {
        self.predicate = predicate
    }

    /// The matching summaries, oldest first. HealthKit: HKActivitySummaryQueryDescriptor.result(for:).
    public func result(for healthStore: HKHealthStore) async throws -> [HKActivitySummary] {
        let predicate = UncheckedBox(self.predicate)
        return try await healthStore.activitySummaries(matching: predicate.value)
    }

    /// Every matching summary, then the summaries that change, until the consuming task is cancelled.
    /// HealthKit: HKActivitySummaryQueryDescriptor.results(for:).
    public func results(for healthStore: HKHealthStore) -> Results {
        Results(
            stream: QueryResults.running(on: healthStore) { continuation in
                let deliver: HKActivitySummaryQuery.Handler = { _, summaries, error in
                    if let summaries { continuation.yield(summaries) }
                    if let error { continuation.finish(throwing: error) }
                }
                let query = HKActivitySummaryQuery(predicate: predicate, resultsHandler: deliver)
                query.updateHandler = deliver
                return query
            })
    }

    /// The summaries of a running query. HealthKit: HKActivitySummaryQueryDescriptor.Results.
    public struct Results: AsyncSequence, Sendable {
        public typealias Element = [HKActivitySummary]
        let stream: AsyncThrowingStream<[HKActivitySummary], any Error>

        public func makeAsyncIterator() -> QueryResultsIterator<[HKActivitySummary]> {

            QueryResultsIterator(base: stream.makeAsyncIterator())

        }
    }
}
