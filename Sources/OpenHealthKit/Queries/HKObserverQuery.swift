import Foundation
import HealthKitModel
import Synchronization
import WorkoutEngine

/// What an observer query's update handler calls when it has dealt with the change. HealthKit:
/// HKObserverQueryCompletionHandler.
public typealias HKObserverQueryCompletionHandler = @Sendable () -> Void

/// Tells the app that samples of its types were saved or deleted — by this store object, another one, or another
/// process on the same store file — without saying what; the app then runs an anchored query.
///
/// - The update handler is called once when the query starts (as HealthKit does), then after each change to a
///   matching sample: a save matching the type and predicate, or a deletion of the type (deleted objects keep no
///   values to match). Changes by other connections are noticed within a second (see `StoreChangeWatcher`); several
///   changes in that time make one call.
/// - Calls are serial: the next waits until the handler has called its completion handler (HealthKit asks apps to
///   call it; here, a handler that never calls it stops further calls).
/// - Types the client may not read never fire (read denial looks like no data).
/// - The query runs until ``HKHealthStore/stop(_:)``.
///
/// HealthKit: HKObserverQuery.
public final class HKObserverQuery: HKQuery, StoreObserving, @unchecked Sendable {
    public typealias UpdateHandler =
        @Sendable (HKObserverQuery, @escaping HKObserverQueryCompletionHandler, (any Error)?) -> Void
    public typealias DescriptorsUpdateHandler =
        @Sendable (
            HKObserverQuery, Set<HKSampleType>?,
            @escaping HKObserverQueryCompletionHandler, (any Error)?
        ) -> Void

    private let handler: DescriptorsUpdateHandler
    private struct Progress {
        var anchor: Int64 = 0
        var stopped = false
        /// Checking the store, or waiting for the app's completion handler.
        var busy = false
        var pending = false
    }
    private let progress = Mutex(Progress())

    /// Observes one type (and a predicate on its samples). HealthKit: init(sampleType:predicate:updateHandler:).
    public init(sampleType: HKSampleType, predicate: NSPredicate?, updateHandler: @escaping UpdateHandler) {
        handler = { query, _, completion, error in updateHandler(query, completion, error) }
        super.init(
            objectType: sampleType, predicate: predicate,
            descriptors: [HKQueryDescriptor(sampleType: sampleType, predicate: predicate)])
    }

    /// Observes several types; the handler gets the types that changed (nil on the first call and on errors).
    /// HealthKit: init(queryDescriptors:updateHandler:).
    public init(queryDescriptors: [HKQueryDescriptor], updateHandler: @escaping DescriptorsUpdateHandler) {
        handler = updateHandler
        super.init(objectType: nil, predicate: nil, descriptors: queryDescriptors)
    }

    override func run(in store: HKHealthStore) {
        progress.withLock { $0.busy = true }
        store.complete(
            { try await store.currentAnchorValue() },
            { [self] result in
                switch result {
                case .success(let anchor):
                    progress.withLock { $0.anchor = anchor }
                    call(nil, nil, in: store)
                case .failure(let error):
                    call(nil, error, in: store)
                }
            })
    }

    override func didStop() {
        progress.withLock { $0.stopped = true }
    }

    func storeDidChange(_ store: HKHealthStore) {
        let check = progress.withLock { state -> Int64? in
            guard !state.stopped else { return nil }
            if state.busy {
                state.pending = true
                return nil
            }
            state.busy = true
            return state.anchor
        }
        guard let anchor = check else { return }
        let descriptors = self.descriptors
        store.complete(
            { try await store.observedChanges(descriptors, after: anchor) },
            { [self] result in
                switch result {
                case .success(let (types, newest)):
                    progress.withLock { $0.anchor = max($0.anchor, newest) }
                    if types.isEmpty { finishCall(in: store) } else { call(types, nil, in: store) }
                case .failure(let error):
                    call(nil, error, in: store)
                }
            })
    }

    /// Calls the app; the completion handler lets the next change through.
    private func call(_ types: Set<HKSampleType>?, _ error: (any Error)?, in store: HKHealthStore) {
        guard !progress.withLock({ $0.stopped }) else { return }
        let once = Mutex(false)
        handler(
            self, types,
            { [self] in
                guard
                    !once.withLock({ called in
                        defer { called = true }
                        return called
                    })
                else { return }
                finishCall(in: store)
            }, error)
    }

    private func finishCall(in store: HKHealthStore) {
        let again = progress.withLock { state -> Bool in
            state.busy = false
            defer { state.pending = false }
            return state.pending && !state.stopped
        }
        if again { storeDidChange(store) }
    }
}

extension HKHealthStore {
    /// The store's newest anchor.
    func currentAnchorValue() async throws -> Int64 {
        try await backend().currentAnchor()
    }

    /// The observed types that changed after `anchor`, and the store's newest anchor.
    func observedChanges(
        _ descriptors: [HKQueryDescriptor], after anchor: Int64
    ) async throws -> (Set<HKSampleType>, Int64) {
        let changed = try await backend().changedTypes(descriptors, after: anchor, client: clientIdentifier)
        return (changed.types, changed.anchor)
    }
}
