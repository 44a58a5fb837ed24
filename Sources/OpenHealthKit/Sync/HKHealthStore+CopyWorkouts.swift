import Foundation
import HealthKitModel
import WorkoutEngine

/// What ``HKHealthStore/copyWorkouts(to:only:progress:)`` did. OpenHealthKit.
public struct WorkoutCopyReport: Sendable, Equatable {
    /// Workouts copied, each with what belongs to it.
    public var workoutsCopied = 0
    /// Workouts the destination already had, left as they are.
    public var workoutsAlreadyPresent = 0
    /// Samples copied with the workouts: associated samples, quantity series with their points, heartbeat series
    /// with their beats, routes with their locations, effort samples.
    public var samplesCopied = 0
    /// Effort relationships added between workouts and effort samples.
    public var effortRelationshipsCopied = 0

    public init() {}
}

extension HKHealthStore {
    /// Copies into `destination` every workout this store holds and `destination` lacks, keeping UUIDs: the workout
    /// with its activities, events, statistics, zones and metadata, its associated samples (quantity series with
    /// their points, heartbeat series with their beats, routes with their locations), the sensors it was recorded
    /// from, its workout plan and its effort relationships; each sample keeps its source and device. OpenHealthKit.
    ///
    /// The two stores may be of any kind (a SQLite file, a PostgreSQL database). The copy is a store's, not an app's
    /// save: it reads what this store's client may read (it asks for every type, which the default
    /// ``HKAuthorizationPolicy/grantAll`` grants) and writes without the destination client's share authorization.
    ///
    /// Each workout appears in `destination` whole or not at all: its samples are saved first, then the workout with
    /// its associations, sensors and plan in one transaction. A copy that stops part-way (a server that went away)
    /// leaves at most samples not yet associated, which the next copy finds and associates; copying twice adds
    /// nothing. Deletions are not copied: a workout deleted here stays in `destination`.
    ///
    /// - Parameters:
    ///   - destination: the store to copy into.
    ///   - only: the UUIDs of the workouts to copy; nil copies every workout.
    ///   - progress: called once per workout, oldest first, with whether it was copied (false: already present).
    /// - Returns: what was copied.
    /// - Throws: `HKError` from either store (`errorDatabaseInaccessible` with one sentence when one fails), or
    ///   `errorInvalidArgument` when both are the same store.
    public func copyWorkouts(
        to destination: HKHealthStore, only: Set<UUID>? = nil,
        progress: @Sendable (HKWorkout, _ copied: Bool) -> Void = { _, _ in }
    ) async throws -> WorkoutCopyReport {
        let from = try backend()
        let into = try destination.backend()
        if let here = from.location, let there = into.location,
            URL(fileURLWithPath: here).standardizedFileURL.resolvingSymlinksInPath()
                == URL(fileURLWithPath: there).standardizedFileURL.resolvingSymlinksInPath()
        {
            throw HKError(.errorInvalidArgument, "Workouts cannot be copied from \(here) to itself.")
        }
        let types = Self.copiedTypes
        try await requestAuthorization(toShare: [], read: Set(types.map { $0 as HKObjectType }))
        try await destination.requestAuthorization(toShare: [], read: Set(types.map { $0 as HKObjectType }))
        let copy = WorkoutCopy(
            from: from, into: into, reader: clientIdentifier, writer: destination.clientIdentifier)

        let workoutPredicate = only.map { HKQuery.predicateForObjects(with: $0) }
        let workouts = try await from.samples(
            [HKQueryDescriptor(sampleType: .workoutType(), predicate: workoutPredicate)], limit: 0, sorts: [],
            client: clientIdentifier
        ).compactMap { $0 as? HKWorkout }.sorted {
            ($0.startDate, $0.uuid.uuidString) < ($1.startDate, $1.uuid.uuidString)
        }
        var report = WorkoutCopyReport()
        if !workouts.isEmpty {
            let present = try await copy.typesHeld(types.filter { $0 != .workoutType() })
            let stored = try await copy.storedUUIDs(workouts.map(\.uuid), of: [.workoutType()])
            for workout in workouts {
                if stored.contains(workout.uuid) {
                    report.workoutsAlreadyPresent += 1
                    progress(workout, false)
                    continue
                }
                report.samplesCopied += try await copy.copy(workout, sampleTypes: present)
                report.workoutsCopied += 1
                progress(workout, true)
            }
        }
        let efforts = try await copy.copyEffortRelationships(
            HKQueryDescriptor(sampleType: .workoutType(), predicate: workoutPredicate))
        report.samplesCopied += efforts.samples
        report.effortRelationshipsCopied = efforts.relationships
        return report
    }

    /// Every type of sample a store holds: the workout type, the series types, every quantity and category type.
    static var copiedTypes: [HKSampleType] {
        var types: [HKSampleType] = [.workoutType(), HKSeriesType.heartbeat(), HKSeriesType.workoutRoute()]
        types += QuantityTypeCatalog.byCode
        types += CategoryTypeCatalog.values.keys.sorted().compactMap { HKCategoryType.known($0) }
        return types
    }
}

/// One copy between two backends: the reads and writes of ``HKHealthStore/copyWorkouts(to:only:progress:)``.
private struct WorkoutCopy {
    let from: any StoreBackend
    let into: any StoreBackend
    /// The client the source is read as, and the one the destination is read as.
    let reader: String
    let writer: String
    /// How many UUIDs one query names (well under SQLite's and PostgreSQL's limits on parameters).
    static let batch = 500

    /// A copy writes as the store, not as an app: no share authorization is checked.
    var unchecked: ShareCheck { ShareCheck(client: writer, types: []) }

    /// The types of `types` the source has at least one sample of (those a workout's samples are looked up in).
    func typesHeld(_ types: [HKSampleType]) async throws -> [HKSampleType] {
        var held: [HKSampleType] = []
        for type in types
        where try await !from.samples(
            [HKQueryDescriptor(sampleType: type, predicate: nil)], limit: 1, sorts: [], client: reader
        ).isEmpty {
            held.append(type)
        }
        return held
    }

    /// The UUIDs of `uuids` the destination already holds as samples of `types`.
    func storedUUIDs(_ uuids: [UUID], of types: [HKSampleType]) async throws -> Set<UUID> {
        var stored = Set<UUID>()
        guard !types.isEmpty else { return stored }
        for start in stride(from: 0, to: uuids.count, by: Self.batch) {
            let predicate = HKQuery.predicateForObjects(
                with: Set(uuids[start ..< min(start + Self.batch, uuids.count)]))
            let found = try await into.samples(
                types.map { HKQueryDescriptor(sampleType: $0, predicate: predicate) }, limit: 0, sorts: [],
                client: writer)
            stored.formUnion(found.map(\.uuid))
        }
        return stored
    }

    /// Copies one workout the destination lacks; returns how many samples it saved.
    func copy(_ workout: HKWorkout, sampleTypes: [HKSampleType]) async throws -> Int {
        let own = HKQuery.predicateForObjects(from: workout)
        let samples =
            sampleTypes.isEmpty
            ? []
            : try await from.samples(
                sampleTypes.map { HKQueryDescriptor(sampleType: $0, predicate: own) }, limit: 0, sorts: [],
                client: reader)
        let types = Array(Set(samples.map(\.sampleType)))
        let stored = try await storedUUIDs(samples.map(\.uuid), of: types)
        let missing = samples.filter { !stored.contains($0.uuid) }

        var plain: [HKSample] = []
        var series: [HKQuantityType: [UUID]] = [:]
        for sample in missing {
            if let quantity = sample as? HKQuantitySample, quantity.count > 1 {
                series[quantity.quantityType, default: []].append(quantity.uuid)
            } else if let heartbeats = sample as? HKHeartbeatSeriesSample {
                plain.append(try await withBeats(heartbeats))
            } else if let route = sample as? HKWorkoutRoute {
                plain.append(try await withLocations(route))
            } else {
                plain.append(sample)
            }
        }
        try await save(plain)
        for (type, uuids) in series {
            for start in stride(from: 0, to: uuids.count, by: Self.batch) {
                let predicate = HKQuery.predicateForObjects(
                    with: Set(uuids[start ..< min(start + Self.batch, uuids.count)]))
                for (sample, points) in try await from.seriesSamples(
                    HKQueryDescriptor(sampleType: type, predicate: predicate), client: reader)
                {
                    try await into.saveSeries(
                        QuantitySeriesToSave(
                            type: type, quantities: points ?? [], start: sample.startDate.storeValue,
                            end: sample.endDate.storeValue, uuid: sample.uuid,
                            metadata: try MetadataCoding.encode(sample.metadata), device: sample.device,
                            source: sample.sourceRevision),
                        check: unchecked)
                }
            }
        }
        try await into.finishWorkout(
            WorkoutToFinish(
                workout: workout, samples: [], beats: [], builderID: nil, associated: samples.map(\.uuid),
                sensors: try await from.workoutSensors(of: workout.uuid), device: nil,
                source: workout.sourceRevision, workoutPlan: try await from.workoutPlan(ofWorkout: workout.uuid)),
            check: unchecked)
        return missing.count
    }

    /// Saves samples, each under its own source.
    func save(_ samples: [HKSample]) async throws {
        for (source, group) in Dictionary(grouping: samples, by: \.sourceRevision) {
            try await into.save(group, source: source, check: unchecked)
        }
    }

    /// A stored heartbeat series with its beats read, so that it can be saved elsewhere.
    private func withBeats(_ series: HKHeartbeatSeriesSample) async throws -> HKHeartbeatSeriesSample {
        let beats: [HeartbeatSeriesCodec.Beat]
        do {
            beats = try HeartbeatSeriesCodec.decode(try await from.heartbeatBeats(of: series.uuid) ?? [])
        } catch let error as HKError {
            throw error
        } catch {
            throw HKError(
                .errorDatabaseInaccessible,
                "The health store is damaged: heartbeat series \(series.uuid) cannot be read.")
        }
        return HKHeartbeatSeriesSample(
            count: beats.count, startDate: series.startDate, endDate: series.endDate, uuid: series.uuid,
            metadata: series.metadata, device: series.device, sourceRevision: series.sourceRevision, beats: beats)
    }

    /// A stored route with its locations read, so that it can be saved elsewhere.
    private func withLocations(_ route: HKWorkoutRoute) async throws -> HKWorkoutRoute {
        let locations = try await from.routeLocations(of: route.uuid)
        return HKWorkoutRoute(
            count: locations.count, startDate: route.startDate, endDate: route.endDate, uuid: route.uuid,
            metadata: route.metadata, device: route.device, sourceRevision: route.sourceRevision, locations: locations)
    }

    /// Adds the effort relationships of the workouts `workouts` matches that the destination lacks (with their
    /// effort samples); a relationship is added once both its workout and its sample are there.
    func copyEffortRelationships(_ workouts: HKQueryDescriptor) async throws -> (samples: Int, relationships: Int) {
        let source = try await from.effortRelationships(workouts, after: 0, client: reader)
        guard !source.rows.isEmpty else { return (0, 0) }
        let destination = try await into.effortRelationships(workouts, after: 0, client: writer)
        struct Key: Hashable {
            var workout: UUID
            var activity: UUID?
            var sample: UUID
        }
        let present = Set(destination.rows.map { Key(workout: $0.workout, activity: $0.activity, sample: $0.sample) })
        let copiedWorkouts = try await storedUUIDs(Array(Set(source.rows.map(\.workout))), of: [.workoutType()])
        let rows = source.rows.filter {
            copiedWorkouts.contains($0.workout)
                && !present.contains(Key(workout: $0.workout, activity: $0.activity, sample: $0.sample))
        }
        guard !rows.isEmpty else { return (0, 0) }
        let samples = source.samples.filter { sample in rows.contains { $0.sample == sample.uuid } }
        let stored = try await storedUUIDs(samples.map(\.uuid), of: Array(Set(samples.map(\.sampleType))))
        try await save(samples.filter { !stored.contains($0.uuid) })
        let byUUID = Dictionary(samples.map { ($0.uuid, $0.sampleType) }, uniquingKeysWith: { first, _ in first })
        var related = 0
        for row in rows {
            guard let type = byUUID[row.sample] else { continue }
            try await into.relateEffort(
                EffortRelation(sample: row.sample, sampleType: type, workout: row.workout, activity: row.activity),
                relate: true, check: unchecked)
            related += 1
        }
        return (samples.count - stored.count, related)
    }
}
