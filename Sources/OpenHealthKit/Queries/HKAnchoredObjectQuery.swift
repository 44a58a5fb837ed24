import Foundation
import HealthKitModel
import Synchronization
import WorkoutEngine

/// Reads what was added and deleted since an anchor, and, with an update handler, keeps reporting changes.
///
/// Added samples come in anchor (save) order; deleted objects are matched by type only, since a deleted object's
/// values are gone. The limit counts samples and deleted objects together. The returned anchor is the position of
/// the last object reported, or the store's newest position when everything was reported.
///
/// HealthKit: HKAnchoredObjectQuery.
public final class HKAnchoredObjectQuery: HKQuery, StoreObserving, @unchecked Sendable {
    public typealias Handler =
        @Sendable (HKAnchoredObjectQuery, [HKSample]?, [HKDeletedObject]?, HKQueryAnchor?, (any Error)?) -> Void

    public let limit: Int
    private let resultsHandler: Handler
    private let progress: Mutex<Progress>

    private struct Progress {
        var anchor: Int64
        var updateHandler: Handler?
        var stopped = false
        var running = false
        var pending = false
    }

    /// Called with each later change while the query runs. Set it before executing the query.
    public var updateHandler: Handler? {
        get { progress.withLock { $0.updateHandler } }
        set { progress.withLock { $0.updateHandler = newValue } }
    }

    public init(
        type: HKSampleType, predicate: NSPredicate?, anchor: HKQueryAnchor?, limit: Int,
        resultsHandler handler: @escaping Handler
    ) {
        self.limit = limit
        self.resultsHandler = handler
        self.progress = Mutex(Progress(anchor: anchor?.value ?? 0))
        super.init(
            objectType: type, predicate: predicate,
            descriptors: [HKQueryDescriptor(sampleType: type, predicate: predicate)])
    }

    public init(
        queryDescriptors: [HKQueryDescriptor], anchor: HKQueryAnchor?, limit: Int,
        resultsHandler handler: @escaping Handler
    ) {
        self.limit = limit
        self.resultsHandler = handler
        self.progress = Mutex(Progress(anchor: anchor?.value ?? 0))
        super.init(objectType: nil, predicate: nil, descriptors: queryDescriptors)
    }

    override func run(in store: HKHealthStore) {
        deliver(in: store, initial: true)
    }

    override func didStop() {
        progress.withLock { $0.stopped = true }
    }

    func storeDidChange(_ store: HKHealthStore) {
        let start = progress.withLock { state -> Bool in
            guard !state.stopped, state.updateHandler != nil else { return false }
            if state.running {
                state.pending = true
                return false
            }
            return true
        }
        if start { deliver(in: store, initial: false) }
    }

    private func deliver(in store: HKHealthStore, initial: Bool) {
        let from = progress.withLock { state -> Int64 in
            state.running = true
            return state.anchor
        }
        let (descriptors, limit) = (self.descriptors, limit)
        store.complete(
            { try await store.fetchChanges(descriptors, after: from, limit: limit) },
            { [self] result in
                let (handler, again) = progress.withLock { state -> (Handler?, Bool) in
                    if case .success(let changes) = result { state.anchor = max(state.anchor, changes.anchor) }
                    state.running = false
                    let again = state.pending && !state.stopped
                    state.pending = false
                    if state.stopped { return (nil, false) }
                    return (initial ? resultsHandler : state.updateHandler, again)
                }
                if initial && progress.withLock({ $0.updateHandler == nil }) { store.finished(self) }
                // An update reports changes; a wake-up that finds none (another connection's commit of other types,
                // or one already reported) calls nobody.
                let empty =
                    if case .success(let changes) = result {
                        changes.samples.isEmpty && changes.deleted.isEmpty
                    } else { false }
                if let handler, initial || !empty {
                    switch result {
                    case .success(let changes):
                        handler(
                            self, changes.samples, changes.deleted,
                            HKQueryAnchor(value: changes.anchor), nil)
                    case .failure(let error):
                        handler(self, nil, nil, nil, error)
                    }
                }
                if again { deliver(in: store, initial: false) }
            })
    }
}

extension HKHealthStore {
    struct Changes: Sendable {
        var samples: [HKSample]
        var deleted: [HKDeletedObject]
        var anchor: Int64
    }

    /// Samples added and objects deleted after an anchor, merged in anchor order and limited together.
    func fetchChanges(_ descriptors: [HKQueryDescriptor], after anchor: Int64, limit: Int) async throws -> Changes {
        let found = try await backend().changes(descriptors, after: anchor, limit: limit, client: clientIdentifier)
        var merged: [(Int64, Either)] =
            found.added.map { ($0.anchor, .sample($0.sample)) } + found.deleted.map { ($0.anchor, .deleted($0.object)) }
        merged.sort { $0.0 < $1.0 }
        var truncated = limit > 0 && merged.count == limit
        if limit > 0 && merged.count > limit {
            truncated = true
            // The originals of one condensed range share one anchor: a page never splits them, or the next page,
            // starting after that anchor, would miss the rest.
            var cut = limit
            while cut > 0 && merged[cut - 1].0 == merged[cut].0 { cut -= 1 }
            if cut == 0 { cut = merged.firstIndex { $0.0 != merged[0].0 } ?? merged.count }
            merged.removeLast(merged.count - cut)
        }
        let newest = truncated ? merged.last!.0 : max(anchor, found.currentAnchor)
        return Changes(
            samples: merged.compactMap { if case .sample(let s) = $0.1 { s } else { nil } },
            deleted: merged.compactMap { if case .deleted(let d) = $0.1 { d } else { nil } },
            anchor: newest)
    }

    private enum Either {
        case sample(HKSample)
        case deleted(HKDeletedObject)
    }
}
