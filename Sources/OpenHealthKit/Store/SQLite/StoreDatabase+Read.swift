import Foundation
import GRDB
import HealthKitModel
import WorkoutEngine

/// A compiled query: a WHERE clause and its arguments.
struct SQLFragment {
    var sql: String
    var arguments: [any DatabaseValueConvertible & Sendable]

    init(_ sql: String, _ arguments: [any DatabaseValueConvertible & Sendable] = []) {
        self.sql = sql
        self.arguments = arguments
    }

    static func joined(_ parts: [SQLFragment], with separator: String, empty: String) -> SQLFragment {
        guard !parts.isEmpty else { return SQLFragment(empty) }
        return SQLFragment("(" + parts.map(\.sql).joined(separator: " \(separator) ") + ")", parts.flatMap(\.arguments))
    }
}

extension StoreDatabase {
    /// Where a predicate node is compiled: over samples (`s`, workouts joined as `w` when the type is the workout
    /// type), or over workout activities (`a`).
    enum PredicateContext {
        case samples(isWorkout: Bool, type: HKSampleType? = nil)
        case activities
    }

    func compile(_ node: PredicateNode, _ context: PredicateContext) throws -> SQLFragment {
        func comparison(_ comparison: PredicateNode.Comparison?) throws -> PredicateNode.Comparison {
            guard let comparison else {
                throw HKError(
                    .errorInvalidArgument,
                    "HealthKit predicates compare with <, <=, >, >=, == or != only.")
            }
            return comparison
        }
        func statisticColumn(_ statistic: PredicateNode.Statistic) -> String { "st.\(statistic.rawValue)" }
        let isWorkout: Bool
        switch context {
        case .samples(let workout, _): isWorkout = workout
        case .activities: isWorkout = false
        }
        let inActivities: Bool = if case .activities = context { true } else { false }

        switch node {
        case .constant(let value):
            return SQLFragment(value ? "1" : "0")
        case .and(let nodes):
            return SQLFragment.joined(try nodes.map { try compile($0, context) }, with: "AND", empty: "1")
        case .or(let nodes):
            return SQLFragment.joined(try nodes.map { try compile($0, context) }, with: "OR", empty: "0")
        case .not(let inner):
            let fragment = try compile(inner, context)
            return SQLFragment("(NOT \(fragment.sql))", fragment.arguments)
        case .foreign(let format):
            throw HKError(
                .errorInvalidArgument,
                "The predicate \(format) cannot run in the health store; build predicates with HKQuery's predicate functions and NSCompoundPredicate."
            )
        case .invalid(let reason):
            throw HKError(.errorInvalidArgument, reason)
        case .activityType, .activityDuration, .activityDates, .activityStatistic:
            guard inActivities else {
                throw HKError(
                    .errorInvalidArgument,
                    "Workout-activity predicates must be wrapped in HKQuery.predicateForWorkouts(activityPredicate:).")
            }
        case .uuids, .associatedWithWorkout, .effortRelated, .noCorrelation, .sampleDates, .workoutActivityType,
            .workoutDuration,
            .workoutStatistic,
            .workoutsWithActivity, .filter, .quantity:
            if inActivities {
                throw HKError(
                    .errorInvalidArgument,
                    "Only workout-activity predicates may be used inside predicateForWorkouts(activityPredicate:).")
            }
        }

        switch node {
        case .uuids(let uuids):
            guard !uuids.isEmpty else { return SQLFragment("0") }
            let list = Array(repeating: "?", count: uuids.count).joined(separator: ",")
            // Workouts are found through their UUID index; other samples by a scan of their type.
            return isWorkout
                ? SQLFragment("s.id IN (SELECT sample_id FROM workouts WHERE uuid IN (\(list)))", uuids)
                : SQLFragment("s.uuid IN (\(list))", uuids)
        case .noCorrelation:
            return SQLFragment("s.correlation_id IS NULL")
        case .associatedWithWorkout(let uuid):
            return SQLFragment(
                """
                s.id IN (SELECT a.id FROM samples a WHERE a.workout_id = (SELECT sample_id FROM workouts WHERE uuid = ?)
                         UNION ALL
                         SELECT ws.sample_id FROM workout_samples ws
                         WHERE ws.workout_id = (SELECT sample_id FROM workouts WHERE uuid = ?))
                """, [uuid, uuid])
        case let .effortRelated(workout, activity):
            // activity_uuid IS ?: NULL matches the relationships with the workout itself.
            return SQLFragment(
                """
                s.id IN (SELECT e.sample_id FROM workout_effort e
                         WHERE e.workout_id = (SELECT sample_id FROM workouts WHERE uuid = ?) AND e.activity_uuid IS ?)
                """, [workout, activity])
        case let .sampleDates(start, end, options):
            let (sql, arguments) = DateRangeRule(start: start, end: end, options: options)
                .sql(startColumn: "s.start", endColumn: "s.\"end\"")
            return SQLFragment(sql, arguments)
        case .workoutActivityType(let type):
            return isWorkout ? SQLFragment("w.activity_type = ?", [Int64(type.rawValue)]) : SQLFragment("0")
        case let .workoutDuration(op, value):
            let op = try comparison(op)
            return isWorkout ? SQLFragment("w.duration \(op.sql) ?", [value]) : SQLFragment("0")
        case let .quantity(op, quantity):
            let op = try comparison(op)
            // Values are stored in the type's storage unit; the quantity is converted to it once, here.
            guard case .samples(_, let type?) = context, let quantityType = type as? HKQuantityType else {
                return SQLFragment("0")
            }
            guard quantityType.is(compatibleWith: quantity.unit) else {
                throw HKError(
                    .errorInvalidArgument,
                    "The quantity \(quantity) cannot be compared with \(quantityType.identifier) samples: its unit does not fit."
                )
            }
            return SQLFragment("s.value \(op.sql) ?", [quantity.doubleValue(for: quantityType.storageUnit)])
        case let .workoutStatistic(types, statistic, op, value):
            let op = try comparison(op)
            guard isWorkout else { return SQLFragment("0") }
            return SQLFragment(
                """
                EXISTS (SELECT 1 FROM workout_statistics st JOIN types t ON t.id = st.type_id
                        WHERE st.workout_id = s.id AND t.identifier IN (\(Array(repeating: "?", count: types.count).joined(separator: ",")))
                          AND \(statisticColumn(statistic)) \(op.sql) ?)
                """, types + [value])
        case .workoutsWithActivity(let inner):
            guard isWorkout else { return SQLFragment("0") }
            let fragment = try compile(inner, .activities)
            return SQLFragment(
                "EXISTS (SELECT 1 FROM workout_activities a WHERE a.workout_id = s.id AND \(fragment.sql))",
                fragment.arguments)
        case .activityType(let type):
            return SQLFragment("a.activity_type = ?", [Int64(type.rawValue)])
        case let .activityDuration(op, value):
            return SQLFragment("a.duration \(try comparison(op).sql) ?", [value])
        case let .activityDates(start, end, options):
            let (sql, arguments) = DateRangeRule(start: start, end: end, options: options)
                .sql(startColumn: "a.start", endColumn: "COALESCE(a.\"end\", 1e300)")
            return SQLFragment(sql, arguments)
        case let .activityStatistic(identifier, statistic, op, value):
            let op = try comparison(op)
            return SQLFragment(
                """
                EXISTS (SELECT 1 FROM activity_statistics st JOIN types t ON t.id = st.type_id
                        WHERE st.activity_id = a.id AND t.identifier = ? AND \(statisticColumn(statistic)) \(op.sql) ?)
                """, [identifier, value])
        case .filter(let filter):
            return try filter.sql()
        case .constant, .and, .or, .not, .foreign, .invalid:
            preconditionFailure("handled above")
        }
    }

    /// The WHERE clause for a set of descriptors, with the privacy rule applied per type.
    func whereClause(for descriptors: [HKQueryDescriptor], access: ReadAccess, _ db: Database) throws -> SQLFragment? {
        var parts: [SQLFragment] = []
        var ownSources: [Int64]?
        for descriptor in descriptors {
            let identifier = descriptor.sampleType.identifier
            // Compiled first, so a bad predicate fails the query whatever the store holds.
            let compiled = try descriptor.predicate.map {
                try compile(
                    PredicateNode($0),
                    .samples(isWorkout: descriptor.sampleType is HKWorkoutType, type: descriptor.sampleType))
            }
            guard let typeID = try existingTypeID(identifier, db) else { continue }
            // When the predicate names a workout's samples, those few rows drive the query: `+` keeps SQLite from
            // walking the whole type index instead.
            let driven = descriptor.predicate.map { PredicateNode($0).selectsWorkoutSamples } ?? false
            var fragment = SQLFragment(driven ? "+s.type_id = ?" : "s.type_id = ?", [typeID])
            if !access.canRead(identifier) {
                if ownSources == nil { ownSources = try ownSourceIDs(client: access.clientIdentifier, db) }
                guard let own = ownSources, !own.isEmpty else { continue }
                fragment.sql += " AND s.source_id IN (\(own.map(String.init).joined(separator: ",")))"
            }
            if let compiled {
                fragment.sql += " AND " + compiled.sql
                fragment.arguments += compiled.arguments
            }
            parts.append(SQLFragment("(" + fragment.sql + ")", fragment.arguments))
        }
        return parts.isEmpty ? nil : SQLFragment.joined(parts, with: "OR", empty: "0")
    }

    /// The SQL ordering for sort keys, or nil when one of them has no SQL form (sorted in memory then).
    func orderClause(for sorts: [SampleSort]) -> String? {
        var terms: [String] = []
        for sort in sorts {
            guard let keyPath = sort.keyPath, let column = SortColumns.column(for: keyPath) else { return nil }
            terms.append("\(column) \(sort.ascending ? "ASC" : "DESC")")
        }
        terms.append("s.id ASC")
        return terms.joined(separator: ", ")
    }

    /// The columns and joins `decodeRows` reads, for a WHERE clause over `s`.
    static let sampleSelect = """
        SELECT s.id, s.uuid, s.type_id, s.start, s."end", s.value, s.unit, s.source_id, s.device_id, s.metadata,
               w.activity_type, w.duration,
               q.count, q.minimum, q.maximum, q.most_recent, q.most_recent_start, q.most_recent_end
        FROM samples s LEFT JOIN workouts w ON w.sample_id = s.id LEFT JOIN quantity_series q ON q.sample_id = s.id
        """

    /// Fetches the samples matching the descriptors, sorted and limited.
    func fetchSamples(
        _ descriptors: [HKQueryDescriptor], limit: Int, sorts: [SampleSort], access: ReadAccess,
        _ db: Database
    ) throws -> [HKSample] {
        guard var condition = try whereClause(for: descriptors, access: access, db) else { return [] }
        let order = orderClause(for: sorts)
        var sql = Self.sampleSelect + " WHERE \(condition.sql) ORDER BY \(order ?? "s.id ASC")"
        if limit > 0, order != nil {
            sql += " LIMIT ?"
            condition.arguments.append(limit)
        }
        var samples = try decodeSamples(
            db, sql: sql, arguments: StatementArguments(condition.arguments), access: access)
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

    /// Samples added after an anchor, in anchor order, with their anchors.
    func fetchAddedSamples(
        _ descriptors: [HKQueryDescriptor], limit: Int, afterAnchor: Int64, access: ReadAccess,
        _ db: Database
    ) throws -> [(id: Int64, sample: HKSample)] {
        guard var condition = try whereClause(for: descriptors, access: access, db) else { return [] }
        condition.sql += " AND s.id > ?"
        condition.arguments.append(afterAnchor)
        var sql = Self.sampleSelect + " WHERE \(condition.sql) ORDER BY s.id ASC"
        if limit > 0 {
            sql += " LIMIT ?"
            condition.arguments.append(limit)
        }
        return try decodeRows(db, sql: sql, arguments: StatementArguments(condition.arguments), access: access)
    }

    /// Deleted objects of the descriptors' types after an anchor: (anchor, object).
    func fetchDeletedObjects(
        _ descriptors: [HKQueryDescriptor], afterAnchor: Int64, access: ReadAccess,
        _ db: Database
    ) throws -> [(Int64, HKDeletedObject)] {
        var typeIDs: [Int64] = []
        for descriptor in descriptors where access.canRead(descriptor.sampleType.identifier) {
            if let id = try existingTypeID(descriptor.sampleType.identifier, db) { typeIDs.append(id) }
        }
        guard !typeIDs.isEmpty else { return [] }
        let types = typeIDs.map(String.init).joined(separator: ",")
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT anchor, uuid, metadata FROM deleted_objects
                WHERE anchor > ? AND type_id IN (\(types))
                ORDER BY anchor
                """, arguments: [afterAnchor])
        var deleted = try rows.map { row in
            (row[0] as Int64, HKDeletedObject(uuid: row[1], metadata: try MetadataCoding.decode(row[2])))
        }
        // Condensed ranges: every original's UUID, all at the range's anchor.
        let ranges = try Row.fetchAll(
            db,
            sql: """
                SELECT anchor, uuids, format, count FROM deleted_ranges WHERE anchor > ? AND type_id IN (\(types)) ORDER BY anchor
                """, arguments: [afterAnchor])
        for range in ranges {
            let anchor: Int64 = range[0]
            for uuid in try DeletedUUIDsCodec.decode(range[1], format: range[2], count: range[3]) {
                deleted.append((anchor, HKDeletedObject(uuid: uuid, metadata: nil)))
            }
        }
        if !ranges.isEmpty { deleted.sort { $0.0 < $1.0 } }
        return deleted
    }

    /// A UUID from its 16 bytes (the caller checked the length).
    static func uuid(_ bytes: Data) -> UUID {
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: bytes.prefix(16)) }
        return UUID(uuid: raw)
    }

    /// The newest anchor in the store: the last value of the samples' id sequence.
    func currentAnchor(_ db: Database) throws -> Int64 {
        let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'samples'") ?? 0
        let maxID = try Int64.fetchOne(db, sql: "SELECT max(id) FROM samples") ?? 0
        return max(sequence, maxID)
    }
}

/// The SQL expressions HealthKit's sort keys map to.
enum SortColumns {
    static func column(for keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \HKSample.startDate, \HKQuantitySample.startDate, \HKWorkout.startDate,
            \HKCumulativeQuantitySample.startDate, \HKDiscreteQuantitySample.startDate:
            return "s.start"
        case \HKSample.endDate, \HKQuantitySample.endDate, \HKWorkout.endDate,
            \HKCumulativeQuantitySample.endDate, \HKDiscreteQuantitySample.endDate:
            return "s.\"end\""
        case \HKWorkout.duration:
            return "w.duration"
        case \HKWorkout.sortTotalEnergyBurned:
            return statistic([.activeEnergyBurned])
        case \HKWorkout.sortTotalSwimmingStrokeCount:
            return statistic([.swimmingStrokeCount])
        case \HKWorkout.sortTotalFlightsClimbed:
            return statistic([.flightsClimbed])
        default:
            return nil
        }
    }

    private static func statistic(_ identifiers: [HKQuantityTypeIdentifier]) -> String {
        let list = identifiers.map { "'\($0.rawValue)'" }.joined(separator: ",")
        return
            "COALESCE((SELECT max(st.sum) FROM workout_statistics st JOIN types t ON t.id = st.type_id WHERE st.workout_id = s.id AND t.identifier IN (\(list))), -1e300)"
    }
}
