import Foundation
import GRDB

/// The SQLite backend's named operations: each one transaction through GRDB, run on GRDB's writer queue or one of
/// its reader queues while the calling task is suspended (the `Blocking` ones on the caller's thread).
extension StoreDatabase: StoreBackend {
    var location: String? { path }

    /// A client's read access, looked up in the same read or write.
    func access(client: String, _ db: Database) throws -> ReadAccess {
        ReadAccess(readableTypes: Set(try readableTypes(client: client, db)), clientIdentifier: client)
    }

    private func decision(client: String, type: String, _ db: Database) throws -> AuthorizationDecision? {
        try authorization(client: client, type: type, db).map { AuthorizationDecision(share: $0.share, read: $0.read) }
    }

    private func verify(_ check: ShareCheck, _ db: Database) throws {
        try check.verify { try decision(client: check.client, type: $0, db) }
    }

    // MARK: Authorization

    func authorizationDecisions(client: String, types: Set<String>) async throws -> [String: AuthorizationDecision] {
        try await read { db in
            var decisions: [String: AuthorizationDecision] = [:]
            for type in types { decisions[type] = try self.decision(client: client, type: type, db) }
            return decisions
        }
    }

    func authorizationDecisionBlocking(client: String, type: String) throws -> AuthorizationDecision? {
        try read { db in try decision(client: client, type: type, db) }
    }

    func updateAuthorization(
        client: String, types: Set<String>,
        _ decide: @escaping @Sendable ([String: AuthorizationDecision]) throws -> [String: AuthorizationDecision]
    ) async throws {
        try await write { db in
            var decisions: [String: AuthorizationDecision] = [:]
            for type in types { decisions[type] = try self.decision(client: client, type: type, db) }
            for (type, changed) in try decide(decisions) {
                let old = decisions[type]
                if old?.share != changed.share, let status = HKAuthorizationStatus(rawValue: changed.share) {
                    try self.setShare(status, client: client, type: type, db)
                }
                if old?.read != changed.read, let read = ReadDecision(rawValue: changed.read) {
                    try self.setRead(read, client: client, type: type, db)
                }
            }
        }
    }

    func recordAuthorizationBlocking(client: String, type: String, share: Int?, read readDecision: Int?) throws {
        try write { db in
            if let share, let status = HKAuthorizationStatus(rawValue: share) {
                try setShare(status, client: client, type: type, db)
            }
            if let readDecision, let decision = ReadDecision(rawValue: readDecision) {
                try setRead(decision, client: client, type: type, db)
            }
        }
    }

    func readableTypes(client: String) async throws -> Set<String> {
        try await read { db in Set(try self.readableTypes(client: client, db)) }
    }

    func readableTypesBlocking(client: String) throws -> Set<String> {
        try read { db in Set(try readableTypes(client: client, db)) }
    }

    func checkShareAuthorization(_ check: ShareCheck) async throws {
        try await read { db in try self.verify(check, db) }
    }

    // MARK: Objects

    func save(_ objects: [HKObject], source: HKSourceRevision, check: ShareCheck) async throws {
        try await write { db in
            try self.verify(check, db)
            try self.insertWithCorrelations(objects, source: source, db)
        }
    }

    func delete(_ samples: [HKSample], client: String, now: Date, check: ShareCheck) async throws {
        try await write { db in
            try self.verify(check, db)
            let own = Set(try self.ownSourceIDs(client: client, db))
            var ids: [Int64] = []
            for sample in samples {
                guard let typeID = try self.existingTypeID(sample.sampleType.identifier, db),
                    let id = try self.storedID(of: sample, typeID: typeID, db),
                    let sourceID = try self.sourceID(ofSample: id, db)
                else { continue }
                guard own.contains(sourceID) else {
                    throw HKError(
                        .errorAuthorizationDenied,
                        "Object \(sample.uuid) was saved by another program and cannot be deleted by \(client).")
                }
                ids.append(id)
            }
            _ = try self.deleteSamples(ids: ids, now: now, db)
        }
    }

    func deleteSamples(
        matching descriptor: HKQueryDescriptor, client: String, now: Date, check: ShareCheck
    ) async throws -> Int {
        try await write { db -> Int in
            try self.verify(check, db)
            guard
                let condition = try self.whereClause(
                    for: [descriptor], access: ReadAccess(readableTypes: nil, clientIdentifier: client), db)
            else {
                return 0
            }
            let own = try self.ownSourceIDs(client: client, db)
            guard !own.isEmpty else { return 0 }
            let ids = try self.sampleIDs(matching: condition, sources: own, db)
            return try self.deleteSamples(ids: ids, now: now, db)
        }
    }

    func associate(
        _ samples: [HKSample], withWorkout workout: UUID, source: HKSourceRevision, check: ShareCheck
    ) async throws {
        try await write { db in
            try self.verify(check, db)
            guard let workoutID = try self.workoutID(uuid: workout, db) else { throw HKError.workoutNotSaved(workout) }
            _ = try self.insert(samples, source: source, workoutID: workoutID, db)
        }
    }

    func saveSeries(_ series: QuantitySeriesToSave, check: ShareCheck) async throws {
        try await write { db in
            try self.verify(check, db)
            _ = try self.insertSeries(
                .init(
                    type: series.type, quantities: series.quantities, start: series.start, end: series.end,
                    uuid: series.uuid, metadata: series.metadata,
                    deviceID: try series.device.map { try self.deviceID($0, db) },
                    sourceID: try self.sourceID(series.source, db)), db)
        }
    }

    func relateEffort(_ relation: EffortRelation, relate: Bool, check: ShareCheck) async throws {
        try await write { db in
            try self.verify(check, db)
            guard
                let ids = try self.effortIDs(
                    workout: relation.workout, sample: relation.sample, sampleType: relation.sampleType, db)
            else {
                throw HKError(
                    .errorInvalidArgument, "The workout and the effort sample must both be saved in the store first.")
            }
            if relate {
                try self.relateEffort(workoutID: ids.workout, activity: relation.activity, sampleID: ids.sample, db)
            } else {
                try self.unrelateEffort(workoutID: ids.workout, activity: relation.activity, sampleID: ids.sample, db)
            }
        }
    }

    // MARK: Queries

    func samples(
        _ descriptors: [HKQueryDescriptor], limit: Int, sorts: [SampleSort], client: String
    ) async throws -> [HKSample] {
        try await read { db in
            try self.fetchSamples(descriptors, limit: limit, sorts: sorts, access: self.access(client: client, db), db)
        }
    }

    func changes(
        _ descriptors: [HKQueryDescriptor], after anchor: Int64, limit: Int, client: String
    ) async throws -> StoreChanges {
        try await read { db in
            let access = try self.access(client: client, db)
            let added = try self.fetchAddedSamples(descriptors, limit: limit, afterAnchor: anchor, access: access, db)
            let deleted = try self.fetchDeletedObjects(descriptors, afterAnchor: anchor, access: access, db)
            return StoreChanges(
                added: added.map { ($0.id, $0.sample) }, deleted: deleted.map { ($0.0, $0.1) },
                currentAnchor: try self.currentAnchor(db))
        }
    }

    func changedTypes(
        _ descriptors: [HKQueryDescriptor], after anchor: Int64, client: String
    ) async throws -> (types: Set<HKSampleType>, anchor: Int64) {
        try await read { db in
            let access = try self.access(client: client, db)
            return (try self.changedTypes(descriptors, after: anchor, access: access, db), try self.currentAnchor(db))
        }
    }

    func currentAnchor() async throws -> Int64 {
        try await read { db in try self.currentAnchor(db) }
    }

    func sources(_ descriptors: [HKQueryDescriptor], client: String) async throws -> Set<HKSource> {
        try await read { db in try self.sources(descriptors, access: self.access(client: client, db), db) }
    }

    func statistics(
        _ type: HKQuantityType, fetch: HKQueryDescriptor, rangeStart: Double, rangeEnd: Double, client: String
    ) async throws -> StatisticsValues {
        try await read { db in
            let partials = try self.statisticsPartials(
                type: type, fetch: fetch.predicate, rangeStart: rangeStart, rangeEnd: rangeEnd,
                access: self.access(client: client, db), db)
            return try self.statisticsValues(partials, style: type.aggregationStyle, db)
        }
    }

    func statisticsCollection(
        _ type: HKQuantityType, fetch: HKQueryDescriptor, tiling: DateTiling, client: String, everySource: Bool
    ) async throws -> [Int: StatisticsValues] {
        try await read { db in
            let access =
                everySource
                ? ReadAccess(readableTypes: nil, clientIdentifier: client) : try self.access(client: client, db)
            let partials = try self.collectionPartials(
                type: type, predicate: fetch.predicate, tiling: tiling, access: access, db)
            return try partials.mapValues { try self.statisticsValues($0, style: type.aggregationStyle, db) }
        }
    }

    func activityDataSpan() async throws -> (start: Double, end: Double)? {
        try await read { db in try self.activityDataSpan(db) }
    }

    func workoutRunningSpans(from start: Double, to end: Double) async throws -> [ExerciseTime.Span] {
        try await read { db in try self.workoutRunningSpans(from: start, to: end, db) }
    }

    func seriesSamples(
        _ descriptor: HKQueryDescriptor, client: String
    ) async throws -> [(sample: HKQuantitySample, points: [SeriesQuantity]?)] {
        try await read { db in
            let samples = try self.fetchSamples(
                [descriptor], limit: 0, sorts: [], access: self.access(client: client, db), db)
            var result: [(sample: HKQuantitySample, points: [SeriesQuantity]?)] = []
            for case let sample as HKQuantitySample in samples {
                var points: [SeriesQuantity]?
                if sample.count > 1, let typeID = try self.existingTypeID(sample.quantityType.identifier, db),
                    let id = try self.storedID(of: sample, typeID: typeID, db)
                {
                    points = try self.seriesPoints(sampleID: id, db)
                }
                result.append((sample, points))
            }
            return result
        }
    }

    func effortRelationships(
        _ workouts: HKQueryDescriptor, after anchor: Int64, client: String
    ) async throws -> EffortRelationshipRows {
        try await read { db in
            let access = try self.access(client: client, db)
            let found = try self.fetchSamples([workouts], limit: 0, sorts: [], access: access, db)
                .compactMap { $0 as? HKWorkout }
            let (rows, newest) = try self.effortRows(
                workoutIDs: try self.workoutIDs(found.map(\.uuid), db), after: anchor, db)
            let sampleUUIDs = Set(rows.map(\.sample))
            let effortTypes: [HKSampleType] = [
                HKQuantityType(.workoutEffortScore), HKQuantityType(.estimatedWorkoutEffortScore),
            ]
            let samples = try self.fetchSamples(
                effortTypes.map {
                    HKQueryDescriptor(sampleType: $0, predicate: HKQuery.predicateForObjects(with: sampleUUIDs))
                },
                limit: 0, sorts: [], access: access, db)
            return EffortRelationshipRows(rows: rows, workouts: found, samples: samples, newest: newest)
        }
    }

    func heartbeatBeats(of series: UUID) async throws -> [UInt8]? {
        try await read { db in try self.heartbeatBeats(uuid: series, db).map { [UInt8]($0) } }
    }

    func routeLocations(of route: UUID) async throws -> [CLLocation] {
        try await read { db in try self.routeLocations(uuid: route, db) }
    }

    func workoutSensors(of workout: UUID) async throws -> [HKWorkoutSensor] {
        try await read { db in try self.workoutSensors(workoutUUID: workout, db) }
    }

    // MARK: Sources

    func sourcePriority(of type: HKQuantityType) async throws -> [HKSource] {
        try await read { db -> [HKSource] in
            guard let typeID = try self.existingTypeID(type.identifier, db) else { return [] }
            return try self.sourcePriority(typeID: typeID, db).map(\.source)
        }
    }

    func setSourcePriority(
        of type: HKQuantityType, _ decide: @escaping @Sendable ([HKSource]) throws -> [String]
    ) async throws {
        try await write { db in
            let typeID = try self.typeID(type.identifier, db)
            let bundles = try decide(try self.sourcePriority(typeID: typeID, db).map(\.source))
            try self.setSourcePriority(typeID: typeID, bundleIdentifiers: bundles, db)
        }
    }

    // MARK: Zones and profile

    func workoutProfile() async throws -> WorkoutProfile {
        try await read { db in try self.workoutProfile(db) }
    }

    func workoutProfileBlocking() throws -> WorkoutProfile {
        try read { db in try workoutProfile(db) }
    }

    func setWorkoutProfile(_ profile: WorkoutProfile) async throws {
        try await write { db in try self.setWorkoutProfile(profile, db) }
    }

    func zonePreferences() async throws -> ZonePreferenceInputs {
        try await read { db in
            ZonePreferenceInputs(
                profile: try self.workoutProfile(db),
                restingHeartRate: try self.latestValue(of: HKQuantityType(.restingHeartRate), db),
                functionalThresholdPower: try self.latestValue(of: HKQuantityType(.cyclingFunctionalThresholdPower), db)
            )
        }
    }

    // MARK: Workout plans

    func workoutPlan(ofWorkout workout: UUID) async throws -> Data? {
        try await read { db in try self.workoutPlan(ofWorkout: workout, db) }
    }

    func setWorkoutPlan(_ plan: Data, ofWorkout workout: UUID) async throws {
        try await write { db in
            guard let id = try self.workoutID(uuid: workout, db) else {
                throw HKError(.errorInvalidArgument, "The workout \(workout.uuidString) is not in the store.")
            }
            try self.setWorkoutPlan(plan, workoutID: id, db)
        }
    }

    func scheduledPlans() async throws -> [ScheduledPlanRecord] {
        try await read { db in try self.scheduledPlans(db) }
    }

    func schedulePlan(_ record: ScheduledPlanRecord, limit: Int) async throws -> Bool {
        try await write { db in try self.schedulePlan(record, limit: limit, db) }
    }

    func removeScheduledPlan(planID: UUID, date: String) async throws -> Bool {
        try await write { db in try self.removeScheduledPlan(planID: planID, date: date, db) }
    }

    func markScheduledPlanComplete(planID: UUID, date: String) async throws -> Bool {
        try await write { db in try self.markScheduledPlanComplete(planID: planID, date: date, db) }
    }

    func removeAllScheduledPlans() async throws {
        try await write { db in try db.execute(sql: "DELETE FROM scheduled_workout_plans") }
    }

    func addLibraryPlan(_ record: LibraryPlanRecord) async throws -> Int64 {
        try await write { db in try self.addLibraryPlan(record, db) }
    }

    func libraryPlans() async throws -> [LibraryPlanRecord] {
        try await read { db in try self.libraryPlans(id: nil, db) }
    }

    func libraryPlan(id: Int64) async throws -> LibraryPlanRecord? {
        try await read { db in try self.libraryPlans(id: id, db).first }
    }

    // MARK: Paired sensors

    func pairSensor(_ sensor: PairedSensor, at date: Date) async throws {
        try await write { db in try self.pairSensor(sensor, at: date, db) }
    }

    func unpairSensor(identifier: String) async throws -> Bool {
        try await write { db in try self.unpairSensor(identifier: identifier, db) }
    }

    func pairedSensors() async throws -> [PairedSensor] {
        try await read { db in try self.pairedSensors(db) }
    }

    // MARK: Condensing

    func condenseWorkout(_ workout: UUID, now: Date) async throws -> CondenseCounts? {
        try await write { db -> CondenseCounts? in
            guard let id = try self.workoutID(uuid: workout, db) else { return nil }
            return try self.condenseWorkout(id: id, now: now, db)
        }
    }

    func workouts(endedBefore date: Date) async throws -> [UUID] {
        try await read { db in try self.workoutUUIDs(endedBefore: date, db) }
    }

    func purgeDeletionRecords(before cutoff: Date) async throws -> Int {
        try await write { db in try self.purgeDeletionRecords(before: cutoff, db) }
    }

    // MARK: The live journal and workouts

    func createJournal(_ header: JournalHeader) async throws -> Int64 {
        try await write { db in
            try self.insertJournal(
                uuid: header.builderUUID, client: header.client, hasSession: header.hasSession,
                configuration: header.configuration, device: header.device, created: header.created.storeValue, db)
        }
    }

    func deleteJournal(builderID: Int64) async throws {
        try await write { db in try self.deleteJournal(builderID: builderID, db) }
    }

    func appendJournal(_ batch: JournalBatch, builderID: Int64) throws {
        try write { db in
            let insert = try journalRowInsert(db)
            if !batch.samples.isEmpty {
                // Ids looked up once per type and device in the batch, not once per sample.
                var typeIDs: [UInt16: Int64] = [:]
                var deviceIDs: [UInt32: Int64] = [:]
                let encoded = try SampleBatchCodec.encode(
                    batch.samples,
                    typeID: { code in
                        if let id = typeIDs[code] { return id }
                        let id = try typeID(HKQuantityType.forCode(code).identifier, db)
                        typeIDs[code] = id
                        return id
                    },
                    deviceID: { code in
                        if let id = deviceIDs[code] { return id }
                        guard let device = DeviceCodes.device(code) else { return 0 }
                        let id = try deviceID(device, db)
                        deviceIDs[code] = id
                        return id
                    })
                try insert.add(builderID: builderID, sequence: batch.samplesSequence, kind: .samples, payload: encoded)
            }
            if !batch.beats.isEmpty {
                try insert.add(
                    builderID: builderID, sequence: batch.beatsSequence, kind: .heartbeats,
                    payload: HeartbeatBatchCodec.encode(batch.beats))
            }
            if let entry = batch.entry {
                try insert.add(builderID: builderID, sequence: entry.sequence, kind: entry.kind, payload: entry.payload)
            }
        }
    }

    func finishWorkout(_ finish: WorkoutToFinish, check: ShareCheck) async throws {
        try await write { db in
            try self.verify(check, db)
            guard let workoutID = try self.insert([finish.workout], source: finish.source, db).first else {
                throw HKError(.errorDatabaseInaccessible, "The workout could not be saved.")
            }
            _ = try self.moveJournalSamples(
                builderID: finish.builderID ?? -1, extra: finish.samples, workoutID: workoutID, source: finish.source,
                db)
            if let builderID = finish.builderID {
                try self.saveHeartbeats(
                    journaledBy: builderID, then: finish.beats, workoutID: workoutID, device: finish.device,
                    source: finish.source, db)
                try self.deleteJournal(builderID: builderID, db)
            }
            let associated = try self.sampleIDs(uuids: finish.associated, db)
            for uuid in finish.associated {
                if let id = associated[uuid] { try self.associate(sampleID: id, workoutID: workoutID, db) }
            }
            try self.insertWorkoutSensors(finish.sensors, workoutID: workoutID, db)
            if let plan = finish.workoutPlan { try self.setWorkoutPlan(plan, workoutID: workoutID, db) }
        }
    }

    /// Saves heartbeats rebuilt from RR intervals — the journal's, in order, then `pending` — as heartbeat series
    /// associated with the workout, in series of at most `HKHeartbeatSeriesBuilder.maximumCount` beats. The journal
    /// is read one batch at a time and each series is saved when it is full, so memory does not grow with the
    /// workout's length. Like the quantities a data source collects, they are saved under the workout's share
    /// authorization (the caller checked `workoutType()`), as a watch saves the heartbeats of a workout whose app
    /// asked to share only the workout type.
    private func saveHeartbeats(
        journaledBy builderID: Int64, then pending: [HeartbeatCollector.Beat], workoutID: Int64, device: HKDevice?,
        source: HKSourceRevision, _ db: Database
    ) throws {
        var chunker = HeartbeatSeriesChunker(device: device, source: source)
        let save = { (series: HKHeartbeatSeriesSample) throws in
            _ = try self.insert([series], source: source, workoutID: workoutID, db)
        }
        try forEachJournalHeartbeatBatch(builderID: builderID, db) { try chunker.take($0, save) }
        try chunker.take(pending, save)
        try chunker.flush(save)
    }

    func discardRecordingBlocking(builderID: Int64, extra: [CollectedSample], source: HKSourceRevision) throws {
        try write { db in
            _ = try moveJournalSamples(
                builderID: builderID, extra: extra, workoutID: nil, source: source, onlyAppAdded: true, db)
            try deleteJournal(builderID: builderID, db)
        }
    }

    func interruptedRecording(client: String) async throws -> InterruptedRecording? {
        try await read { db -> InterruptedRecording? in
            guard let journal = try self.latestInterruptedJournal(client: client, db) else { return nil }
            let rows = try Array(self.journalRows(builderID: journal.id, db))
            let types = try Row.fetchAll(db, sql: "SELECT id, identifier FROM types")
            return InterruptedRecording(
                builderID: journal.id, configuration: journal.configuration, device: journal.device,
                rows: rows.map { .init(sequence: $0.sequence, kind: $0.kind, payload: $0.payload) },
                typeIdentifiers: Dictionary(types.map { ($0[0], $0[1]) }, uniquingKeysWith: { first, _ in first }))
        }
    }

    // MARK: Sharing

    func shareStore(with reader: String, at date: Date) async throws {
        throw HKError(
            .errorInvalidArgument,
            "A SQLite health store is one person's file and cannot be shared with \(reader): share a PostgreSQL store (postgres://…), or copy workouts into one with workout sync."
        )
    }

    func stopSharingStore(with reader: String) async throws -> Bool { false }

    func storeShares() async throws -> [StoreShare] { [] }

    // MARK: Change notifications

    func changeProbe() async throws -> (any StoreChangeProbe)? {
        guard let path else { return nil }
        return try SQLiteChangeProbe(path: path)
    }
}

/// `PRAGMA data_version` on a read-only connection of its own: SQLite changes it exactly when another connection
/// has committed. Read on the connection's own queue (GRDB's `asyncRead`), the calling task suspended.
final class SQLiteChangeProbe: StoreChangeProbe {
    private let connection: DatabaseQueue

    init(path: String) throws {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "OpenHealthKit (change watcher)"
        connection = try DatabaseQueue(path: path, configuration: configuration)
    }

    func version() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            connection.asyncRead { result in
                continuation.resume(
                    with: Result { try Int.fetchOne(try result.get(), sql: "PRAGMA data_version") ?? 0 })
            }
        }
    }
}
