import Foundation
import HealthKitModel
import WorkoutEngine

/// Computes statistics with `async`/`await`. HealthKit: HKStatisticsQueryDescriptor.
///
/// ```swift
/// let descriptor = HKStatisticsQueryDescriptor(predicate: .quantitySample(type: HKQuantityType(.heartRate)),
///                                              options: .discreteAverage)
/// let average = try await descriptor.result(for: store)?.averageQuantity()
/// ```
public struct HKStatisticsQueryDescriptor: HKAsyncQuery, Sendable {
    public var predicate: HKSamplePredicate<HKQuantitySample>
    public var options: HKStatisticsOptions

    public init(predicate: HKSamplePredicate<HKQuantitySample>, options: HKStatisticsOptions) {
        self.predicate = predicate
        self.options = options
    }

    /// The statistics, or nil when no sample matches. HealthKit: HKStatisticsQueryDescriptor.result(for:).
    public func result(for healthStore: HKHealthStore) async throws -> HKStatistics? {
        guard let type = predicate.sampleType as? HKQuantityType else {
            preconditionFailure("OpenHealthKit: HKStatisticsQueryDescriptor needs a quantity type.")
        }
        options.check(for: type, function: "HKStatisticsQueryDescriptor")
        let request = UncheckedBox((predicate.nsPredicate, options))
        return try await healthStore.computeStatistics(type: type, predicate: request.value.0, options: request.value.1)
    }
}

/// Computes statistics per interval with `async`/`await`; ``results(for:)`` keeps reporting updates.
/// HealthKit: HKStatisticsCollectionQueryDescriptor.
public struct HKStatisticsCollectionQueryDescriptor: HKAsyncQuery, Sendable {
    public var predicate: HKSamplePredicate<HKQuantitySample>
    public var options: HKStatisticsOptions
    public var anchorDate: Date
    public var intervalComponents: DateComponents

    public init(
        predicate: HKSamplePredicate<HKQuantitySample>, options: HKStatisticsOptions, anchorDate: Date,
        intervalComponents: DateComponents
    ) {
        self.predicate = predicate
        self.options = options
        self.anchorDate = anchorDate
        self.intervalComponents = intervalComponents
    }

    /// One delivery of a running collection query. HealthKit: HKStatisticsCollectionQueryDescriptor.Result.
    public struct Result: Sendable {
        public let statisticsCollection: HKStatisticsCollection
        /// The statistics that changed (nil for the first result).
        public let updatedStatistics: [HKStatistics]?
    }

    private var quantityType: HKQuantityType {
        guard let type = predicate.sampleType as? HKQuantityType else {
            preconditionFailure("OpenHealthKit: HKStatisticsCollectionQueryDescriptor needs a quantity type.")
        }
        return type
    }

    /// A snapshot of the collection. HealthKit: HKStatisticsCollectionQueryDescriptor.result(for:).
    public func result(for healthStore: HKHealthStore) async throws -> HKStatisticsCollection {
        let type = quantityType
        options.check(for: type, function: "HKStatisticsCollectionQueryDescriptor")
        let request = UncheckedBox(
            (predicate.nsPredicate, options, DateTiling(anchor: anchorDate, components: intervalComponents)))
        return try await healthStore.computeCollection(
            type: type, predicate: request.value.0, options: request.value.1,
            tiling: request.value.2)
    }

    /// The collection now, then again after every change, until the consuming task is cancelled.
    /// HealthKit: HKStatisticsCollectionQueryDescriptor.results(for:).
    public func results(for healthStore: HKHealthStore) -> Results {
        let query = HKStatisticsCollectionQuery(
            quantityType: quantityType, quantitySamplePredicate: predicate.nsPredicate,
            options: options, anchorDate: anchorDate,
            intervalComponents: intervalComponents)
        return Results(
            stream: QueryResults.running(on: healthStore) { continuation in
                query.initialResultsHandler = { _, collection, error in
                    if let collection {
                        continuation.yield(Result(statisticsCollection: collection, updatedStatistics: nil))
                    }
                    if let error { continuation.finish(throwing: error) }
                }
                query.statisticsUpdateHandler = { _, statistics, collection, error in
                    if let collection {
                        continuation.yield(
                            Result(statisticsCollection: collection, updatedStatistics: statistics.map { [$0] }))
                    }
                    if let error { continuation.finish(throwing: error) }
                }
                return query
            })
    }

    /// The results of a running collection query. HealthKit: HKStatisticsCollectionQueryDescriptor.Results.
    public struct Results: AsyncSequence, Sendable {
        public typealias Element = Result
        let stream: AsyncThrowingStream<Result, any Error>

        public func makeAsyncIterator() -> QueryResultsIterator<Result> {

            QueryResultsIterator(base: stream.makeAsyncIterator())

        }
    }
}
