// Apple's article "Accessing condensed workout samples":
// https://developer.apple.com/documentation/healthkit/accessing-condensed-workout-samples
//
// Its three listings in order, in a type holding what the article leaves to the app (`myStore`, `myHeartRateType`,
// `myOutput`, `myGetDetailedItems(for:)`, which runs the third listing). Changed for Linux: `import HealthKit` is
// `import OpenHealthKit`. Changed for the test: the two listings that both declare `heartRateQuery` are two functions;
// the handlers' results reach the test through `myOutput` and `finished`.
import OpenHealthKit
import Testing

final class AccessingCondensedWorkoutSamples: @unchecked Sendable {
    let myStore: HKHealthStore
    let myHeartRateType = HKQuantityType(.heartRate)
    private let lock = NSLock()
    private var output: [String] = []
    private var seriesRead = 0
    private var seriesFound = 0

    init(store: HKHealthStore) { myStore = store }

    var myOutput: [String] {
        get { lock.withLock { output } }
        set { lock.withLock { output = newValue } }
    }
    /// Whether every series found has been read to its end.
    var finished: Bool { lock.withLock { seriesFound == seriesRead } }

    /// The first listing: a query for the samples of a workout.
    func runFirstListing(workout: HKWorkout) {
        // Create the workout predicate.
        let forWorkout = HKQuery.predicateForObjects(from: workout)

        // Create the heart-rate descriptor.
        let heartRateDescriptor = HKQueryDescriptor(
            sampleType: myHeartRateType,
            predicate: forWorkout)

        // Create the query.
        let heartRateQuery = HKSampleQuery(
            queryDescriptors: [heartRateDescriptor],
            limit: HKObjectQueryNoLimit
        ) { query, samples, error in
            // Process the samples.
        }

        // Run  the query.
        myStore.execute(heartRateQuery)
    }

    /// The second listing: the same query, whose handler reads a series sample's quantities.
    func runSecondListing(workout: HKWorkout) {
        let forWorkout = HKQuery.predicateForObjects(from: workout)
        let heartRateDescriptor = HKQueryDescriptor(sampleType: myHeartRateType, predicate: forWorkout)
        lock.withLock { seriesFound = -1 }

        // Create the query.
        let heartRateQuery = HKSampleQuery(
            queryDescriptors: [heartRateDescriptor],
            limit: HKObjectQueryNoLimit
        ) { query, samples, error in

            // Start by checking for errors.
            guard let samples = samples else {
                // Handle the error.
                fatalError("*** An error occurred: \(error!.localizedDescription) ***")
            }

            var series = 0
            // Iterate over all the samples.
            for sample in samples {

                guard let sample = sample as? HKDiscreteQuantitySample else {
                    fatalError("*** Unexpected Sample Type ***")
                }

                // Check to see if the sample is a series.
                if sample.count == 1 {
                    // This is a single sample.
                    // Use the sample.
                    self.myOutput.append("\(sample)\n")
                } else {
                    // This is a series.
                    // Get the detailed items for the series.
                    series += 1
                    self.myGetDetailedItems(for: sample)
                }
            }
            self.lock.withLock { self.seriesFound = series }
        }

        myStore.execute(heartRateQuery)
    }

    /// The third listing.
    func myGetDetailedItems(for series: HKDiscreteQuantitySample) {
        // Create the predicate.
        let inSeriesSample = HKQuery.predicateForObject(with: series.uuid)

        // Create the query.
        let detailQuery = HKQuantitySeriesSampleQuery(
            quantityType: myHeartRateType,
            predicate: inSeriesSample
        ) { query, quantity, dateInterval, HKSample, done, error in

            guard let quantity = quantity, let dateInterval = dateInterval else {
                fatalError("*** An error occurred: \(error!.localizedDescription) ***")
            }

            // Use the data.
            self.myOutput.append("\(quantity.doubleValue(for: HKUnit(from: "count/min"))): \(dateInterval)")
            if done { self.lock.withLock { self.seriesRead += 1 } }  // Ours: the test waits for this.
        }

        // Run the query.
        myStore.execute(detailQuery)
    }
}

@Suite(.timeLimit(.minutes(1))) struct AccessingCondensedWorkoutSamplesTests {
    /// A ten-minute workout's 600 heart-rate readings, condensed into series samples: the article's code finds the
    /// series (count above 1) and reads back every reading, value and time.
    @Test func readsEveryQuantityOfACondensedWorkout() async throws {
        let rig = ArticleRig()
        try await rig.store.authorizeWorkoutTypes()
        let builder = HKWorkoutBuilder(healthStore: rig.store, configuration: HKWorkoutConfiguration(), device: nil)
        try await builder.beginCollection(at: rig.date(0))
        let bpm = HKUnit(from: "count/min")
        let readings: [HKQuantitySample] = (0 ..< 600).map { (second: Int) -> HKQuantitySample in
            let value = HKQuantity(unit: bpm, doubleValue: Double(100 + second % 60))
            let at = rig.date(Double(second))
            return HKQuantitySample(type: HKQuantityType(.heartRate), quantity: value, start: at, end: at)
        }
        try await builder.addSamples(readings)
        try await builder.endCollection(at: rig.date(600))
        let workout = try #require(try await builder.finishWorkout())
        let report = try await rig.store.condenseWorkout(workout)
        #expect(report.quantitiesStored == 600)

        let app = AccessingCondensedWorkoutSamples(store: rig.store)
        app.runFirstListing(workout: workout)
        app.runSecondListing(workout: workout)
        await eventually("every series read") { app.finished }
        let values: [Double?] = app.myOutput.map { (line: String) -> Double? in Double(line.prefix { $0 != ":" }) }
        #expect(values.count == 600)
        let expected: [Double?] = readings.map { $0.quantity.doubleValue(for: bpm) }
        #expect(values == expected)
    }
}
