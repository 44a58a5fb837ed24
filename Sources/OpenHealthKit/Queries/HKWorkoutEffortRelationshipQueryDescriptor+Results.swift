import Foundation
import HealthKitModel
import Synchronization
import WorkoutEngine

extension HKWorkoutEffortRelationshipQueryDescriptor {
    /// The relationships added since the anchor, then those added after each change to the store, as an
    /// `AsyncSequence`; the query runs until the consuming task stops iterating (or is cancelled). A change that adds
    /// no relationship of the selected workouts delivers nothing; relationships made through another `HKHealthStore`
    /// object or by another process are seen as an ``HKObserverQuery`` sees changes (within a second).
    /// HealthKit: HKWorkoutEffortRelationshipQueryDescriptor.results(for:).
    public func results(for healthStore: HKHealthStore) -> Results {
        Results(
            stream: QueryResults.running(on: healthStore) { continuation in
                EffortRelationshipWatch(predicate: predicate, anchor: anchor?.value ?? 0, option: option) {
                    delivery in
                    switch delivery {
                    case .success(let result): continuation.yield(result)
                    case .failure(let error): continuation.finish(throwing: error)
                    }
                }
            })
    }

    /// The deliveries of a running relationship query. HealthKit: HKWorkoutEffortRelationshipQueryDescriptor.Results.
    public struct Results: AsyncSequence, Sendable {
        public typealias Element = Result
        let stream: AsyncThrowingStream<Result, any Error>

        public func makeAsyncIterator() -> QueryResultsIterator<Result> {

            QueryResultsIterator(base: stream.makeAsyncIterator())

        }
    }
}

/// The long-running query behind `results(for:)`: reads the relationships after its anchor when it starts and each
/// time the store changes, one read at a time (a change during a read triggers one more read after it).
///
/// `@unchecked`: a subclass of Apple's open `HKQuery`, which is; its own state is in a `Mutex`.
final class EffortRelationshipWatch: HKQuery, StoreObserving, @unchecked Sendable {
    private struct Progress {
        var anchor: Int64
        var stopped = false
        var busy = false
        var pending = false
    }
    private let progress: Mutex<Progress>
    private let option: HKWorkoutEffortRelationshipQueryOptions
    private let deliver: @Sendable (Swift.Result<HKWorkoutEffortRelationshipQueryDescriptor.Result, any Error>) -> Void

    init(
        predicate: NSPredicate?, anchor: Int64, option: HKWorkoutEffortRelationshipQueryOptions,
        deliver:
            @escaping @Sendable (Swift.Result<HKWorkoutEffortRelationshipQueryDescriptor.Result, any Error>) -> Void
    ) {
        progress = Mutex(Progress(anchor: anchor))
        self.option = option
        self.deliver = deliver
        super.init(objectType: HKObjectType.workoutType(), predicate: predicate, descriptors: [])
    }

    override func run(in store: HKHealthStore) { read(in: store, first: true) }

    override func didStop() { progress.withLock { $0.stopped = true } }

    func storeDidChange(_ store: HKHealthStore) { read(in: store, first: false) }

    private func read(in store: HKHealthStore, first: Bool) {
        let start = progress.withLock { state -> Int64? in
            guard !state.stopped else { return nil }
            if state.busy {
                state.pending = true
                return nil
            }
            state.busy = true
            return state.anchor
        }
        guard let anchor = start else { return }
        let (workouts, options) = (
            HKQueryDescriptor(sampleType: HKObjectType.workoutType(), predicate: predicate), option
        )
        store.complete(
            { try await store.effortRelationships(workouts: workouts, after: anchor, options: options) },
            { [self] outcome in
                switch outcome {
                case .success(let (relationships, newest)):
                    let stopped = progress.withLock { state -> Bool in
                        state.anchor = max(state.anchor, newest)
                        return state.stopped
                    }
                    // The first delivery always comes (it carries the anchor to continue from); later ones only with news.
                    if !stopped && (first || !relationships.isEmpty) {
                        deliver(.success(.init(relationships: relationships, newAnchor: HKQueryAnchor(value: newest))))
                    }
                case .failure(let error):
                    deliver(.failure(error))
                    store.stop(self)
                    return
                }
                let again = progress.withLock { state -> Bool in
                    state.busy = false
                    defer { state.pending = false }
                    return state.pending && !state.stopped
                }
                if again { read(in: store, first: false) }
            })
    }
}
