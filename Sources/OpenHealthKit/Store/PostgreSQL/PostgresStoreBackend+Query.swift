import Foundation
import PostgresNIO

/// Predicates compiled to PostgreSQL, and samples read back: the same rules as the SQLite backend's
/// `StoreDatabase+Read` (``PredicateNode``, ``DateRangeRule``, ``SortColumns``, ``ReadAccess``).
extension PostgresStoreBackend {
    /// Compiles a predicate node over samples (`s`, workouts joined as `w`), or over workout activities (`a`) with
    /// `inActivities`.
    func compile(
        _ node: PredicateNode, isWorkout: Bool, type: HKSampleType?, inActivities: Bool = false
    ) throws -> PostgresStatement {
        func comparison(_ comparison: PredicateNode.Comparison?) throws -> PredicateNode.Comparison {
            guard let comparison else {
                throw HKError(.errorInvalidArgument, "HealthKit predicates compare with <, <=, >, >=, == or != only.")
            }
            return comparison
        }
        func list(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ",") }
        func inner(_ node: PredicateNode) throws -> PostgresStatement {
            try compile(node, isWorkout: isWorkout, type: type, inActivities: inActivities)
        }
        switch node {
        case .activityType, .activityDuration, .activityDates, .activityStatistic:
            guard inActivities else {
                throw HKError(
                    .errorInvalidArgument,
                    "Workout-activity predicates must be wrapped in HKQuery.predicateForWorkouts(activityPredicate:).")
            }
        case .uuids, .associatedWithWorkout, .effortRelated, .noCorrelation, .sampleDates, .workoutActivityType,
            .workoutDuration,
            .workoutStatistic, .workoutsWithActivity, .filter, .quantity:
            if inActivities {
                throw HKError(
                    .errorInvalidArgument,
                    "Only workout-activity predicates may be used inside predicateForWorkouts(activityPredicate:).")
            }
        case .constant, .and, .or, .not, .foreign, .invalid:
            break
        }
        switch node {
        case .constant(let value):
            return PostgresStatement(value ? "TRUE" : "FALSE")
        case .and(let nodes):
            return .joined(try nodes.map(inner), with: "AND", empty: "TRUE")
        case .or(let nodes):
            return .joined(try nodes.map(inner), with: "OR", empty: "FALSE")
        case .not(let inner):
            let fragment = try compile(inner, isWorkout: isWorkout, type: type, inActivities: inActivities)
            return PostgresStatement("(NOT \(fragment.sql))", fragment.values)
        case .foreign(let format):
            throw HKError(
                .errorInvalidArgument,
                "The predicate \(format) cannot run in the health store; build predicates with HKQuery's predicate functions and NSCompoundPredicate."
            )
        case .invalid(let reason):
            throw HKError(.errorInvalidArgument, reason)
        case .uuids(let uuids):
            guard !uuids.isEmpty else { return PostgresStatement("FALSE") }
            return PostgresStatement("s.uuid IN (\(list(uuids.count)))", uuids.map(PostgresValue.uuid))
        case .noCorrelation:
            return PostgresStatement("s.correlation_id IS NULL")
        case .associatedWithWorkout(let uuid):
            return PostgresStatement(
                """
                s.id IN (SELECT a.id FROM samples a WHERE a.workout_id = (SELECT sample_id FROM workouts WHERE uuid = ?)
                         UNION ALL
                         SELECT ws.sample_id FROM workout_samples ws
                         WHERE ws.workout_id = (SELECT sample_id FROM workouts WHERE uuid = ?))
                """, [.uuid(uuid), .uuid(uuid)])
        case let .sampleDates(start, end, options):
            let (sql, arguments) = DateRangeRule(start: start, end: end, options: options)
                .sql(startColumn: "s.start", endColumn: "s.\"end\"")
            return PostgresStatement(sql == "1" ? "TRUE" : sql, arguments.map(PostgresValue.real))
        case .workoutActivityType(let activityType):
            return isWorkout
                ? PostgresStatement("w.activity_type = ?", [.integer(Int64(activityType.rawValue))])
                : PostgresStatement("FALSE")
        case let .workoutDuration(op, value):
            let op = try comparison(op)
            return isWorkout ? PostgresStatement("w.duration \(op.sql) ?", [.real(value)]) : PostgresStatement("FALSE")
        case let .quantity(op, quantity):
            let op = try comparison(op)
            guard let quantityType = type as? HKQuantityType else { return PostgresStatement("FALSE") }
            guard quantityType.is(compatibleWith: quantity.unit) else {
                throw HKError(
                    .errorInvalidArgument,
                    "The quantity \(quantity) cannot be compared with \(quantityType.identifier) samples: its unit does not fit."
                )
            }
            return PostgresStatement(
                "s.value \(op.sql) ?", [.real(quantity.doubleValue(for: quantityType.storageUnit))])
        case let .workoutStatistic(types, statistic, op, value):
            let op = try comparison(op)
            guard isWorkout else { return PostgresStatement("FALSE") }
            return PostgresStatement(
                """
                EXISTS (SELECT 1 FROM workout_statistics st JOIN types t ON t.id = st.type_id
                        WHERE st.workout_id = s.id AND t.identifier IN (\(list(types.count)))
                          AND st.\(statistic.rawValue) \(op.sql) ?)
                """, types.map(PostgresValue.text) + [.real(value)])
        case .filter(let filter):
            return try compile(filter)
        case let .effortRelated(workout, activity):
            // IS NOT DISTINCT FROM NULL matches the relationships with the workout itself.
            return PostgresStatement(
                """
                s.id IN (SELECT e.sample_id FROM workout_effort e
                         WHERE e.workout_id = (SELECT sample_id FROM workouts WHERE uuid = ?)
                           AND e.activity_uuid IS NOT DISTINCT FROM ?::uuid)
                """, [.uuid(workout), activity.map(PostgresValue.uuid) ?? .null])
        case .workoutsWithActivity(let activity):
            guard isWorkout else { return PostgresStatement("FALSE") }
            let fragment = try compile(activity, isWorkout: false, type: nil, inActivities: true)
            return PostgresStatement(
                "EXISTS (SELECT 1 FROM workout_activities a WHERE a.workout_id = s.id AND \(fragment.sql))",
                fragment.values)
        case .activityType(let activityType):
            return PostgresStatement("a.activity_type = ?", [.integer(Int64(activityType.rawValue))])
        case let .activityDuration(op, value):
            return PostgresStatement("a.duration \(try comparison(op).sql) ?", [.real(value)])
        case let .activityDates(start, end, options):
            let (sql, arguments) = DateRangeRule(start: start, end: end, options: options)
                .sql(startColumn: "a.start", endColumn: "coalesce(a.\"end\", 1e300)")
            return PostgresStatement(sql == "1" ? "TRUE" : sql, arguments.map(PostgresValue.real))
        case let .activityStatistic(identifier, statistic, op, value):
            let op = try comparison(op)
            return PostgresStatement(
                """
                EXISTS (SELECT 1 FROM activity_statistics st JOIN types t ON t.id = st.type_id
                        WHERE st.activity_id = a.id AND t.identifier = ? AND st.\(statistic.rawValue) \(op.sql) ?)
                """, [.text(identifier), .real(value)])
        }
    }

    /// The SQL of the source, device and metadata predicates (``ObjectFilter``): metadata is read as `jsonb` from
    /// the text ``MetadataCoding`` writes (`{"key": {"s": …}}`, `n`/`i`/`q` numbers, `b`, `d`).
    private func compile(_ filter: ObjectFilter) throws -> PostgresStatement {
        func list(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ",") }
        func stored(_ value: ObjectFilter.MetadataValue, _ key: String) -> (String, [PostgresValue]) {
            let entry = "(s.metadata::jsonb -> ?)"
            switch value {
            case .string(let v): return ("(\(entry) ->> 's')", [.text(key), .text(v)])
            case .bool(let v): return ("(\(entry) ->> 'b')::boolean", [.text(key), .boolean(v)])
            case .date(let v): return ("(\(entry) ->> 'd')::float8", [.text(key), .real(v)])
            case .number(let v):
                return (
                    "coalesce((\(entry) ->> 'n')::float8, (\(entry) ->> 'i')::float8, (\(entry) -> 'q' ->> 0)::float8)",
                    [.text(key), .text(key), .text(key), .real(v)]
                )
            }
        }
        switch filter {
        case .sources(let bundles):
            guard !bundles.isEmpty else { return PostgresStatement("FALSE") }
            return PostgresStatement(
                "s.source_id IN (SELECT id FROM sources WHERE bundle_identifier IN (\(list(bundles.count))))",
                bundles.map(PostgresValue.text))
        case .sourceRevisions(let revisions):
            guard !revisions.isEmpty else { return PostgresStatement("FALSE") }
            let parts = revisions.map { revision -> PostgresStatement in
                if let version = revision.version, version != HKSourceRevisionAnyVersion {
                    return PostgresStatement(
                        "(bundle_identifier = ? AND version = ?)", [.text(revision.bundle), .text(version)])
                } else if revision.version == HKSourceRevisionAnyVersion {
                    return PostgresStatement("bundle_identifier = ?", [.text(revision.bundle)])
                } else {
                    return PostgresStatement("(bundle_identifier = ? AND version IS NULL)", [.text(revision.bundle)])
                }
            }
            let condition = PostgresStatement.joined(parts, with: "OR", empty: "FALSE")
            return PostgresStatement(
                "s.source_id IN (SELECT id FROM sources WHERE \(condition.sql))", condition.values)
        case .devices(let devices):
            guard !devices.isEmpty else { return PostgresStatement("FALSE") }
            let keys = devices.map { $0.map { $0 ?? "\u{2}" }.joined(separator: "\u{1}") }
            return PostgresStatement(
                "s.device_id IN (SELECT id FROM devices WHERE key IN (\(list(keys.count))))",
                keys.map(PostgresValue.text))
        case let .deviceProperty(key, values):
            guard let column = ObjectFilter.devicePropertyColumns[key] else {
                throw HKError(.errorInvalidArgument, "'\(key)' is not a device property key (HKDevicePropertyKey…).")
            }
            guard !values.isEmpty else { return PostgresStatement("FALSE") }
            return PostgresStatement(
                "s.device_id IN (SELECT id FROM devices WHERE \(column) IN (\(list(values.count))))",
                values.map(PostgresValue.text))
        case .metadataKey(let key):
            return PostgresStatement("(s.metadata::jsonb -> ?) IS NOT NULL", [.text(key)])
        case let .metadataValues(key, values):
            let parts = values.map { value in
                let (expression, arguments) = stored(value, key)
                return PostgresStatement("\(expression) = ?", arguments)
            }
            return .joined(parts, with: "OR", empty: "FALSE")
        case let .metadataComparison(key, comparison, value):
            guard let comparison else {
                throw HKError(.errorInvalidArgument, "HealthKit predicates compare with <, <=, >, >=, == or != only.")
            }
            let (expression, arguments) = stored(value, key)
            return PostgresStatement("\(expression) \(comparison.sql) ?", arguments)
        }
    }

    /// The WHERE clause for a set of descriptors, with the privacy rule applied per type; nil when none can match.
    func whereClause(
        for descriptors: [HKQueryDescriptor], access: ReadAccess, _ c: PostgresConnection
    ) async throws -> PostgresStatement? {
        var parts: [PostgresStatement] = []
        for descriptor in descriptors {
            let identifier = descriptor.sampleType.identifier
            let compiled = try descriptor.predicate.map {
                try compile(
                    PredicateNode($0), isWorkout: descriptor.sampleType is HKWorkoutType, type: descriptor.sampleType)
            }
            guard let typeID = try await existingTypeID(identifier, c) else { continue }
            var fragment = PostgresStatement("s.type_id = ?", [.integer(typeID)])
            if !access.canRead(identifier) {
                fragment.sql += " AND s.source_id IN (SELECT id FROM sources WHERE bundle_identifier = ?)"
                fragment.values.append(.text(access.clientIdentifier))
            }
            if let compiled {
                fragment.sql += " AND " + compiled.sql
                fragment.values += compiled.values
            }
            parts.append(PostgresStatement("(" + fragment.sql + ")", fragment.values))
        }
        return parts.isEmpty ? nil : .joined(parts, with: "OR", empty: "FALSE")
    }

    static let sampleSelect = """
        SELECT s.id, s.uuid, s.type_id, s.start, s."end", s.value, s.unit, s.source_id, s.device_id, s.metadata,
               w.activity_type, w.duration, hb.count, r.count,
               q.count, q.minimum, q.maximum, q.most_recent, q.most_recent_start, q.most_recent_end
        FROM samples s LEFT JOIN workouts w ON w.sample_id = s.id
             LEFT JOIN heartbeat_series hb ON hb.sample_id = s.id LEFT JOIN workout_routes r ON r.sample_id = s.id
             LEFT JOIN quantity_series q ON q.sample_id = s.id
        """

    /// Fetches the samples matching the descriptors, sorted and limited.
    func fetchSamples(
        _ descriptors: [HKQueryDescriptor], limit: Int, sorts: [SampleSort], access: ReadAccess,
        _ c: PostgresConnection
    ) async throws -> [HKSample] {
        guard var condition = try await whereClause(for: descriptors, access: access, c) else { return [] }
        var terms: [String]? = []
        for sort in sorts {
            guard let keyPath = sort.keyPath, let column = SortColumns.column(for: keyPath) else {
                terms = nil
                break
            }
            terms?.append("\(column) \(sort.ascending ? "ASC" : "DESC")")
        }
        let order = terms.map { ($0 + ["s.id ASC"]).joined(separator: ", ") }
        condition.sql = Self.sampleSelect + " WHERE \(condition.sql) ORDER BY \(order ?? "s.id ASC")"
        if limit > 0, order != nil {
            condition.sql += " LIMIT ?"
            condition.values.append(.integer(Int64(limit)))
        }
        var samples = try await decodeRows(condition, access: access, c).map(\.sample)
        if order == nil {
            samples.sort { a, b in
                for sort in sorts {
                    let result = sort.compare(a, b)
                    if result != .orderedSame { return result == .orderedAscending }
                }
                return false
            }
            if limit > 0 && samples.count > limit { samples.removeLast(samples.count - limit) }
        }
        return samples
    }

    /// Turns rows of ``sampleSelect`` into samples with their ids; workouts get their events, activities and
    /// statistics (statistics of types `access` may not read hidden in other clients' workouts).
    func decodeRows(
        _ statement: PostgresStatement, access: ReadAccess, _ c: PostgresConnection
    ) async throws -> [(id: Int64, sample: HKSample)] {
        let rows = try await c.rows(statement)
        guard !rows.isEmpty else { return [] }
        let types = try await typesByID(c)
        var sources: [Int64: HKSourceRevision] = [:]
        var devices: [Int64: HKDevice] = [:]
        var result: [(id: Int64, sample: HKSample)] = []
        // Correlations, by their place in `result`, filled with the samples they hold after the loop.
        var correlations: [Int: HKCorrelationType] = [:]
        for row in rows {
            let id: Int64 = try row.at(0)
            let uuid: UUID = try row.at(1)
            let typeID: Int64 = try row.at(2)
            guard let identifier = types[typeID] else {
                throw HKError(.errorDatabaseInaccessible, "The health store \(url) is damaged: unknown type \(typeID).")
            }
            let type = try HKSampleType.stored(identifier: identifier)
            let start = Date(storeValue: try row.at(3))
            let end = Date(storeValue: try row.at(4))
            let sourceID: Int64 = try row.at(7)
            if sources[sourceID] == nil { sources[sourceID] = try await sourceRevision(id: sourceID, c) }
            let source = sources[sourceID]!
            var device: HKDevice?
            if let deviceID = try row.at(8, as: Int64?.self) {
                if devices[deviceID] == nil { devices[deviceID] = try await self.device(id: deviceID, c) }
                device = devices[deviceID]
            }
            let metadata = try MetadataCoding.decode(try row.at(9, as: String?.self))
            let sample: HKSample
            if let quantityType = type as? HKQuantityType {
                guard let stored = try row.at(5, as: Double?.self) else {
                    throw HKError(.errorDatabaseInaccessible, "The health store is damaged: sample \(id) has no value.")
                }
                var quantity = HKQuantity(unit: quantityType.storageUnit, doubleValue: stored)
                if let unitString = try row.at(6, as: String?.self) {
                    guard let unit = try? HKUnit.parse(unitString), quantity.is(compatibleWith: unit) else {
                        throw HKError(
                            .errorDatabaseInaccessible,
                            "The health store is damaged: sample \(id) has unit '\(unitString)'.")
                    }
                    quantity = HKQuantity(unit: unit, doubleValue: quantity.doubleValue(for: unit))
                }
                // A series carries its count and, for a discrete type, its summary.
                let count = Int(try row.at(14, as: Int32?.self) ?? 1)
                if quantityType.aggregationStyle == .cumulative {
                    sample = HKCumulativeQuantitySample(
                        quantityType: quantityType, quantity: quantity, startDate: start, endDate: end, count: count,
                        uuid: uuid, metadata: metadata, device: device, sourceRevision: source)
                } else {
                    var summary: HKDiscreteQuantitySample.DiscreteSummary?
                    if count > 1, let minimum = try row.at(15, as: Double?.self),
                        let maximum = try row.at(16, as: Double?.self), let recent = try row.at(17, as: Double?.self),
                        let recentStart = try row.at(18, as: Double?.self),
                        let recentEnd = try row.at(19, as: Double?.self)
                    {
                        summary = .init(
                            minimum: minimum, maximum: maximum, mostRecent: recent,
                            mostRecentStart: Date(storeValue: recentStart),
                            mostRecentEnd: Date(storeValue: max(recentStart, recentEnd)))
                    }
                    sample = HKDiscreteQuantitySample(
                        quantityType: quantityType, quantity: quantity, startDate: start, endDate: end, count: count,
                        uuid: uuid, metadata: metadata, device: device, sourceRevision: source, summary: summary)
                }
            } else if type is HKWorkoutType {
                guard let raw = try row.at(10, as: Int64?.self),
                    let activityType = HKWorkoutActivityType(rawValue: UInt(raw)),
                    let duration = try row.at(11, as: Double?.self)
                else {
                    throw HKError(.errorDatabaseInaccessible, "The health store is damaged: workout \(id) has no row.")
                }
                let restricted =
                    access.readableTypes != nil && source.source.bundleIdentifier != access.clientIdentifier
                let details = try await workoutDetails(id: id, restricted: restricted, access: access, types, c)
                sample = HKWorkout(
                    activityType: activityType, startDate: start, endDate: end, duration: duration,
                    events: details.events, activities: details.activities, statistics: details.statistics,
                    uuid: uuid, metadata: metadata, device: device, sourceRevision: source,
                    zoneGroups: details.zoneGroups)
            } else if let categoryType = type as? HKCategoryType {
                guard let stored = try row.at(5, as: Double?.self), let value = Int(exactly: stored) else {
                    throw HKError(
                        .errorDatabaseInaccessible, "The health store is damaged: category sample \(id) has no value.")
                }
                sample = HKCategorySample(
                    categoryType: categoryType, value: value, startDate: start, endDate: end, uuid: uuid,
                    metadata: metadata, device: device, sourceRevision: source)
            } else if type.identifier == HKDataTypeIdentifierHeartbeatSeries {
                sample = HKHeartbeatSeriesSample(
                    count: Int(try row.at(12, as: Int32?.self) ?? 0), startDate: start, endDate: end, uuid: uuid,
                    metadata: metadata, device: device, sourceRevision: source, beats: nil)
            } else if type.identifier == HKWorkoutRouteTypeIdentifier {
                sample = HKWorkoutRoute(
                    count: Int(try row.at(13, as: Int32?.self) ?? 0), startDate: start, endDate: end, uuid: uuid,
                    metadata: metadata, device: device, sourceRevision: source, locations: nil)
            } else if let correlationType = type as? HKCorrelationType {
                correlations[result.count] = correlationType
                sample = StoredCorrelations.correlation(
                    type: correlationType, objects: [], start: start, end: end, uuid: uuid, metadata: metadata,
                    device: device, source: source, access: access)
            } else {
                throw HKError(
                    .errorDatabaseInaccessible, "Samples of type \(type.identifier) cannot be read by this version.")
            }
            result.append((id, sample))
        }
        if !correlations.isEmpty {
            let held = try await heldSamples(ofCorrelations: correlations.keys.map { result[$0].id }, access: access, c)
            for (index, type) in correlations {
                let (id, bare) = result[index]
                result[index].sample = StoredCorrelations.filled(
                    bare, type: type, objects: held[id] ?? [], access: access)
            }
        }
        return result
    }

    /// The samples the given correlations hold, by correlation row id.
    private func heldSamples(
        ofCorrelations ids: [Int64], access: ReadAccess, _ c: PostgresConnection
    ) async throws -> [Int64: [HKSample]] {
        var owners: [Int64: Int64] = [:]
        for row in try await c.rows(
            "SELECT id, correlation_id FROM samples WHERE correlation_id = ANY(?)", [.integers(ids)])
        {
            owners[try row.at(0, as: Int64.self)] = try row.at(1, as: Int64.self)
        }
        var held: [Int64: [HKSample]] = [:]
        let statement = PostgresStatement(
            Self.sampleSelect + " WHERE s.correlation_id = ANY(?) ORDER BY s.id", [.integers(ids)])
        for (id, sample) in try await decodeRows(statement, access: access, c) {
            if let owner = owners[id] { held[owner, default: []].append(sample) }
        }
        return held
    }

    private struct WorkoutDetails {
        var events: [HKWorkoutEvent] = []
        var activities: [HKWorkoutActivity] = []
        var statistics: [HKQuantityType: HKStatistics] = [:]
        var zoneGroups: [HKQuantityType: HKWorkoutZoneGroup]?
    }

    /// A workout's zone groups: its own (`workout`) and each activity's, by the activity's row id.
    private func zoneGroups(
        workoutID: Int64, _ types: [Int64: String], _ c: PostgresConnection
    ) async throws -> (
        workout: [HKQuantityType: HKWorkoutZoneGroup]?, activities: [Int64: [HKQuantityType: HKWorkoutZoneGroup]]
    ) {
        var workout: [HKQuantityType: HKWorkoutZoneGroup]?
        var activities: [Int64: [HKQuantityType: HKWorkoutZoneGroup]] = [:]
        for row in try await c.rows(
            "SELECT activity_id, type_id, source, boundaries, durations FROM workout_zone_groups WHERE workout_id = ?",
            [.integer(workoutID)])
        {
            guard let identifier = types[try row.at(1)],
                let type = try HKSampleType.stored(identifier: identifier) as? HKQuantityType,
                let group = HKWorkoutZoneGroup.stored(
                    type: type, sourceCode: Int(try row.at(2, as: Int32.self)),
                    boundaries: try row.at(3, as: [Double].self), durations: try row.at(4, as: [Double].self))
            else {
                throw HKError(.errorDatabaseInaccessible, "The health store \(url) holds damaged workout zones.")
            }
            if let activityID = try row.at(0, as: Int64?.self) {
                activities[activityID, default: [:]][type] = group
            } else {
                workout = workout ?? [:]
                workout?[type] = group
            }
        }
        return (workout, activities)
    }

    private func workoutDetails(
        id: Int64, restricted: Bool, access: ReadAccess, _ types: [Int64: String], _ c: PostgresConnection
    ) async throws -> WorkoutDetails {
        func hidden(_ type: HKQuantityType) -> Bool { restricted && !access.canRead(type.identifier) }
        func statistics(_ row: PostgresRandomAccessRow) throws -> HKStatistics? {
            guard let identifier = types[try row.at(1)],
                let type = try HKSampleType.stored(identifier: identifier) as? HKQuantityType
            else {
                throw HKError(.errorDatabaseInaccessible, "The health store holds statistics of an unknown type.")
            }
            guard !hidden(type) else { return nil }
            var values = HKStatistics.Values(
                sum: try row.at(4), average: try row.at(5), minimum: try row.at(6), maximum: try row.at(7),
                mostRecent: try row.at(8), duration: try row.at(11))
            if let start = try row.at(9, as: Double?.self), let end = try row.at(10, as: Double?.self) {
                values.mostRecentInterval = DateInterval(
                    start: Date(storeValue: start), end: Date(storeValue: max(start, end)))
            }
            return HKStatistics(
                quantityType: type, startDate: Date(storeValue: try row.at(2)),
                endDate: Date(storeValue: try row.at(3)), merged: values)
        }
        var details = WorkoutDetails()
        let zones = try await zoneGroups(workoutID: id, types, c)
        details.zoneGroups = zones.workout
        for row in try await c.rows(
            """
            SELECT type, start, "end", metadata FROM workout_events WHERE workout_id = ? ORDER BY position
            """, [.integer(id)])
        {
            guard let type = HKWorkoutEventType(rawValue: Int(try row.at(0, as: Int64.self))) else {
                throw HKError(.errorDatabaseInaccessible, "The health store holds a workout event of unknown type.")
            }
            let start = Date(storeValue: try row.at(1))
            let end = max(start, Date(storeValue: try row.at(2)))
            details.events.append(
                HKWorkoutEvent(
                    type: type, dateInterval: DateInterval(start: start, end: type.mayHaveDuration ? end : start),
                    metadata: try MetadataCoding.decode(try row.at(3, as: String?.self))))
        }
        let statisticsColumns = """
            type_id, start, "end", sum, average, minimum, maximum, most_recent, most_recent_start, most_recent_end,
            duration
            """
        for row in try await c.rows(
            "SELECT workout_id, \(statisticsColumns) FROM workout_statistics WHERE workout_id = ?", [.integer(id)])
        {
            if let statistics = try statistics(row) { details.statistics[statistics.quantityType] = statistics }
        }
        for row in try await c.rows(
            """
            SELECT id, uuid, activity_type, location_type, swimming_location_type, lap_length_meters, start, "end",
                   metadata FROM workout_activities WHERE workout_id = ? ORDER BY start
            """, [.integer(id)])
        {
            let activityID: Int64 = try row.at(0)
            var activityStatistics: [HKQuantityType: HKStatistics] = [:]
            for statisticsRow in try await c.rows(
                "SELECT activity_id, \(statisticsColumns) FROM activity_statistics WHERE activity_id = ?",
                [.integer(activityID)])
            {
                if let statistics = try statistics(statisticsRow) {
                    activityStatistics[statistics.quantityType] = statistics
                }
            }
            let configuration = HKWorkoutConfiguration()
            guard let activityType = HKWorkoutActivityType(rawValue: UInt(try row.at(2, as: Int64.self))),
                let location = HKWorkoutSessionLocationType(rawValue: Int(try row.at(3, as: Int64.self))),
                let swimming = HKWorkoutSwimmingLocationType(rawValue: Int(try row.at(4, as: Int64.self)))
            else {
                throw HKError(.errorDatabaseInaccessible, "The health store holds a damaged workout activity.")
            }
            configuration.activityType = activityType
            configuration.locationType = location
            configuration.swimmingLocationType = swimming
            configuration.lapLength = try row.at(5, as: Double?.self).map {
                HKQuantity(unit: .meter(), doubleValue: $0)
            }
            details.activities.append(
                HKWorkoutActivity(
                    uuid: try row.at(1), configuration: configuration, startDate: Date(storeValue: try row.at(6)),
                    endDate: try row.at(7, as: Double?.self).map(Date.init(storeValue:)),
                    metadata: try MetadataCoding.decode(try row.at(8, as: String?.self)), parentEvents: [],
                    statistics: activityStatistics, zoneGroups: zones.activities[activityID]))
        }
        return details
    }
}
