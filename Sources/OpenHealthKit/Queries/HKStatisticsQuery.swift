import Foundation
import HealthKitModel
import WorkoutEngine

/// Computes statistics (sum, average, minimum, maximum, most recent, duration) over the samples of one quantity
/// type that match a predicate.
///
/// When the predicate holds a date range (`predicateForSamples(withStart:end:options:)`, alone or in an AND),
/// statistics are computed over that range: cumulative samples straddling it are prorated. Without data, or when
/// the client may not read the type, the handler gets `errorNoData`. Options that do not fit the type's
/// aggregation style trap, as HealthKit raises.
///
/// HealthKit: HKStatisticsQuery.
public final class HKStatisticsQuery: HKQuery, @unchecked Sendable {
    public typealias CompletionHandler = @Sendable (HKStatisticsQuery, HKStatistics?, (any Error)?) -> Void

    let quantityType: HKQuantityType
    let options: HKStatisticsOptions
    private let completionHandler: CompletionHandler

    public init(
        quantityType: HKQuantityType, quantitySamplePredicate: NSPredicate?, options: HKStatisticsOptions = [],
        completionHandler handler: @escaping CompletionHandler
    ) {
        options.check(for: quantityType, function: "HKStatisticsQuery")
        self.quantityType = quantityType
        self.options = options
        self.completionHandler = handler
        super.init(
            objectType: quantityType, predicate: quantitySamplePredicate,
            descriptors: [HKQueryDescriptor(sampleType: quantityType, predicate: quantitySamplePredicate)])
    }

    override func run(in store: HKHealthStore) {
        let (type, predicate, options) = (quantityType, UncheckedBox(predicate), self.options)
        store.complete(
            {
                guard
                    let statistics = try await store.computeStatistics(
                        type: type, predicate: predicate.value, options: options)
                else {
                    throw HKError(.errorNoData, "No data available for the specified predicate.")
                }
                return statistics
            },
            { [self] result in
                store.finished(self)
                switch result {
                case .success(let statistics): completionHandler(self, statistics, nil)
                case .failure(let error): completionHandler(self, nil, error)
                }
            })
    }
}
