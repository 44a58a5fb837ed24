// Apple's article "Executing Sample Queries":
// https://developer.apple.com/documentation/healthkit/executing-sample-queries
//
// Its first listings (a sample query for every dietary-energy sample, run on the store), then the query its "Filter
// and Sort Results" section describes, written following the article's calls: today's samples, newest first. Changed for Linux: `import HealthKit` is `import OpenHealthKit`. Changed for the
// test: "Process each sample here" collects the samples and hands them to the test through `report`; `Date()` is the
// test's date, `now`. The `DispatchQueue.main.async` UI update is kept with its empty body.
import OpenHealthKit
import Testing

enum ExecutingSampleQueries {
    static func allEnergyConsumed(
        store: HKHealthStore, report: @escaping @Sendable ([HKQuantitySample]) -> Void
    ) {
        guard let sampleType = HKSampleType.quantityType(forIdentifier: HKQuantityTypeIdentifier.dietaryEnergyConsumed)
        else {
            fatalError("*** This method should never fail ***")
        }

        let query = HKSampleQuery(
            sampleType: sampleType, predicate: nil, limit: Int(HKObjectQueryNoLimit), sortDescriptors: nil
        ) {
            query, results, error in

            guard let samples = results as? [HKQuantitySample] else {
                // Handle any errors here.
                return
            }

            var processed: [HKQuantitySample] = []
            for sample in samples {
                // Process each sample here.
                processed.append(sample)
            }
            report(processed)

            // The results come back on an anonymous background queue.
            // Dispatch to the main queue before modifying the UI.
            DispatchQueue.main.async {
                // Update the UI here.
            }
        }

        store.execute(query)
    }

    static func todaysEnergyConsumedNewestFirst(
        store: HKHealthStore, now: Date, report: @escaping @Sendable ([HKQuantitySample]) -> Void
    ) {
        guard let sampleType = HKSampleType.quantityType(forIdentifier: HKQuantityTypeIdentifier.dietaryEnergyConsumed)
        else {
            fatalError("*** This method should never fail ***")
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
        let sortByDate = NSSortDescriptor(key: HKSampleSortIdentifierEndDate, ascending: false)

        let query = HKSampleQuery(
            sampleType: sampleType, predicate: today, limit: Int(HKObjectQueryNoLimit),
            sortDescriptors: [sortByDate]
        ) {
            query, results, error in

            guard let samples = results as? [HKQuantitySample] else {
                // Handle any errors here.
                return
            }

            report(samples)
        }

        store.execute(query)
    }
}

@Suite(.timeLimit(.minutes(1))) struct ExecutingSampleQueriesTests {
    @Test func everySampleThenTodaysNewestFirst() async throws {
        let rig = ArticleRig()
        let type = HKQuantityType(.dietaryEnergyConsumed)
        try await rig.store.requestAuthorization(toShare: [type], read: [type])
        let morning = Calendar.current.startOfDay(for: rig.date(0)) + 7 * 3600
        let meals = [morning - 86_400, morning, morning + 5 * 3600].enumerated().map { index, start in
            HKQuantitySample(
                type: type, quantity: HKQuantity(unit: .kilocalorie(), doubleValue: Double(300 + 100 * index)),
                start: start, end: start + 1200)
        }
        try await rig.store.save(meals)

        let all = Box<[HKQuantitySample]?>(nil)
        ExecutingSampleQueries.allEnergyConsumed(store: rig.store) { all.value = $0 }
        await eventually("every sample") { all.value != nil }
        #expect(Set(all.value?.map(\.uuid) ?? []) == Set(meals.map(\.uuid)))

        let today = Box<[HKQuantitySample]?>(nil)
        ExecutingSampleQueries.todaysEnergyConsumedNewestFirst(store: rig.store, now: morning + 3600) {
            today.value = $0
        }
        await eventually("today's samples") { today.value != nil }
        #expect(today.value?.map(\.uuid) == [meals[2].uuid, meals[1].uuid])
    }
}
