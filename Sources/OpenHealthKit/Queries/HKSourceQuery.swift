import Foundation
import HealthKitModel
import WorkoutEngine

/// Finds the sources — apps and programs, by client identifier — that saved samples of a type matching a predicate.
/// HealthKit: HKSourceQuery.
public final class HKSourceQuery: HKQuery, @unchecked Sendable {
    public typealias CompletionHandler = @Sendable (HKSourceQuery, Set<HKSource>?, (any Error)?) -> Void
    private let completionHandler: CompletionHandler

    public init(
        sampleType: HKSampleType, samplePredicate objectPredicate: NSPredicate?,
        completionHandler: @escaping CompletionHandler
    ) {
        self.completionHandler = completionHandler
        super.init(
            objectType: sampleType, predicate: objectPredicate,
            descriptors: [HKQueryDescriptor(sampleType: sampleType, predicate: objectPredicate)])
    }

    override func run(in store: HKHealthStore) {
        let descriptors = self.descriptors
        store.complete(
            { try await store.sources(matching: descriptors) },
            { [self] result in
                store.finished(self)
                switch result {
                case .success(let sources): completionHandler(self, sources, nil)
                case .failure(let error): completionHandler(self, nil, error)
                }
            })
    }
}

/// Finds sources with `async`/`await`. HealthKit: HKSourceQueryDescriptor.
public struct HKSourceQueryDescriptor<Sample: HKSample>: HKAsyncQuery, Sendable {
    public var predicate: HKSamplePredicate<Sample>

    public init(predicate: HKSamplePredicate<Sample>) {
        self.predicate = predicate
    }

    /// The sources, sorted by name. HealthKit: HKSourceQueryDescriptor.result(for:).
    public func result(for healthStore: HKHealthStore) async throws -> [HKSource] {
        let sources = try await healthStore.sources(matching: [predicate.descriptor])
        return sources.sorted { ($0.name, $0.bundleIdentifier) < ($1.name, $1.bundleIdentifier) }
    }
}

extension HKHealthStore {
    /// The sources of the samples the descriptors match that this client may read.
    func sources(matching descriptors: [HKQueryDescriptor]) async throws -> Set<HKSource> {
        try await backend().sources(descriptors, client: clientIdentifier)
    }
}
