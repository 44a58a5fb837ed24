import Foundation
import HealthKitModel
import WorkoutEngine

extension HKHealthStore {
    // MARK: Saving

    /// Saves objects in one transaction: all or none.
    ///
    /// Each object's type must be authorized for sharing (`errorAuthorizationNotDetermined` if never asked,
    /// `errorAuthorizationDenied` if denied); each must be valid (`errorInvalidArgument`: a unit incompatible with
    /// the type, start after end, invalid metadata). Saving an object already stored changes nothing.
    public func save(_ objects: [HKObject]) async throws {
        let backend = try backend()
        for object in objects { try validateForSave(object) }
        // A correlation is saved with the samples it holds (StoredCorrelations); sharing it needs its samples'
        // types, as in HealthKit, which refuses to authorize a correlation type.
        try await backend.save(
            objects, source: sourceRevision,
            check: ShareCheck(client: clientIdentifier, types: StoredCorrelations.sharedTypes(objects)))
        notifyChange()
    }

    public func save(_ object: HKObject) async throws {
        try await save([object])
    }

    public func save(_ object: HKObject, withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        save([object], withCompletion: completion)
    }

    public func save(_ objects: [HKObject], withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void)
    {
        report({ try await self.save(objects) }) { result in
            let (success, error) = result.healthKitPair
            completion(success, error)
        }
    }

    private func validateForSave(_ object: HKObject) throws {
        guard let sample = object as? HKSample else {
            throw HKError(.errorInvalidArgument, "Only samples can be saved; \(type(of: object)) is not one.")
        }
        try sample.validate()
    }

    // MARK: Deleting

    /// Deletes objects this client saved. Deleting another client's object fails with `errorAuthorizationDenied`;
    /// objects not in the store are ignored.
    public func delete(_ objects: [HKObject]) async throws {
        let backend = try backend()
        try await backend.delete(
            objects.compactMap { $0 as? HKSample }, client: clientIdentifier, now: wallClock(),
            check: ShareCheck(client: clientIdentifier, types: StoredCorrelations.sharedTypes(objects)))
        notifyChange()
    }

    public func delete(_ object: HKObject) async throws {
        try await delete([object])
    }

    public func delete(_ object: HKObject, withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void)
    {
        delete([object], withCompletion: completion)
    }

    public func delete(
        _ objects: [HKObject], withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        report({ try await self.delete(objects) }) { result in
            let (success, error) = result.healthKitPair
            completion(success, error)
        }
    }

    /// Deletes every object of a type that matches a predicate and that this client saved; returns how many.
    public func deleteObjects(of objectType: HKObjectType, predicate: NSPredicate) async throws -> Int {
        try await deleteObjects(
            of: objectType,
            matching: (objectType as? HKSampleType).map { HKQueryDescriptor(sampleType: $0, predicate: predicate) })
    }

    /// ``deleteObjects(of:predicate:)`` with the predicate in its (Sendable) descriptor; nil for a type that is not
    /// a sample type (nothing to delete once the share check passed).
    private func deleteObjects(of objectType: HKObjectType, matching descriptor: HKQueryDescriptor?) async throws -> Int
    {
        let backend = try backend()
        // A correlation type is never authorized (HealthKit refuses to ask for one); only this client's own
        // correlations are deleted, which it could save.
        let check = ShareCheck(
            client: clientIdentifier, types: objectType is HKCorrelationType ? [] : [objectType])
        guard let descriptor else {
            try await backend.checkShareAuthorization(check)
            return 0
        }
        let count = try await backend.deleteSamples(
            matching: descriptor, client: clientIdentifier, now: wallClock(), check: check)
        notifyChange()
        return count
    }

    public func deleteObjects(
        of objectType: HKObjectType, predicate: NSPredicate,
        withCompletion completion: @escaping @Sendable (Bool, Int, (any Error)?) -> Void
    ) {
        let descriptor = (objectType as? HKSampleType).map { HKQueryDescriptor(sampleType: $0, predicate: predicate) }
        report({ try await self.deleteObjects(of: objectType, matching: descriptor) }) { result in
            switch result {
            case .success(let count): completion(true, count, nil)
            case .failure(let error): completion(false, 0, error)
            }
        }
    }

    // MARK: Associating samples with workouts

    /// Associates samples with a saved workout; unsaved samples are saved first, in the same transaction.
    ///
    /// The workout must already be in the store (`errorInvalidArgument` otherwise). As in HealthKit, the
    /// workout's dates, duration, totals and statistics never change.
    @available(*, deprecated, message: "Use HKWorkoutBuilder")
    public func add(_ samples: [HKSample], to workout: HKWorkout) async throws {
        try await associate(samples, with: workout)
    }

    @available(*, deprecated, message: "Use HKWorkoutBuilder")
    public func add(
        _ samples: [HKSample], to workout: HKWorkout,
        completion: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        report({ try await self.associate(samples, with: workout) }) { result in
            let (success, error) = result.healthKitPair
            completion(success, error)
        }
    }

    /// `add(_:to:)` without the deprecation, for OpenHealthKit's own callers.
    func associate(_ samples: [HKSample], with workout: HKWorkout) async throws {
        let backend = try backend()
        for sample in samples { try validateForSave(sample) }
        try await backend.associate(
            samples, withWorkout: workout.uuid, source: sourceRevision,
            check: ShareCheck(client: clientIdentifier, types: samples.map(\.sampleType)))
        notifyChange()
    }
}
