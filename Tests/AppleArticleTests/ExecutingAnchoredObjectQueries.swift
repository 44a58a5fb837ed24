// Apple's article "Executing Anchored Object Queries", and the listing of HKAnchoredObjectQuery's reference page
// ("Running Anchored Object Queries"), which makes the same calls and adds the update handler:
// https://developer.apple.com/documentation/healthkit/executing-anchored-object-queries
// https://developer.apple.com/documentation/healthkit/hkanchoredobjectquery
//
// The reference page's listing: a query for step counts from the app's anchor, whose results handler and update
// handler move the anchor and process added and deleted samples. Changed for Linux: `import HealthKit` is
// `import OpenHealthKit`. Changed for the test: "Process the … samples here" records what was processed, for the
// test to read; `myAnchor` is the app's property, behind a lock.
import OpenHealthKit
import Testing

final class ExecutingAnchoredObjectQueries: @unchecked Sendable {
    let store: HKHealthStore
    private let lock = NSLock()
    private var anchor: HKQueryAnchor?
    private var added: [UUID] = []
    private var deleted: [UUID] = []

    init(store: HKHealthStore) { self.store = store }

    var myAnchor: HKQueryAnchor? {
        get { lock.withLock { anchor } }
        set { lock.withLock { anchor = newValue } }
    }

    func run() -> HKAnchoredObjectQuery {
        // Create the step count type.
        guard let stepCountType = HKObjectType.quantityType(forIdentifier: .stepCount) else {
            // This should never fail when using a defined constant.
            fatalError("*** Unable to get the step count type ***")
        }

        // Create the query.
        let query = HKAnchoredObjectQuery(
            type: stepCountType,
            predicate: nil,
            anchor: myAnchor,
            limit: HKObjectQueryNoLimit
        ) { (query, samplesOrNil, deletedObjectsOrNil, newAnchor, errorOrNil) in

            guard let samples = samplesOrNil, let deletedObjects = deletedObjectsOrNil else {
                // Properly handle the error.
                fatalError("*** An error occurred during the initial query: \(errorOrNil!.localizedDescription) ***")
            }

            self.myAnchor = newAnchor

            for stepCountSample in samples {
                // Process the new step count samples here.
                self.record(added: stepCountSample.uuid)
            }

            for deletedStepCountSamples in deletedObjects {
                // Process the deleted step count samples here.
                self.record(deleted: deletedStepCountSamples.uuid)
            }
        }

        // Optionally, add an update handler.
        query.updateHandler = { (query, samplesOrNil, deletedObjectsOrNil, newAnchor, errorOrNil) in

            guard let samples = samplesOrNil, let deletedObjects = deletedObjectsOrNil else {
                // Properly handle the error.
                fatalError("*** An error occurred during an update: \(errorOrNil!.localizedDescription) ***")
            }

            self.myAnchor = newAnchor

            for stepCountSample in samples {
                // Process the step counts from the update here.
                self.record(added: stepCountSample.uuid)
            }

            for deletedStepCountSamples in deletedObjects {
                // Process the deleted step count samples from the update here.
                self.record(deleted: deletedStepCountSamples.uuid)
            }
        }

        // Run the query.
        store.execute(query)
        return query
    }

    private func record(added uuid: UUID) { lock.withLock { added.append(uuid) } }
    private func record(deleted uuid: UUID) { lock.withLock { deleted.append(uuid) } }
    var processed: (added: [UUID], deleted: [UUID]) { lock.withLock { (added, deleted) } }
}

@Suite(.timeLimit(.minutes(1))) struct ExecutingAnchoredObjectQueriesTests {
    func steps(_ rig: ArticleRig, _ count: Double, at offset: TimeInterval) -> HKQuantitySample {
        HKQuantitySample(
            type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: count),
            start: rig.date(offset), end: rig.date(offset + 600))
    }

    /// The snapshot, then a save and a deletion through the update handler; a second run from the kept anchor sees
    /// only what changed after it.
    @Test func snapshotUpdatesAndTheKeptAnchor() async throws {
        let rig = ArticleRig()
        let type = HKQuantityType(.stepCount)
        try await rig.store.requestAuthorization(toShare: [type], read: [type])
        let morning = steps(rig, 1200, at: 0)
        try await rig.store.save(morning)

        let app = ExecutingAnchoredObjectQueries(store: rig.store)
        let query = app.run()
        await eventually("the snapshot") { app.processed.added == [morning.uuid] }
        let noon = steps(rig, 800, at: 3600)
        try await rig.store.save(noon)
        try await rig.store.delete(morning)
        await eventually("the updates") { app.processed.added.count == 2 && app.processed.deleted == [morning.uuid] }
        #expect(app.processed.added == [morning.uuid, noon.uuid])
        rig.store.stop(query)

        // The next launch runs the query from the anchor it kept: only the evening's steps are new.
        let evening = steps(rig, 300, at: 7200)
        try await rig.store.save(evening)
        let relaunched = ExecutingAnchoredObjectQueries(store: rig.store)
        relaunched.myAnchor = app.myAnchor
        let second = relaunched.run()
        await eventually("the new snapshot") { relaunched.processed.added == [evening.uuid] }
        #expect(relaunched.processed.deleted.isEmpty)
        rig.store.stop(second)
    }
}
