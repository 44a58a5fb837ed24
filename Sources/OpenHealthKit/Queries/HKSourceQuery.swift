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
        let descriptors = UncheckedBox(self.descriptors)
        store.complete(
            { try store.sources(matching: descriptors.value) },
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
public struct HKSourceQueryDescriptor<Sample: HKSample>: HKAsyncQuery, @unchecked Sendable {
    public var predicate: HKSamplePredicate<Sample>

    public init(predicate: HKSamplePredicate<Sample>) {
        self.predicate = predicate
    }

    /// The sources, sorted by name. HealthKit: HKSourceQueryDescriptor.result(for:).
    public func result(for healthStore: HKHealthStore) async throws -> [HKSource] {
        let descriptor = UncheckedBox(predicate.descriptor)
        let sources = try await healthStore.sources(matching: [descriptor.value])
        return sources.sorted { ($0.name, $0.bundleIdentifier) < ($1.name, $1.bundleIdentifier) }
    }
}

extension HKHealthStore {
    func sources(matching descriptors: [HKQueryDescriptor]) throws -> Set<HKSource> {
        try withStoreRead { database, access, db in try database.sources(descriptors, access: access, db) }
    }

    /// ``sources(matching:)`` on GRDB's reader queue, the calling task suspended.
    func sources(matching descriptors: [HKQueryDescriptor]) async throws -> Set<HKSource> {
        let request = UncheckedBox(descriptors)
        return try await withStoreRead { database, access, db in try database.sources(request.value, access: access, db)
        }
    }
}
