import Foundation
import HealthKitModel
import WorkoutEngine

/// A query that runs with `async`/`await`. HealthKit: HKAsyncQuery.
public protocol HKAsyncQuery {
    associatedtype Output
    func result(for healthStore: HKHealthStore) async throws -> Output
}

/// A query whose results arrive as an `AsyncSequence`: long-running queries (anchored objects, statistics
/// collections, activity summaries, effort relationships) and series read point by point (quantity series, routes,
/// heartbeats). HealthKit: HKAsyncSequenceQuery.
public protocol HKAsyncSequenceQuery {
    associatedtype Sequence: AsyncSequence
    func results(for healthStore: HKHealthStore) -> Sequence
}

/// A sample type and predicate, typed by the sample class the query returns. HealthKit: HKSamplePredicate.
public struct HKSamplePredicate<Sample: HKSample>: Sendable {
    public let sampleType: HKSampleType
    // HealthKit declares this type Sendable with an NSPredicate in it; an NSPredicate is immutable once made, but
    // Foundation on Linux does not mark it Sendable.
    nonisolated(unsafe) public let nsPredicate: NSPredicate?

    init(sampleType: HKSampleType, predicate: NSPredicate?) {
        self.sampleType = sampleType
        self.nsPredicate = predicate
    }

    var descriptor: HKQueryDescriptor { HKQueryDescriptor(sampleType: sampleType, predicate: nsPredicate) }
}

extension HKSamplePredicate where Sample == HKWorkout {
    /// Workouts matching an optional predicate.
    public static func workout(_ predicate: NSPredicate? = nil) -> HKSamplePredicate<HKWorkout> {
        HKSamplePredicate(sampleType: HKWorkoutType.shared, predicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKQuantitySample {
    /// Quantity samples of a type matching an optional predicate.
    public static func quantitySample(
        type: HKQuantityType, predicate: NSPredicate? = nil
    ) -> HKSamplePredicate<HKQuantitySample> {
        HKSamplePredicate(sampleType: type, predicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKCategorySample {
    /// Category samples of a type matching an optional predicate. HealthKit: HKSamplePredicate.categorySample(type:predicate:).
    public static func categorySample(
        type: HKCategoryType, predicate: NSPredicate? = nil
    ) -> HKSamplePredicate<HKCategorySample> {
        HKSamplePredicate(sampleType: type, predicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKWorkoutRoute {
    /// Workout routes matching an optional predicate. HealthKit: HKSamplePredicate.workoutRoute(_:).
    public static func workoutRoute(_ predicate: NSPredicate? = nil) -> HKSamplePredicate<HKWorkoutRoute> {
        HKSamplePredicate(sampleType: HKSeriesType.workoutRoute(), predicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKHeartbeatSeriesSample {
    /// Heartbeat series matching an optional predicate. HealthKit: HKSamplePredicate.heartbeatSeries(_:).
    public static func heartbeatSeries(_ predicate: NSPredicate? = nil) -> HKSamplePredicate<HKHeartbeatSeriesSample> {
        HKSamplePredicate(sampleType: HKSeriesType.heartbeat(), predicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKCorrelation {
    /// Correlations of a type matching an optional predicate, each with the samples it holds that the client may
    /// read. HealthKit: HKSamplePredicate.correlation(type:predicate:).
    public static func correlation(
        type correlationType: HKCorrelationType, predicate: NSPredicate? = nil
    ) -> HKSamplePredicate<HKCorrelation> {
        HKSamplePredicate(sampleType: correlationType, predicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKSample {
    /// Samples of any type matching an optional predicate.
    public static func sample(type: HKSampleType, predicate: NSPredicate? = nil) -> HKSamplePredicate<HKSample> {
        HKSamplePredicate(sampleType: type, predicate: predicate)
    }
}

/// Reads samples with `async`/`await`. HealthKit: HKSampleQueryDescriptor.
///
/// ```swift
/// let descriptor = HKSampleQueryDescriptor(predicates: [.workout()],
///                                          sortDescriptors: [SortDescriptor(\.endDate, order: .reverse)],
///                                          limit: 10)
/// let workouts = try await descriptor.result(for: store)
/// ```
public struct HKSampleQueryDescriptor<Sample: HKSample>: HKAsyncQuery, Sendable {
    public var predicates: [HKSamplePredicate<Sample>]
    public var sortDescriptors: [SortDescriptor<Sample>]
    public var limit: Int?

    public init(predicates: [HKSamplePredicate<Sample>], sortDescriptors: [SortDescriptor<Sample>], limit: Int? = nil) {
        self.predicates = predicates
        self.sortDescriptors = sortDescriptors
        self.limit = limit
    }

    public func result(for healthStore: HKHealthStore) async throws -> [Sample] {
        let box = UncheckedBox((predicates.map(\.descriptor), sortDescriptors.map(SampleSort.init), limit ?? 0))
        let samples = try await healthStore.fetchSamples(box.value.0, limit: box.value.2, sorts: box.value.1)
        return samples.compactMap { $0 as? Sample }
    }
}

/// Reads what changed since an anchor with `async`/`await`. HealthKit: HKAnchoredObjectQueryDescriptor.
public struct HKAnchoredObjectQueryDescriptor<Sample: HKSample>: HKAsyncQuery, Sendable {
    /// What changed: samples added, objects deleted, and the anchor to continue from.
    public struct Result: Sendable {
        public let addedSamples: [Sample]
        public let deletedObjects: [HKDeletedObject]
        public let newAnchor: HKQueryAnchor
    }

    public var predicates: [HKSamplePredicate<Sample>]
    public var anchor: HKQueryAnchor?
    public var limit: Int?

    public init(predicates: [HKSamplePredicate<Sample>], anchor: HKQueryAnchor?, limit: Int? = nil) {
        self.predicates = predicates
        self.anchor = anchor
        self.limit = limit
    }

    public func result(for healthStore: HKHealthStore) async throws -> Result {
        let box = UncheckedBox((predicates.map(\.descriptor), anchor?.value ?? 0, limit ?? 0))
        let changes = try await healthStore.fetchChanges(box.value.0, after: box.value.1, limit: box.value.2)
        return Result(
            addedSamples: changes.samples.compactMap { $0 as? Sample }, deletedObjects: changes.deleted,
            newAnchor: HKQueryAnchor(value: changes.anchor))
    }
}
