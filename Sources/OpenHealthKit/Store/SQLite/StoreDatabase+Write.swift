import Foundation
import GRDB
import HealthKitModel
import WorkoutEngine

extension StoreDatabase {
    /// Inserts objects in one transaction's worth of statements (the caller owns the transaction).
    ///
    /// Objects already stored (same UUID) are left as they are. Returns the row id of every object, in order.
    ///
    /// With `workoutID`, every sample is associated with that workout (`HKHealthStore.add(_:to:)`).
    func insert(
        _ objects: [HKObject], source: HKSourceRevision, workoutID: Int64? = nil, _ db: Database
    ) throws -> [Int64] {
        let sourceRowID = try self.sourceID(source, db)
        let insertSample = try SampleInsert(db)
        var stored = try storedIDs(of: objects.compactMap { $0 as? HKSample }, db)
        var ids: [Int64] = []
        ids.reserveCapacity(objects.count)
        for object in objects {
            guard let sample = object as? HKSample else {
                throw HKError(.errorInvalidArgument, "Only samples can be saved; \(type(of: object)) is not one.")
            }
            let typeRowID = try self.typeID(sample.sampleType.identifier, db)
            let deviceRowID: Int64? = try sample.device.map { try self.deviceID($0, db) }
            var value: Double?
            var unit: String?
            if let quantitySample = sample as? HKQuantitySample {
                let storageUnit = quantitySample.quantityType.storageUnit
                let quantity = quantitySample.quantity
                value = quantity.doubleValue(for: storageUnit)
                let ownUnit = quantity.unit
                if ownUnit != storageUnit { unit = ownUnit.unitString }
            } else if let categorySample = sample as? HKCategorySample {
                // A category sample's value is its category value, without a unit (StoreSchema v13).
                value = Double(categorySample.value)
            }
            if let existing = stored[sample.uuid] {
                // Already stored: saving an object twice is harmless; adding it to a workout associates it.
                if let workoutID { try associate(sampleID: existing, workoutID: workoutID, db) }
                ids.append(existing)
                continue
            }
            let id = try insertSample(
                uuid: sample.uuid, typeID: typeRowID, start: sample.startDate.storeValue,
                end: sample.endDate.storeValue, value: value, unit: unit, sourceID: sourceRowID,
                deviceID: deviceRowID, metadata: try MetadataCoding.encode(sample.metadata),
                workoutID: workoutID)
            ids.append(id)
            // The same object twice in one save is stored once.
            stored[sample.uuid] = id
            if let workout = sample as? HKWorkout {
                try insertWorkoutDetails(workout, id: id, db)
            } else if let series = sample as? HKHeartbeatSeriesSample {
                guard let beats = series.beats else {
                    throw HKError(
                        .errorInvalidArgument, "A heartbeat series can only be saved by the builder that made it.")
                }
                try db.execute(
                    sql: "INSERT INTO heartbeat_series (sample_id, count, beats) VALUES (?, ?, ?)",
                    arguments: [id, beats.count, Data(HeartbeatSeriesCodec.encode(beats))])
            } else if let route = sample as? HKWorkoutRoute {
                guard let locations = route.locations else {
                    throw HKError(
                        .errorInvalidArgument, "A workout route can only be saved by the builder that made it.")
                }
                try db.execute(
                    sql: "INSERT INTO workout_routes (sample_id, count, locations) VALUES (?, ?, ?)",
                    arguments: [id, locations.count, Data(WorkoutRouteCodec.encode(locations))])
            }
        }
        return ids
    }

    private func insertWorkoutDetails(_ workout: HKWorkout, id: Int64, _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO workouts (sample_id, uuid, activity_type, duration) VALUES (?, ?, ?, ?)",
            arguments: [id, workout.uuid, Int64(workout.workoutActivityType.rawValue), workout.duration])
        for (position, event) in (workout.workoutEvents ?? []).enumerated() {
            try db.execute(
                sql: """
                    INSERT INTO workout_events (workout_id, position, type, start, "end", metadata) VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    id, position, event.type.rawValue, event.dateInterval.start.storeValue,
                    event.dateInterval.end.storeValue, try MetadataCoding.encode(event.metadata),
                ])
        }
        for (type, statistics) in workout.allStatistics {
            try insertStatistics(
                statistics, table: "workout_statistics", owner: "workout_id", ownerID: id,
                typeID: typeID(type.identifier, db), db)
        }
        try insertZoneGroups(workout.zoneGroupsByType, workoutID: id, activityID: nil, db)
        for activity in workout.workoutActivities {
            let configuration = activity.workoutConfiguration
            try db.execute(
                sql: """
                    INSERT INTO workout_activities (uuid, workout_id, activity_type, location_type, swimming_location_type,
                        lap_length_meters, start, "end", duration, metadata)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    activity.uuid, id, Int64(configuration.activityType.rawValue), configuration.locationType.rawValue,
                    configuration.swimmingLocationType.rawValue,
                    configuration.lapLength.map { $0.doubleValue(for: .meter()) },
                    activity.startDate.storeValue, activity.endDate?.storeValue, activity.duration,
                    try MetadataCoding.encode(activity.metadata),
                ])
            let activityID = db.lastInsertedRowID
            try insertZoneGroups(activity.zoneGroupsByType, workoutID: id, activityID: activityID, db)
            for (type, statistics) in activity.allStatistics {
                try insertStatistics(
                    statistics, table: "activity_statistics", owner: "activity_id", ownerID: activityID,
                    typeID: typeID(type.identifier, db), db)
            }
        }
    }

    private func insertStatistics(
        _ statistics: HKStatistics, table: String, owner: String, ownerID: Int64, typeID: Int64,
        _ db: Database
    ) throws {
        let v = statistics.merged
        try db.execute(
            sql: """
                INSERT INTO \(table) (\(owner), type_id, start, "end", sum, average, minimum, maximum, most_recent,
                                      most_recent_start, most_recent_end, duration)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                ownerID, typeID, statistics.startDate.storeValue, statistics.endDate.storeValue, v.sum, v.average,
                v.minimum, v.maximum, v.mostRecent, v.mostRecentInterval?.start.storeValue,
                v.mostRecentInterval?.end.storeValue, v.duration,
            ])
    }

    /// The row id of a stored workout, or nil.
    func workoutID(uuid: UUID, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT sample_id FROM workouts WHERE uuid = ?"), arguments: [uuid])
    }

    /// The row ids of stored samples of any type, by UUID (a UUID not stored is missing). UUIDs are not indexed (see
    /// the schema): each 5,000 UUIDs cost one scan of the table, so a caller asks for all it needs at once.
    func sampleIDs(uuids: [UUID], _ db: Database) throws -> [UUID: Int64] {
        var ids: [UUID: Int64] = [:]
        for first in stride(from: 0, to: uuids.count, by: 5_000) {
            let slice = uuids[first ..< min(first + 5_000, uuids.count)]
            let list = Array(repeating: "?", count: slice.count).joined(separator: ",")
            let rows = try Row.fetchAll(
                db, sql: "SELECT uuid, id FROM samples WHERE uuid IN (\(list)) ORDER BY id",
                arguments: StatementArguments(Array(slice)))
            for row in rows {
                let uuid: UUID = row[0]
                if ids[uuid] == nil { ids[uuid] = row[1] }
            }
        }
        return ids
    }

    /// The source of a stored sample, or nil.
    func sourceID(ofSample id: Int64, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT source_id FROM samples WHERE id = ?"), arguments: [id])
    }

    /// The ids of the samples matching a compiled condition (over `s`, workouts joined as `w`) saved by these sources.
    func sampleIDs(matching condition: SQLFragment, sources: [Int64], _ db: Database) throws -> [Int64] {
        try Int64.fetchAll(
            db,
            sql: """
                SELECT s.id FROM samples s LEFT JOIN workouts w ON w.sample_id = s.id
                WHERE \(condition.sql) AND s.source_id IN (\(sources.map(String.init).joined(separator: ",")))
                """, arguments: StatementArguments(condition.arguments))
    }

    /// The row ids of those samples that are already stored, by UUID: one query per type and batch, through the
    /// (type, start) index over the batch's time range.
    func storedIDs(of samples: [HKSample], _ db: Database) throws -> [UUID: Int64] {
        var byType: [String: [HKSample]] = [:]
        for sample in samples { byType[sample.sampleType.identifier, default: []].append(sample) }
        var found: [UUID: Int64] = [:]
        for (identifier, group) in byType {
            guard let typeID = try existingTypeID(identifier, db) else { continue }
            for chunk in stride(from: 0, to: group.count, by: 500).map({ group[$0 ..< min(group.count, $0 + 500)] }) {
                var low = Double.infinity
                var high = -Double.infinity
                for sample in chunk {
                    low = min(low, sample.startDate.storeValue)
                    high = max(high, sample.startDate.storeValue)
                }
                let list = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                var arguments: [any DatabaseValueConvertible] = [typeID, low, high]
                arguments += chunk.map(\.uuid)
                let rows = try Row.fetchAll(
                    db,
                    sql:
                        "SELECT id, uuid FROM samples WHERE type_id = ? AND start BETWEEN ? AND ? AND uuid IN (\(list))",
                    arguments: StatementArguments(arguments))
                for row in rows { found[row[1]] = row[0] }
            }
        }
        return found
    }

    /// The row id of a sample if it is stored, found through its type and start date.
    func storedID(of sample: HKSample, typeID: Int64, _ db: Database) throws -> Int64? {
        let statement = try db.cachedStatement(
            sql: "SELECT id FROM samples WHERE type_id = ? AND start = ? AND uuid = ?")
        return try Int64.fetchOne(statement, arguments: [typeID, sample.startDate.storeValue, sample.uuid])
    }

    /// Associates a stored sample with a stored workout: in the sample's row the first time, in `workout_samples`
    /// after that.
    func associate(sampleID: Int64, workoutID: Int64, _ db: Database) throws {
        guard sampleID != workoutID else { return }
        let current =
            try Int64?.fetchOne(
                db.cachedStatement(sql: "SELECT workout_id FROM samples WHERE id = ?"), arguments: [sampleID]) ?? nil
        switch current {
        case nil:
            try db.cachedStatement(sql: "UPDATE samples SET workout_id = ? WHERE id = ?").execute(arguments: [
                workoutID, sampleID,
            ])
        case workoutID:
            return
        default:
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO workout_samples (workout_id, sample_id) VALUES (?, ?)")
                .execute(arguments: [workoutID, sampleID])
        }
    }

    /// Deletes the samples with these ids, recording each in `deleted_objects` under a fresh anchor.
    /// Returns how many were deleted.
    func deleteSamples(ids: [Int64], now: Date, _ db: Database) throws -> Int {
        guard !ids.isEmpty else { return 0 }
        // The samples a deleted correlation holds go with it (StoredCorrelations); they are not counted.
        let held = try heldSampleIDs(ofCorrelations: ids, db)
        let select = try db.cachedStatement(sql: "SELECT uuid, type_id, source_id, metadata FROM samples WHERE id = ?")
        let record = try db.cachedStatement(
            sql:
                "INSERT INTO deleted_objects (anchor, uuid, type_id, source_id, metadata, deleted) VALUES (?, ?, ?, ?, ?, ?)"
        )
        let delete = try db.cachedStatement(sql: "DELETE FROM samples WHERE id = ?")
        var count = 0
        for id in ids {
            guard let row = try Row.fetchOne(select, arguments: [id]) else { continue }
            try record.execute(arguments: [
                try nextAnchor(db), row[0] as Data, row[1] as Int64, row[2] as Int64, row[3] as String?,
                now.storeValue,
            ])
            try delete.execute(arguments: [id])
            count += 1
        }
        if !held.isEmpty { _ = try deleteSamples(ids: held, now: now, db) }
        return count
    }

    /// Takes the next value of the samples' id sequence, so deletions and insertions share one anchor order.
    func nextAnchor(_ db: Database) throws -> Int64 {
        let current = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'samples'") ?? 0
        let maxID = try Int64.fetchOne(db, sql: "SELECT max(id) FROM samples") ?? 0
        let next = max(current, maxID) + 1
        if try Int64.fetchOne(db, sql: "SELECT count(*) FROM sqlite_sequence WHERE name = 'samples'") == 0 {
            try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) VALUES ('samples', ?)", arguments: [next])
        } else {
            try db.execute(sql: "UPDATE sqlite_sequence SET seq = ? WHERE name = 'samples'", arguments: [next])
        }
        return next
    }

    /// Inserts objects, each correlation with the samples it holds (StoredCorrelations): the correlation's row, then
    /// theirs, each naming it. A sample some correlation already holds stays with that one.
    func insertWithCorrelations(_ objects: [HKObject], source: HKSourceRevision, _ db: Database) throws {
        let (rows, links) = StoredCorrelations.rows(objects)
        let ids = try insert(rows, source: source, db)
        for link in links where !link.objects.isEmpty {
            let held = link.objects.map { String(ids[$0]) }.joined(separator: ",")
            try db.execute(
                sql: "UPDATE samples SET correlation_id = ? WHERE id IN (\(held)) AND correlation_id IS NULL",
                arguments: [ids[link.correlation]])
        }
    }

    /// The row ids of the samples the given rows hold as correlations (none for rows that are not correlations).
    func heldSampleIDs(ofCorrelations ids: [Int64], _ db: Database) throws -> [Int64] {
        var held: [Int64] = []
        for start in stride(from: 0, to: ids.count, by: 500) {
            let list = ids[start ..< min(ids.count, start + 500)].map(String.init).joined(separator: ",")
            held += try Int64.fetchAll(
                db, sql: "SELECT id FROM samples WHERE correlation_id IN (\(list)) ORDER BY id")
        }
        return held
    }
}
