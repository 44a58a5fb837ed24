import Foundation
import GRDB
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
        let database = try database()
        for object in objects { try validateForSave(object) }
        let source = sourceRevision
        let types = objects.map(typeOf)
        _ = try await database.write { db in
            try self.checkShareAuthorization(for: types, db)
            return try database.insert(objects, source: source, db)
        }
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
        let box = UncheckedBox(objects)
        report({ try await self.save(box.value) }) { result in
            let (success, error) = result.healthKitPair
            completion(success, error)
        }
    }

    private func typeOf(_ object: HKObject) -> HKObjectType {
        (object as? HKSample)?.sampleType ?? HKObjectType(identifier: "\(type(of: object))")
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
        let database = try database()
        let now = wallClock()
        let samples = UncheckedBox(objects.compactMap { $0 as? HKSample })
        let types = objects.map(typeOf)
        let client = clientIdentifier
        try await database.write { db in
            try self.checkShareAuthorization(for: types, db)
            let own = Set(try database.ownSourceIDs(client: client, db))
            var ids: [Int64] = []
            for sample in samples.value {
                guard let typeID = try database.existingTypeID(sample.sampleType.identifier, db),
                    let id = try database.storedID(of: sample, typeID: typeID, db),
                    let sourceID = try database.sourceID(ofSample: id, db)
                else { continue }
                guard own.contains(sourceID) else {
                    throw HKError(
                        .errorAuthorizationDenied,
                        "Object \(sample.uuid) was saved by another program and cannot be deleted by \(client).")
                }
                ids.append(id)
            }
            _ = try database.deleteSamples(ids: ids, now: now, db)
        }
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
        let box = UncheckedBox(objects)
        report({ try await self.delete(box.value) }) { result in
            let (success, error) = result.healthKitPair
            completion(success, error)
        }
    }

    /// Deletes every object of a type that matches a predicate and that this client saved; returns how many.
    public func deleteObjects(of objectType: HKObjectType, predicate: NSPredicate) async throws -> Int {
        let database = try database()
        let now = wallClock()
        try await database.write { db in try self.checkShareAuthorization(for: [objectType], db) }
        guard let sampleType = objectType as? HKSampleType else { return 0 }
        let descriptor = HKQueryDescriptor(sampleType: sampleType, predicate: predicate)
        let client = clientIdentifier
        let box = UncheckedBox(descriptor)
        let count = try await database.write { db -> Int in
            guard
                let condition = try database.whereClause(
                    for: [box.value], access: ReadAccess(readableTypes: nil, clientIdentifier: client), db)
            else {
                return 0
            }
            let own = try database.ownSourceIDs(client: client, db)
            guard !own.isEmpty else { return 0 }
            let ids = try database.sampleIDs(matching: condition, sources: own, db)
            return try database.deleteSamples(ids: ids, now: now, db)
        }
        notifyChange()
        return count
    }

    public func deleteObjects(
        of objectType: HKObjectType, predicate: NSPredicate,
        withCompletion completion: @escaping @Sendable (Bool, Int, (any Error)?) -> Void
    ) {
        let box = UncheckedBox((objectType, predicate))
        report({ try await self.deleteObjects(of: box.value.0, predicate: box.value.1) }) { result in
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
        let box = UncheckedBox((samples, workout))
        report({ try await self.associate(box.value.0, with: box.value.1) }) { result in
            let (success, error) = result.healthKitPair
            completion(success, error)
        }
    }

    /// `add(_:to:)` without the deprecation, for OpenHealthKit's own callers.
    func associate(_ samples: [HKSample], with workout: HKWorkout) async throws {
        let database = try database()
        for sample in samples { try validateForSave(sample) }
        let types = samples.map(\.sampleType)
        let source = sourceRevision
        let box = UncheckedBox(samples)
        let workoutUUID = workout.uuid
        try await database.write { db in
            try self.checkShareAuthorization(for: types, db)
            guard let workoutID = try database.workoutID(uuid: workoutUUID, db) else {
                throw HKError(
                    .errorInvalidArgument,
                    "The workout \(workoutUUID) must be saved before samples can be added to it.")
            }
            _ = try database.insert(box.value, source: source, workoutID: workoutID, db)
        }
        notifyChange()
    }
}

/// Carries a non-Sendable value (an immutable HealthKit object graph) across a task boundary.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
