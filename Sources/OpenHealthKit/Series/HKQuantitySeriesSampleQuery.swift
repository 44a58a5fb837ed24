import Foundation
import HealthKitModel
import WorkoutEngine

/// Reads the individual quantities of samples: every quantity of a series, or the one quantity of an ordinary
/// sample.
///
/// The handler is called once per quantity (in quantity start order, or grouped by sample in sample start order
/// with ``orderByQuantitySampleStartDate``), `done` true with the last one, as HealthKit does (Apple's article
/// "Accessing condensed workout samples" unwraps the quantity of every call); with no quantities, once with `done`
/// true and none. A predicate naming sample
/// UUIDs (`predicateForObject(with:)`) that are not in the store, or not readable, fails with `errorNoData`.
///
/// HealthKit: HKQuantitySeriesSampleQuery.
public final class HKQuantitySeriesSampleQuery: HKQuery, @unchecked Sendable {
    public typealias QuantityHandler =
        @Sendable (
            HKQuantitySeriesSampleQuery, HKQuantity?, DateInterval?, HKQuantitySample?,
            Bool, (any Error)?
        ) -> Void

    /// Whether the handler receives the sample owning each quantity. HealthKit: includeSample.
    public var includeSample = false
    /// Whether quantities are grouped by owning sample, samples in start order. HealthKit: orderByQuantitySampleStartDate.
    public var orderByQuantitySampleStartDate = false
    private let handler: QuantityHandler

    public init(quantityType: HKQuantityType, predicate: NSPredicate?, quantityHandler: @escaping QuantityHandler) {
        handler = quantityHandler
        super.init(
            objectType: quantityType, predicate: predicate,
            descriptors: [HKQueryDescriptor(sampleType: quantityType, predicate: predicate)])
    }

    /// The quantities of one sample, each with its start date. HealthKit: init(sample:quantityHandler:) (deprecated).
    @available(*, deprecated, message: "Use init(quantityType:predicate:quantityHandler:)")
    public convenience init(
        sample quantitySample: HKQuantitySample,
        quantityHandler:
            @escaping @Sendable (HKQuantitySeriesSampleQuery, HKQuantity?, Date?, Bool, (any Error)?) -> Void
    ) {
        self.init(
            quantityType: quantitySample.quantityType, predicate: HKQuery.predicateForObject(with: quantitySample.uuid)
        ) {
            query, quantity, interval, _, done, error in
            quantityHandler(query, quantity, interval?.start, done, error)
        }
        orderByQuantitySampleStartDate = true
    }

    override func run(in store: HKHealthStore) {
        let (descriptor, grouped) = (descriptors[0], orderByQuantitySampleStartDate)
        store.complete(
            { try await store.seriesQuantities(descriptor, grouped: grouped) },
            { [self] result in
                store.finished(self)
                switch result {
                case .success(let entries):
                    let include = includeSample
                    let last = entries.count - 1
                    for (index, entry) in entries.enumerated() {
                        handler(
                            self, entry.quantity, entry.interval, include ? entry.sample : nil, index == last, nil)
                    }
                    if last < 0 { handler(self, nil, nil, nil, true, nil) }
                case .failure(let error):
                    handler(self, nil, nil, nil, true, error)
                }
            })
    }
}

/// One quantity of a series query, with the sample that owns it.
struct SeriesEntry: Sendable {
    var quantity: HKQuantity
    var interval: DateInterval
    var sample: HKQuantitySample
}

extension HKHealthStore {
    /// Every quantity of the matching samples, in quantity start order or grouped by sample.
    func seriesQuantities(_ descriptor: HKQueryDescriptor, grouped: Bool) async throws -> [SeriesEntry] {
        let found = try await backend().seriesSamples(descriptor, client: clientIdentifier)
            .sorted { ($0.sample.startDate, $0.sample.endDate) < ($1.sample.startDate, $1.sample.endDate) }
        let samples = found.map(\.sample)
        if let predicate = descriptor.predicate, case .uuids(let wanted) = PredicateNode(predicate) {
            let found = Set(samples.map(\.uuid))
            if let missing = wanted.first(where: { !found.contains($0) }) {
                throw HKError(.errorNoData, "No quantity sample \(missing) is available to this client.")
            }
        }
        var entries: [SeriesEntry] = []
        for (sample, points) in found {
            let unit = sample.quantityType.storageUnit
            if let points {
                for point in points {
                    entries.append(
                        SeriesEntry(
                            quantity: HKQuantity(unit: unit, doubleValue: point.value),
                            interval: DateInterval(
                                start: Date(storeValue: point.start),
                                end: Date(storeValue: max(point.start, point.end))),
                            sample: sample))
                }
            } else {
                entries.append(
                    SeriesEntry(
                        quantity: sample.quantity,
                        interval: DateInterval(start: sample.startDate, end: sample.endDate),
                        sample: sample))
            }
        }
        if !grouped {
            // A stable sort keeps each sample's quantities in order among equal starts.
            entries = entries.enumerated().sorted { a, b in
                a.element.interval.start != b.element.interval.start
                    ? a.element.interval.start < b.element.interval.start : a.offset < b.offset
            }.map(\.element)
        }
        return entries
    }
}

/// Reads the quantities of series with `async`/`await`. HealthKit: HKQuantitySeriesSampleQueryDescriptor.
public struct HKQuantitySeriesSampleQueryDescriptor: Sendable {
    /// HealthKit: HKQuantitySeriesSampleQueryDescriptor.Options.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Include the owning sample with each quantity.
        public static let includeSample = Options(rawValue: 1 << 0)
        /// Group quantities by owning sample, samples in start order.
        public static let orderByQuantitySampleStartDate = Options(rawValue: 1 << 1)
    }

    /// One quantity. HealthKit: HKQuantitySeriesSampleQueryDescriptor.Result.
    public struct Result: Sendable {
        public let quantity: HKQuantity
        public let dateInterval: DateInterval
        /// The owning sample, when `includeSample` was asked for.
        public let sample: HKQuantitySample?
    }

    public var predicate: HKSamplePredicate<HKQuantitySample>
    public var options: Options

    public init(predicate: HKSamplePredicate<HKQuantitySample>, options: Options = []) {
        self.predicate = predicate
        self.options = options
    }

    /// Every quantity of the matching samples. HealthKit: HKQuantitySeriesSampleQueryDescriptor.results(for:).
    public func results(for healthStore: HKHealthStore) -> Results {
        let descriptor = predicate.descriptor
        let options = options
        return Results(
            stream: QueryResults.reading {
                try await healthStore.seriesQuantities(
                    descriptor, grouped: options.contains(.orderByQuantitySampleStartDate))
            } _: { entry in
                Result(
                    quantity: entry.quantity, dateInterval: entry.interval,
                    sample: options.contains(.includeSample) ? entry.sample : nil)
            })
    }

    /// HealthKit: HKQuantitySeriesSampleQueryDescriptor.Results.
    public struct Results: AsyncSequence, Sendable {
        public typealias Element = Result
        let stream: AsyncThrowingStream<Result, any Error>

        public func makeAsyncIterator() -> QueryResultsIterator<Result> {

            QueryResultsIterator(base: stream.makeAsyncIterator())

        }
    }
}
