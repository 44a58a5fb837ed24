import Foundation
import HealthKitModel
import WorkoutEngine

extension HKHealthStore {
    /// The sources that saved samples of a type, highest priority first. OpenHealthKit.
    ///
    /// Statistics without `.separateBySource` merge overlapping samples of cumulative types (energy, distance,
    /// steps) by this order: where two sources recorded the same stretch of time, the higher one counts and the
    /// lower one fills only the time the higher one did not cover (see the README, "Source priority"). Discrete
    /// statistics (average, minimum, maximum, most recent) use every source's samples, as HealthKit documents
    /// ("the minimum value from all the samples that match the query").
    ///
    /// The default order is the order in which sources first saved the type; ``setSourcePriority(_:for:)``
    /// changes it. A client that may not read the type sees only its own source (read denial looks like no data).
    ///
    /// HealthKit: the Health app's Data Sources list (no public API reads or sets it).
    public func sourcePriority(for type: HKQuantityType) async throws -> [HKSource] {
        let access = try await readAccess()
        let sources = try await backend().sourcePriority(of: type)
        guard access.canRead(type.identifier) else {
            return sources.filter { $0.bundleIdentifier == access.clientIdentifier }
        }
        return sources
    }

    /// Sets the source priority of a type, highest first, as the person orders Data Sources in the Health app.
    /// Sources that saved the type but are not listed keep following, in the order in which they first saved it.
    /// An empty list restores the default order. OpenHealthKit.
    ///
    /// - Throws: `errorInvalidArgument` when a source is listed twice or has saved no sample of the type.
    public func setSourcePriority(_ sources: [HKSource], for type: HKQuantityType) async throws {
        let backend = try backend()
        let bundles = sources.map(\.bundleIdentifier)
        if let repeated = bundles.first(where: { bundle in bundles.filter { $0 == bundle }.count > 1 }) {
            throw HKError(.errorInvalidArgument, "The source \(repeated) is listed more than once.")
        }
        try await backend.setSourcePriority(of: type) { stored in
            let known = Set(stored.map(\.bundleIdentifier))
            if let unknown = bundles.first(where: { !known.contains($0) }) {
                throw HKError(.errorInvalidArgument, "The source \(unknown) has saved no \(type.identifier) samples.")
            }
            return bundles
        }
        notifyChange()
    }
}
