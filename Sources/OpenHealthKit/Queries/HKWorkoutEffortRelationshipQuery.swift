import Foundation
import HealthKitModel
import WorkoutEngine

/// Which related effort samples a relationship query returns. Raw values as HealthKit's.
/// HealthKit: HKWorkoutEffortRelationshipQueryOptions.
public enum HKWorkoutEffortRelationshipQueryOptions: Int, Sendable, Hashable {
    /// Every related sample.
    case `default` = 0
    /// One sample per relationship: the person's own rating (`workoutEffortScore`) if there is one, else the
    /// estimate, the most recently related first (OpenHealthKit's reading of "most relevant").
    case mostRelevant = 1
}

/// A workout (or one of its activities) and the effort samples related to it. HealthKit: HKWorkoutEffortRelationship.
public final class HKWorkoutEffortRelationship: NSObject, NSCopying, @unchecked Sendable {
    public let workout: HKWorkout
    public let activity: HKWorkoutActivity?
    public let samples: [HKSample]?

    init(workout: HKWorkout, activity: HKWorkoutActivity?, samples: [HKSample]?) {
        self.workout = workout
        self.activity = activity
        self.samples = samples
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }
}

extension HKHealthStore {
    /// Relates an effort sample (`workoutEffortScore` or `estimatedWorkoutEffortScore`, already saved) to a saved
    /// workout, or to one of its activities. Needs share authorization for the sample's type; relating twice changes
    /// nothing. Returns true once the relationship is saved (HealthKit's success flag: failures throw).
    /// HealthKit: HKHealthStore.relateWorkoutEffortSample(_:with:activity:).
    @discardableResult
    public func relateWorkoutEffortSample(
        _ sample: HKSample, with workout: HKWorkout,
        activity: HKWorkoutActivity?
    ) async throws -> Bool {
        try await changeEffort(sample, workout, activity, relate: true)
        return true
    }

    public func relateWorkoutEffortSample(
        _ sample: HKSample, with workout: HKWorkout, activity: HKWorkoutActivity?,
        completion: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        let box = UncheckedBox((sample, workout, activity))
        report({ try await self.changeEffort(box.value.0, box.value.1, box.value.2, relate: true) }) { result in
            let (success, error) = result.healthKitPair
            completion(success, error)
        }
    }

    /// Removes a relationship made by `relateWorkoutEffortSample`. HealthKit:
    /// HKHealthStore.unrelateWorkoutEffortSample(_:from:activity:). Returns true once the change is saved.
    @discardableResult
    public func unrelateWorkoutEffortSample(
        _ sample: HKSample, from workout: HKWorkout,
        activity: HKWorkoutActivity?
    ) async throws -> Bool {
        try await changeEffort(sample, workout, activity, relate: false)
        return true
    }

    public func unrelateWorkoutEffortSample(
        _ sample: HKSample, from workout: HKWorkout, activity: HKWorkoutActivity?,
        completion: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        let box = UncheckedBox((sample, workout, activity))
        report({ try await self.changeEffort(box.value.0, box.value.1, box.value.2, relate: false) }) { result in
            let (success, error) = result.healthKitPair
            completion(success, error)
        }
    }

    private func changeEffort(
        _ sample: HKSample, _ workout: HKWorkout, _ activity: HKWorkoutActivity?, relate: Bool
    ) async throws {
        let effortTypes = [
            HKQuantityTypeIdentifier.workoutEffortScore.rawValue,
            HKQuantityTypeIdentifier.estimatedWorkoutEffortScore.rawValue,
        ]
        guard effortTypes.contains(sample.sampleType.identifier) else {
            throw HKError(
                .errorInvalidArgument,
                "Only workoutEffortScore and estimatedWorkoutEffortScore samples relate to a workout, not \(sample.sampleType.identifier)."
            )
        }
        if let activity, !workout.workoutActivities.contains(where: { $0.uuid == activity.uuid }) {
            throw HKError(
                .errorInvalidArgument, "The activity \(activity.uuid) is not one of the workout's activities.")
        }
        try await backend().relateEffort(
            EffortRelation(
                sample: sample.uuid, sampleType: sample.sampleType, workout: workout.uuid, activity: activity?.uuid),
            relate: relate, check: ShareCheck(client: clientIdentifier, types: [sample.sampleType]))
        notifyChange()
    }

    /// The relationships of the workouts `workouts` matches, added after `anchor`, and the newest anchor.
    func effortRelationships(
        workouts descriptor: HKQueryDescriptor, after anchor: Int64, options: HKWorkoutEffortRelationshipQueryOptions
    ) async throws -> ([HKWorkoutEffortRelationship], Int64) {
        let found = try await backend().effortRelationships(descriptor, after: anchor, client: clientIdentifier)
        let (rows, workouts, samples, newest) = (found.rows, found.workouts, found.samples, found.newest)
        let samplesByUUID = Dictionary(samples.map { ($0.uuid, $0) }, uniquingKeysWith: { first, _ in first })
        let workoutsByUUID = Dictionary(workouts.map { ($0.uuid, $0) }, uniquingKeysWith: { first, _ in first })
        var order: [String] = []
        var grouped: [String: (HKWorkout, HKWorkoutActivity?, [HKSample])] = [:]
        for row in rows {
            // Samples this client may not read are left out, as if there were none.
            guard let workout = workoutsByUUID[row.workout], let sample = samplesByUUID[row.sample] else { continue }
            let key = "\(row.workout)/\(row.activity?.uuidString ?? "")"
            if grouped[key] == nil {
                order.append(key)
                grouped[key] = (
                    workout, row.activity.flatMap { uuid in workout.workoutActivities.first { $0.uuid == uuid } }, []
                )
            }
            grouped[key]?.2.append(sample)
        }
        let relationships = order.compactMap { key -> HKWorkoutEffortRelationship? in
            guard let (workout, activity, related) = grouped[key] else { return nil }
            var samples = related
            if options == .mostRelevant {
                let own = related.last {
                    $0.sampleType.identifier == HKQuantityTypeIdentifier.workoutEffortScore.rawValue
                }
                samples = [own ?? related.last].compactMap { $0 }
            }
            return HKWorkoutEffortRelationship(workout: workout, activity: activity, samples: samples)
        }
        return (relationships, newest)
    }
}

/// Reads the effort samples related to workouts (the predicate selects workouts) since an anchor.
/// HealthKit: HKWorkoutEffortRelationshipQuery.
public final class HKWorkoutEffortRelationshipQuery: HKQuery, @unchecked Sendable {
    public typealias ResultsHandler =
        @Sendable (
            HKWorkoutEffortRelationshipQuery, [HKWorkoutEffortRelationship]?, HKQueryAnchor?,
            (any Error)?
        ) -> Void
    private let anchor: HKQueryAnchor?
    private let options: HKWorkoutEffortRelationshipQueryOptions
    private let resultsHandler: ResultsHandler

    public init(
        predicate: NSPredicate?, anchor: HKQueryAnchor?, options: HKWorkoutEffortRelationshipQueryOptions,
        resultsHandler: @escaping ResultsHandler
    ) {
        self.anchor = anchor
        self.options = options
        self.resultsHandler = resultsHandler
        super.init(objectType: HKObjectType.workoutType(), predicate: predicate, descriptors: [])
    }

    override func run(in store: HKHealthStore) {
        let (workouts, after, options) = (
            HKQueryDescriptor(sampleType: HKObjectType.workoutType(), predicate: predicate), anchor?.value ?? 0,
            options
        )
        store.complete(
            { try await store.effortRelationships(workouts: workouts, after: after, options: options) },
            { [self] result in
                store.finished(self)
                switch result {
                case .success(let (relationships, newest)):
                    resultsHandler(self, relationships, HKQueryAnchor(value: newest), nil)
                case .failure(let error): resultsHandler(self, nil, nil, error)
                }
            })
    }
}

/// Reads workout effort relationships with `async`/`await`. HealthKit: HKWorkoutEffortRelationshipQueryDescriptor.
public struct HKWorkoutEffortRelationshipQueryDescriptor: HKAsyncQuery, Sendable {
    /// The relationships added since the anchor, and the anchor to continue from.
    public struct Result: Sendable {
        public let relationships: [HKWorkoutEffortRelationship]
        public let newAnchor: HKQueryAnchor
    }

    // HealthKit declares this type Sendable with an NSPredicate in it; an NSPredicate is immutable once made, but
    // Foundation on Linux does not mark it Sendable.
    /// Selects the workouts (`HKQuery`'s workout and object predicates).
    nonisolated(unsafe) public var predicate: NSPredicate?
    public var anchor: HKQueryAnchor?
    public var option: HKWorkoutEffortRelationshipQueryOptions

    public init(predicate: NSPredicate?, anchor: HKQueryAnchor?, option: HKWorkoutEffortRelationshipQueryOptions) {
        self.predicate = predicate
        self.anchor = anchor
        self.option = option
    }

    public func result(for healthStore: HKHealthStore) async throws -> Result {
        let (relationships, newest) = try await healthStore.effortRelationships(
            workouts: HKQueryDescriptor(sampleType: HKObjectType.workoutType(), predicate: predicate),
            after: anchor?.value ?? 0, options: option)
        return Result(relationships: relationships, newAnchor: HKQueryAnchor(value: newest))
    }
}
