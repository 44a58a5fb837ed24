import Foundation
import GRDB
import HealthKitModel
import WorkoutEngine

extension StoreDatabase {
    /// Turns rows of `SELECT s.id, s.uuid, s.type_id, s.start, s."end", s.value, s.unit, s.source_id, s.device_id,
    /// s.metadata, w.activity_type, w.duration` into samples; workouts get their events, activities and statistics.
    ///
    /// Read denial reaches into workouts: a workout another client saved shows statistics and zone groups (its own
    /// and its activities') only for the types `access` may read, as if the others had no data. A client's own
    /// workouts show everything (HealthKit's rule: a client always reads its own objects).
    func decodeSamples(
        _ db: Database, sql: String, arguments: StatementArguments, access: ReadAccess
    ) throws -> [HKSample] {
        try decodeRows(db, sql: sql, arguments: arguments, access: access).map(\.sample)
    }

    /// The same, with each sample's row id (its anchor).
    func decodeRows(
        _ db: Database, sql: String, arguments: StatementArguments,
        access: ReadAccess
    ) throws -> [(id: Int64, sample: HKSample)] {
        struct PendingWorkout {
            var index: Int
            var id: Int64
            var uuid: UUID
            var start: Date
            var end: Date
            var activityType: HKWorkoutActivityType
            var duration: Double
            var metadata: [String: Any]?
            var device: HKDevice?
            var source: HKSourceRevision
        }
        var samples: [HKSample?] = []
        var ids: [Int64] = []
        var workouts: [PendingWorkout] = []
        // Correlations, by their place in `samples`, filled with the samples they hold after the loop.
        var correlations: [Int: HKCorrelationType] = [:]
        var unitCache: [String: HKUnit] = [:]
        var typeCache: [Int64: HKSampleType] = [:]
        var sourceCache: [Int64: HKSourceRevision] = [:]
        let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try cursor.next() {
            let id: Int64 = row[0]
            ids.append(id)
            guard let uuid = row[1] as UUID? else {
                throw HKError(.errorDatabaseInaccessible, "The health store is damaged: sample \(id) has no UUID.")
            }
            let typeID: Int64 = row[2]
            let type: HKSampleType
            if let cached = typeCache[typeID] {
                type = cached
            } else {
                type = try sampleType(id: typeID, db)
                typeCache[typeID] = type
            }
            let start = Date(storeValue: row[3])
            let end = Date(storeValue: row[4])
            let sourceID: Int64 = row[7]
            let source: HKSourceRevision
            if let cached = sourceCache[sourceID] {
                source = cached
            } else {
                source = try sourceRevision(id: sourceID, db)
                sourceCache[sourceID] = source
            }
            let device = try (row[8] as Int64?).map { try self.device(id: $0, db) }
            let metadata = try MetadataCoding.decode(row[9])
            if let quantityType = type as? HKQuantityType {
                guard let stored = row[5] as Double? else {
                    throw HKError(
                        .errorDatabaseInaccessible, "The health store is damaged: quantity sample \(id) has no value.")
                }
                var quantity = HKQuantity(unit: quantityType.storageUnit, doubleValue: stored)
                if let unitString = row[6] as String? {
                    let unit: HKUnit
                    if let cached = unitCache[unitString] {
                        unit = cached
                    } else {
                        guard let parsed = try? HKUnit.parse(unitString), quantity.is(compatibleWith: parsed) else {
                            throw HKError(
                                .errorDatabaseInaccessible,
                                "The health store is damaged: sample \(id) has unit '\(unitString)'.")
                        }
                        unitCache[unitString] = parsed
                        unit = parsed
                    }
                    quantity = HKQuantity(unit: unit, doubleValue: quantity.doubleValue(for: unit))
                }
                // A series (quantity_series joined at 12…17) carries its count and discrete summary.
                let count = row.count > 12 ? (row[12] as Int?) ?? 1 : 1
                let sample: HKQuantitySample
                if quantityType.aggregationStyle == .cumulative {
                    sample = HKCumulativeQuantitySample(
                        quantityType: quantityType, quantity: quantity, startDate: start,
                        endDate: end, count: count, uuid: uuid, metadata: metadata,
                        device: device, sourceRevision: source)
                } else {
                    var summary: HKDiscreteQuantitySample.DiscreteSummary?
                    if row.count > 12, row[12] as Int? != nil, let minimum = row[13] as Double?,
                        let maximum = row[14] as Double?,
                        let recent = row[15] as Double?, let recentStart = row[16] as Double?,
                        let recentEnd = row[17] as Double?
                    {
                        summary = .init(
                            minimum: minimum, maximum: maximum, mostRecent: recent,
                            mostRecentStart: Date(storeValue: recentStart),
                            mostRecentEnd: Date(storeValue: max(recentStart, recentEnd)))
                    }
                    sample = HKDiscreteQuantitySample(
                        quantityType: quantityType, quantity: quantity, startDate: start,
                        endDate: end, count: count, uuid: uuid, metadata: metadata,
                        device: device, sourceRevision: source, summary: summary)
                }
                samples.append(sample)
            } else if type is HKWorkoutType {
                guard let raw = row[10] as Int64?, let activityType = HKWorkoutActivityType(rawValue: UInt(raw)),
                    let duration = row[11] as Double?
                else {
                    throw HKError(
                        .errorDatabaseInaccessible, "The health store is damaged: workout \(id) has no workout row.")
                }
                workouts.append(
                    PendingWorkout(
                        index: samples.count, id: id, uuid: uuid, start: start, end: end,
                        activityType: activityType, duration: duration, metadata: metadata,
                        device: device, source: source))
                samples.append(nil)
            } else if let categoryType = type as? HKCategoryType {
                guard let stored = row[5] as Double?, let value = Int(exactly: stored) else {
                    throw HKError(
                        .errorDatabaseInaccessible,
                        "The health store is damaged: category sample \(id) has no whole value.")
                }
                samples.append(
                    HKCategorySample(
                        categoryType: categoryType, value: value, startDate: start, endDate: end, uuid: uuid,
                        metadata: metadata, device: device, sourceRevision: source))
            } else if type.identifier == HKDataTypeIdentifierHeartbeatSeries {
                let count =
                    try Int.fetchOne(
                        db.cachedStatement(sql: "SELECT count FROM heartbeat_series WHERE sample_id = ?"),
                        arguments: [id]) ?? 0
                samples.append(
                    HKHeartbeatSeriesSample(
                        count: count, startDate: start, endDate: end, uuid: uuid, metadata: metadata,
                        device: device, sourceRevision: source, beats: nil))
            } else if type.identifier == HKWorkoutRouteTypeIdentifier {
                let count =
                    try Int.fetchOne(
                        db.cachedStatement(sql: "SELECT count FROM workout_routes WHERE sample_id = ?"),
                        arguments: [id]) ?? 0
                samples.append(
                    HKWorkoutRoute(
                        count: count, startDate: start, endDate: end, uuid: uuid, metadata: metadata,
                        device: device, sourceRevision: source, locations: nil))
            } else if let correlationType = type as? HKCorrelationType {
                correlations[samples.count] = correlationType
                samples.append(
                    StoredCorrelations.correlation(
                        type: correlationType, objects: [], start: start, end: end, uuid: uuid, metadata: metadata,
                        device: device, source: source, access: access))
            } else {
                throw HKError(
                    .errorDatabaseInaccessible, "Samples of type \(type.identifier) cannot be read by this version.")
            }
        }
        if !correlations.isEmpty {
            let held = try heldSamples(ofCorrelations: correlations.keys.map { ids[$0] }, access: access, db)
            for (index, type) in correlations {
                guard let bare = samples[index] else { continue }
                samples[index] = StoredCorrelations.filled(
                    bare, type: type, objects: held[ids[index]] ?? [], access: access)
            }
        }
        if !workouts.isEmpty {
            let restricted =
                access.readableTypes == nil
                ? []
                : Set(
                    workouts.filter {
                        $0.source.source.bundleIdentifier != access.clientIdentifier
                    }.map(\.id))
            let details = try workoutDetails(ids: workouts.map(\.id), restricted: restricted, access: access, db)
            for pending in workouts {
                let detail = details[pending.id] ?? WorkoutDetails()
                samples[pending.index] = HKWorkout(
                    activityType: pending.activityType, startDate: pending.start,
                    endDate: pending.end, duration: pending.duration, events: detail.events,
                    activities: detail.activities, statistics: detail.statistics,
                    uuid: pending.uuid, metadata: pending.metadata, device: pending.device,
                    sourceRevision: pending.source, zoneGroups: detail.zoneGroups)
            }
        }
        return zip(ids, samples).map { ($0, $1!) }
    }

    /// The samples the given correlations hold, by correlation row id.
    private func heldSamples(
        ofCorrelations ids: [Int64], access: ReadAccess, _ db: Database
    ) throws -> [Int64: [HKSample]] {
        var held: [Int64: [HKSample]] = [:]
        for start in stride(from: 0, to: ids.count, by: 500) {
            let list = ids[start ..< min(ids.count, start + 500)].map(String.init).joined(separator: ",")
            let owners = Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(
                    db, sql: "SELECT id, correlation_id FROM samples WHERE correlation_id IN (\(list))"
                ).map { ($0[0] as Int64, $0[1] as Int64) })
            for (id, sample) in try decodeRows(
                db, sql: Self.sampleSelect + " WHERE s.correlation_id IN (\(list)) ORDER BY s.id", arguments: [],
                access: access)
            {
                if let owner = owners[id] { held[owner, default: []].append(sample) }
            }
        }
        return held
    }

    struct WorkoutDetails {
        var events: [HKWorkoutEvent] = []
        var activities: [HKWorkoutActivity] = []
        var statistics: [HKQuantityType: HKStatistics] = [:]
        var zoneGroups: [HKQuantityType: HKWorkoutZoneGroup]?
    }

    /// Events, activities and statistics of the given workouts, loaded in a few statements.
    /// `restricted`: the workouts whose statistics and zones are limited to the types `access` may read.
    private func workoutDetails(
        ids: [Int64], restricted: Set<Int64>, access: ReadAccess,
        _ db: Database
    ) throws -> [Int64: WorkoutDetails] {
        func hidden(_ type: HKQuantityType, in workout: Int64) -> Bool {
            restricted.contains(workout) && !access.canRead(type.identifier)
        }
        var details: [Int64: WorkoutDetails] = [:]
        for chunkStart in stride(from: 0, to: ids.count, by: 500) {
            let chunk = ids[chunkStart ..< min(ids.count, chunkStart + 500)]
            let list = chunk.map(String.init).joined(separator: ",")
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT workout_id, type, start, "end", metadata FROM workout_events
                    WHERE workout_id IN (\(list)) ORDER BY workout_id, position
                    """)
            {
                guard let type = HKWorkoutEventType(rawValue: row[1]) else {
                    throw HKError(
                        .errorDatabaseInaccessible,
                        "The health store holds a workout event of unknown type \(row[1] as Int).")
                }
                let start = Date(storeValue: row[2])
                let end = max(start, Date(storeValue: row[3]))
                let event = HKWorkoutEvent(
                    type: type, dateInterval: DateInterval(start: start, end: type.mayHaveDuration ? end : start),
                    metadata: try MetadataCoding.decode(row[4]))
                details[row[0], default: WorkoutDetails()].events.append(event)
            }
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT workout_id, type_id, start, "end", sum, average, minimum, maximum, most_recent, most_recent_start,
                           most_recent_end, duration FROM workout_statistics WHERE workout_id IN (\(list))
                    """)
            {
                let statistics = try decodeStatistics(row, db)
                guard !hidden(statistics.quantityType, in: row[0]) else { continue }
                details[row[0], default: WorkoutDetails()].statistics[statistics.quantityType] = statistics
            }
            var zones = try zoneGroups(workoutIDs: list, db)
            for (workoutID, groups) in zones.workouts {
                details[workoutID, default: WorkoutDetails()].zoneGroups = groups.filter {
                    !hidden($0.key, in: workoutID)
                }
            }
            var activityStatistics: [Int64: [HKQuantityType: HKStatistics]] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT st.activity_id, st.type_id, st.start, st."end", st.sum, st.average, st.minimum, st.maximum,
                           st.most_recent, st.most_recent_start, st.most_recent_end, st.duration, a.workout_id
                    FROM activity_statistics st JOIN workout_activities a ON a.id = st.activity_id
                    WHERE a.workout_id IN (\(list))
                    """)
            {
                let statistics = try decodeStatistics(row, db)
                guard !hidden(statistics.quantityType, in: row[12]) else { continue }
                activityStatistics[row[0], default: [:]][statistics.quantityType] = statistics
            }
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT workout_id, id, uuid, activity_type, location_type, swimming_location_type, lap_length_meters,
                           start, "end", metadata FROM workout_activities WHERE workout_id IN (\(list)) ORDER BY start
                    """)
            {
                if restricted.contains(row[0]), let groups = zones.activities[row[1]] {
                    zones.activities[row[1]] = groups.filter { access.canRead($0.key.identifier) }
                }
                let configuration = HKWorkoutConfiguration()
                guard let activityType = HKWorkoutActivityType(rawValue: UInt(row[3] as Int64)),
                    let location = HKWorkoutSessionLocationType(rawValue: row[4]),
                    let swimming = HKWorkoutSwimmingLocationType(rawValue: row[5])
                else {
                    throw HKError(.errorDatabaseInaccessible, "The health store holds a damaged workout activity.")
                }
                configuration.activityType = activityType
                configuration.locationType = location
                configuration.swimmingLocationType = swimming
                configuration.lapLength = (row[6] as Double?).map { HKQuantity(unit: .meter(), doubleValue: $0) }
                let activity = HKWorkoutActivity(
                    uuid: row[2], configuration: configuration, startDate: Date(storeValue: row[7]),
                    endDate: (row[8] as Double?).map(Date.init(storeValue:)),
                    metadata: try MetadataCoding.decode(row[9]), parentEvents: [],
                    statistics: activityStatistics[row[1]] ?? [:],
                    zoneGroups: zones.activities[row[1]])
                details[row[0], default: WorkoutDetails()].activities.append(activity)
            }
        }
        return details
    }

    private func decodeStatistics(_ row: Row, _ db: Database) throws -> HKStatistics {
        guard let type = try sampleType(id: row[1], db) as? HKQuantityType else {
            throw HKError(
                .errorDatabaseInaccessible, "The health store holds statistics of a type that is not a quantity type.")
        }
        var values = HKStatistics.Values(
            sum: row[4], average: row[5], minimum: row[6], maximum: row[7], mostRecent: row[8],
            duration: row[11])
        if let start = row[9] as Double?, let end = row[10] as Double? {
            values.mostRecentInterval = DateInterval(
                start: Date(storeValue: start), end: Date(storeValue: max(start, end)))
        }
        return HKStatistics(
            quantityType: type, startDate: Date(storeValue: row[2]), endDate: Date(storeValue: row[3]),
            merged: values)
    }
}
