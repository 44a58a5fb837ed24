// Apple's article "Executing Statistical Queries":
// https://developer.apple.com/documentation/healthkit/executing-statistical-queries
//
// Its listings in order, in one function with the store passed in. Changed for Linux: `import HealthKit` is
// `import OpenHealthKit`. Changed for the test: `Date()` is the test's date (`now`), and the handler hands its total
// to the test through `report`; the `DispatchQueue.main.async` UI update is kept with its empty body.
import OpenHealthKit
import Testing

enum ExecutingStatisticalQueries {
    static func totalEnergyConsumedToday(
        store: HKHealthStore, now: Date, report: @escaping @Sendable (Double?) -> Void
    ) -> HKStatisticsQuery {
        guard
            let energyConsumed = HKSampleType.quantityType(
                forIdentifier: HKQuantityTypeIdentifier.dietaryEnergyConsumed)
        else {
            // This should never fail when using a defined constant.
            fatalError("*** Unable to get the dietary energy consumed type ***")
        }

        let calendar = NSCalendar.current
        let components = calendar.dateComponents([.year, .month, .day], from: now)

        guard let startDate = calendar.date(from: components) else {
            fatalError("*** Unable to create the start date ***")
        }

        guard let endDate = calendar.date(byAdding: .day, value: 1, to: startDate) else {
            fatalError("*** Unable to create the end date ***")
        }

        let today = HKQuery.predicateForSamples(withStart: startDate, end: endDate, options: [])

        let query = HKStatisticsQuery(
            quantityType: energyConsumed, quantitySamplePredicate: today, options: .cumulativeSum
        ) { (query, statisticsOrNil, errorOrNil) in

            guard let statistics = statisticsOrNil else {
                // Handle any errors here.
                report(nil)
                return
            }

            let sum = statistics.sumQuantity()
            let totalCaloriesConsumed = sum?.doubleValue(for: HKUnit.largeCalorie())

            // Update your app here.
            report(totalCaloriesConsumed)

            // The results come back on an anonymous background queue.
            // Dispatch to the main queue before modifying the UI.

            DispatchQueue.main.async {
                // Update the UI here.
            }
        }

        store.execute(query)
        return query
    }
}

@Suite(.timeLimit(.minutes(1))) struct ExecutingStatisticalQueriesTests {
    /// Three meals today and one yesterday: the article's query sums today's, in kilocalories.
    @Test func sumsTodaysEnergyConsumed() async throws {
        let rig = ArticleRig()
        let type = HKQuantityType(.dietaryEnergyConsumed)
        try await rig.store.requestAuthorization(toShare: [type], read: [type])
        let calendar = Calendar.current
        let morning = calendar.startOfDay(for: rig.date(0)) + 8 * 3600
        func meal(_ kilocalories: Double, at date: Date) -> HKQuantitySample {
            HKQuantitySample(
                type: type, quantity: HKQuantity(unit: .kilocalorie(), doubleValue: kilocalories), start: date,
                end: date + 900)
        }
        try await rig.store.save([
            meal(450, at: morning), meal(700, at: morning + 4 * 3600), meal(850, at: morning + 10 * 3600),
            meal(2000, at: morning - 86_400),
        ])

        let total = Box<Double??>(nil)
        _ = ExecutingStatisticalQueries.totalEnergyConsumedToday(store: rig.store, now: morning + 3600) {
            total.value = .some($0)
        }
        await eventually("the statistics handler") { total.value != nil }
        #expect(total.value == .some(2000))
    }
}
