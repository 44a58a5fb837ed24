import Foundation
import HealthKitModel

/// Reads correlations (blood pressure, food) of one type, each with the samples it holds.
///
/// `predicate` filters the correlations themselves (their dates, source, metadata…). `samplePredicates` tests what
/// they hold: a correlation is returned when at least one of its samples is of a type the dictionary names and
/// matches that type's predicate (the entries are alternatives, as in HealthKit); nil or empty tests nothing. A
/// correlation shows the samples it holds that the client may read, and is found only where it may read one of
/// the types the correlation can hold (or saved it); HealthKit never authorizes a correlation type itself.
///
/// HealthKit: HKCorrelationQuery.
public final class HKCorrelationQuery: HKQuery, @unchecked Sendable {
    public typealias ResultsHandler = @Sendable (HKCorrelationQuery, [HKCorrelation]?, (any Error)?) -> Void

    /// The type of correlation the query reads.
    public let correlationType: HKCorrelationType
    /// The tests of the correlations' contents, by sample type.
    public let samplePredicates: [HKSampleType: NSPredicate]?
    private let completion: ResultsHandler

    public init(
        type correlationType: HKCorrelationType, predicate: NSPredicate?,
        samplePredicates: [HKSampleType: NSPredicate]?, completion: @escaping ResultsHandler
    ) {
        self.correlationType = correlationType
        self.samplePredicates = samplePredicates
        self.completion = completion
        super.init(
            objectType: correlationType, predicate: predicate,
            descriptors: [HKQueryDescriptor(sampleType: correlationType, predicate: predicate)])
    }

    override func run(in store: HKHealthStore) {
        let descriptors = self.descriptors
        // The contents' tests as descriptors: each type's samples matching its predicate.
        let tests = (samplePredicates ?? [:]).map { HKQueryDescriptor(sampleType: $0.key, predicate: $0.value) }
        store.complete(
            {
                let correlations = try await store.fetchSamples(descriptors, limit: 0, sorts: [])
                    .compactMap { $0 as? HKCorrelation }
                guard !tests.isEmpty else { return correlations }
                let matching = Set(try await store.fetchSamples(tests, limit: 0, sorts: []).map(\.uuid))
                return correlations.filter { $0.objects.contains { matching.contains($0.uuid) } }
            },
            { [self] result in
                store.finished(self)
                switch result {
                case .success(let correlations): completion(self, correlations, nil)
                case .failure(let error): completion(self, nil, error)
                }
            })
    }
}
