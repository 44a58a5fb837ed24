// Apple's article "Executing Statistics Collection Queries":
// https://developer.apple.com/documentation/healthkit/executing-statistics-collection-queries
//
// Its listings in order, in one function with the store passed in. Changed for Linux: `import HealthKit` is
// `import OpenHealthKit`. Changed for the test: `Date()` is the test's date (`now`); `MyWeeklyData` and
// `myUpdateGraph`, which the article leaves to the app, are written here (the graph hands the weeks to the test);
// the `...` that joins the two halves of the results handler is the handler's own body; `var components`, never
// changed, is `let` (the build allows no warnings).
import OpenHealthKit
import Testing

/// The app's weekly step counts (the article's `MyWeeklyData`).
struct MyWeeklyData: Sendable {
    var weeks: [(date: Date, stepCount: Int)] = []
    mutating func addWeek(date: Date, stepCount: Int) { weeks.append((date, stepCount)) }
}

enum ExecutingStatisticsCollectionQueries {
    static func weeklySteps(
        healthStore: HKHealthStore, now: Date, myUpdateGraph: @escaping @Sendable (MyWeeklyData) -> Void
    ) -> HKStatisticsCollectionQuery {
        let calendar = Calendar.current

        // Create a 1-week interval.
        let interval = DateComponents(day: 7)

        // Set the anchor for 3 a.m. on Monday.
        let components = DateComponents(
            calendar: calendar,
            timeZone: calendar.timeZone,
            hour: 3,
            minute: 0,
            second: 0,
            weekday: 2)

        guard
            let anchorDate = calendar.nextDate(
                after: now,
                matching: components,
                matchingPolicy: .nextTime,
                repeatedTimePolicy: .first,
                direction: .backward)
        else {
            fatalError("*** unable to find the previous Monday. ***")
        }

        guard let quantityType = HKObjectType.quantityType(forIdentifier: .stepCount) else {
            fatalError("*** Unable to create a step count type ***")
        }

        // Create the query.
        let query = HKStatisticsCollectionQuery(
            quantityType: quantityType,
            quantitySamplePredicate: nil,
            options: .cumulativeSum,
            anchorDate: anchorDate,
            intervalComponents: interval)

        // Set the results handler.
        query.initialResultsHandler = {
            query, results, error in

            // Handle errors here.
            if let error = error as? HKError {
                switch error.code {
                case .errorDatabaseInaccessible:
                    // HealthKit couldn't access the database because the device is locked.
                    return
                default:
                    // Handle other HealthKit errors here.
                    return
                }
            }

            guard let statsCollection = results else {
                // You should only hit this case if you have an unhandled error. Check for bugs
                // in your code that creates the query, or explicitly handle the error.
                assertionFailure("")
                return
            }

            let endDate = now
            let threeMonthsAgo = DateComponents(month: -3)

            guard let startDate = calendar.date(byAdding: threeMonthsAgo, to: endDate) else {
                fatalError("*** Unable to calculate the start date ***")
            }

            // Plot the weekly step counts over the past 3 months.
            var weeklyData = MyWeeklyData()

            // Enumerate over all the statistics objects between the start and end dates.
            statsCollection.enumerateStatistics(from: startDate, to: endDate) { (statistics, stop) in
                if let quantity = statistics.sumQuantity() {
                    let date = statistics.startDate
                    let value = quantity.doubleValue(for: .count())

                    // Extract each week's data.
                    weeklyData.addWeek(date: date, stepCount: Int(value))
                }
            }

            // Dispatch to the main queue to update the UI.
            // (Here: straight to the test, whose main queue runs no loop.)
            myUpdateGraph(weeklyData)
        }

        healthStore.execute(query)
        return query
    }
}

@Suite(.timeLimit(.minutes(1))) struct ExecutingStatisticsCollectionQueriesTests {
    /// Walks on three days of two weeks and one four months ago: the article's query gives one sum per Monday-3-a.m.
    /// week of the last three months, skipping weeks without steps.
    @Test func weeklyStepCountsOfTheLastThreeMonths() async throws {
        let rig = ArticleRig()
        let steps = HKQuantityType(.stepCount)
        try await rig.store.requestAuthorization(toShare: [steps], read: [steps])
        let calendar = Calendar.current
        // A Wednesday noon, and the Monday 3 a.m. that starts its week.
        let wednesday = try #require(
            calendar.nextDate(
                after: rig.date(0), matching: DateComponents(hour: 12, minute: 0, second: 0, weekday: 4),
                matchingPolicy: .nextTime))
        let monday = try #require(
            calendar.nextDate(
                after: wednesday, matching: DateComponents(hour: 3, minute: 0, second: 0, weekday: 2),
                matchingPolicy: .nextTime, direction: .backward))
        func walk(_ count: Double, daysBefore days: Int) throws -> HKQuantitySample {
            let start = try #require(calendar.date(byAdding: .day, value: -days, to: wednesday))
            return HKQuantitySample(
                type: steps, quantity: HKQuantity(unit: .count(), doubleValue: count), start: start, end: start + 1800)
        }
        try await rig.store.save([
            try walk(3000, daysBefore: 0), try walk(2000, daysBefore: 1), try walk(4000, daysBefore: 7),
            try walk(9999, daysBefore: 120),
        ])

        let graph = Box<MyWeeklyData?>(nil)
        let query = ExecutingStatisticsCollectionQueries.weeklySteps(
            healthStore: rig.store, now: wednesday + 3600
        ) { graph.value = $0 }
        await eventually("the graph update") { graph.value != nil }
        rig.store.stop(query)
        let weeks = try #require(graph.value).weeks
        let lastWeek = try #require(calendar.date(byAdding: .day, value: -7, to: monday))
        #expect(weeks.map(\.date) == [lastWeek, monday])
        #expect(weeks.map(\.stepCount) == [4000, 5000])
    }
}
