// Apple's article "Executing Observer Queries":
// https://developer.apple.com/documentation/healthkit/executing-observer-queries
//
// Its listings that create and run the query. Changed for Linux: `import HealthKit` is `import OpenHealthKit`.
// Changed for the test: the app's update ("Take whatever steps are necessary…") counts the calls for the test;
// `_ = error` uses the listing's unhandled error binding, which the build (no warnings allowed) would flag.
import OpenHealthKit
import Testing

enum ExecutingObserverQueries {
    static func observeSteps(store: HKHealthStore, updated: @escaping @Sendable () -> Void) -> HKObserverQuery {
        guard let stepCountType = HKObjectType.quantityType(forIdentifier: .stepCount) else {
            // This should never fail when using a defined constant.
            fatalError("*** Unable to get the step count type ***")
        }

        let query = HKObserverQuery(sampleType: stepCountType, predicate: nil) {
            (query, completionHandler, errorOrNil) in

            if let error = errorOrNil {
                // Properly handle the error.
                _ = error
                return
            }

            // Take whatever steps are necessary to update your app.
            // This often involves executing other queries to access the new data.
            updated()

            // If you have subscribed for background updates you must call the completion handler here.
            completionHandler()
        }

        store.execute(query)
        return query
    }
}

@Suite(.timeLimit(.minutes(1))) struct ExecutingObserverQueriesTests {
    /// The query calls its handler once when it starts, then once for each save of steps, and not after it stops.
    @Test func theHandlerRunsOnStartAndOnEachSave() async throws {
        let rig = ArticleRig()
        let steps = HKQuantityType(.stepCount)
        try await rig.store.requestAuthorization(toShare: [steps], read: [steps])
        let calls = Box(0)
        let query = ExecutingObserverQueries.observeSteps(store: rig.store) { calls.value += 1 }
        await eventually("the first call") { calls.value == 1 }
        try await rig.store.save(
            HKQuantitySample(
                type: steps, quantity: HKQuantity(unit: .count(), doubleValue: 500), start: rig.date(0),
                end: rig.date(600)))
        await eventually("the call for the save") { calls.value == 2 }
        rig.store.stop(query)
    }
}
