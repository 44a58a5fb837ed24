// Apple's article "Running Queries with Swift Concurrency":
// https://developer.apple.com/documentation/healthkit/running-queries-with-swift-concurrency
//
// Its listings in order, in a type holding what the article keeps in the app (`myAnchor`, `myUpdateTask`, `log`).
// Changed for Linux: `import HealthKit` is `import OpenHealthKit`. Changed for the test: `Date()` is the test's date
// (`now`), and the store is passed in; `_ = workoutType` keeps the listing's unused constant without a warning.
import OpenHealthKit
import Testing

final class RunningQueriesWithSwiftConcurrency: @unchecked Sendable {
    let store: HKHealthStore
    let now: Date
    var myAnchor: HKQueryAnchor?
    var myUpdateTask: Task<Void, any Error>?
    var log = ""
    private let lock = NSLock()

    init(store: HKHealthStore, now: Date) {
        self.store = store
        self.now = now
    }

    func descriptor() -> HKAnchoredObjectQueryDescriptor<HKWorkout> {
        let workoutType = HKWorkoutType.workoutType()
        _ = workoutType

        // Get the date one week ago.
        let calendar = Calendar.current
        var components = calendar.dateComponents([.year, .month, .day], from: now)
        components.day = components.day! - 7
        let oneWeekAgo = calendar.date(from: components)

        // Create a predicate for all samples within the last week.
        let inLastWeek = HKQuery.predicateForSamples(
            withStart: oneWeekAgo,
            end: nil,
            options: [.strictStartDate])

        // Create the query descriptor.
        let anchorDescriptor =
            HKAnchoredObjectQueryDescriptor(
                predicates: [.workout(inLastWeek)],
                anchor: myAnchor)
        return anchorDescriptor
    }

    func readOnce() async throws -> (added: [HKWorkout], deleted: [HKDeletedObject]) {
        let anchorDescriptor = descriptor()

        // Wait for the current results.
        let results = try await anchorDescriptor.result(for: store)

        // Process the results.
        let addedSamples = results.addedSamples
        let deletedSamples = results.deletedObjects

        // Do something with the results here.

        // Update the anchor.
        myAnchor = results.newAnchor
        return (addedSamples, deletedSamples)
    }

    func startUpdates() {
        let anchorDescriptor = descriptor()

        // Start a long-running query to monitor the HealthKit store.
        let updateQueue = anchorDescriptor.results(for: store)

        // Wait for the initial results and each update.
        myUpdateTask = Task {
            for try await results in updateQueue {

                // Process the results.
                let addedSamples = results.addedSamples
                let deletedSamples = results.deletedObjects
                lock.withLock {
                    myAnchor = results.newAnchor

                    log.append("- \(addedSamples.count) new workouts found.\n")
                    log.append("- \(deletedSamples.count) deleted workouts found.\n")
                }
            }
        }
    }

    func stopUpdates() {
        myUpdateTask?.cancel()
        myUpdateTask = nil
    }

    var logged: String { lock.withLock { log } }
}

@Suite(.timeLimit(.minutes(1))) struct RunningQueriesWithSwiftConcurrencyTests {
    /// The one-shot read finds the week's workouts and moves the anchor; the long-running one logs the week's
    /// workouts, then each saved or deleted one, until its task is cancelled.
    @Test func oneShotAndLongRunningAnchoredQueries() async throws {
        let rig = ArticleRig()
        try await rig.store.requestAuthorization(toShare: [.workoutType()], read: [HKObjectType.workoutType()])
        let now = rig.date(30 * 86_400)
        _ = try await rig.saveWorkout(start: now - 20 * 86_400)
        let recent = try await rig.saveWorkout(start: now - 2 * 86_400)

        let app = RunningQueriesWithSwiftConcurrency(store: rig.store, now: now)
        let first = try await app.readOnce()
        #expect(first.added.map(\.uuid) == [recent.uuid] && first.deleted.isEmpty)
        #expect(app.myAnchor != nil)
        // From the new anchor, nothing is new.
        #expect(try await app.readOnce().added.isEmpty)

        let updates = RunningQueriesWithSwiftConcurrency(store: rig.store, now: now)
        updates.startUpdates()
        await eventually("the initial results") { updates.logged.contains("- 1 new workouts found.") }
        _ = try await rig.saveWorkout(start: now - 86_400)
        try await rig.store.delete(recent)
        // The store may deliver the save and the delete as one update or two: count what the log says.
        func total(_ kind: String) -> Int {
            updates.logged.split(separator: "\n").filter { $0.hasSuffix("\(kind) workouts found.") }
                .compactMap { Int($0.split(separator: " ")[1]) }.reduce(0, +)
        }
        await eventually("the updates") { total("new") == 2 && total("deleted") == 1 }
        updates.stopUpdates()
        #expect(updates.logged.hasPrefix("- 1 new workouts found.\n- 0 deleted workouts found.\n"))
        #expect(total("new") == 2 && total("deleted") == 1)
    }
}
