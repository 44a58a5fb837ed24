import FitnessSensors
import Foundation
import PostgresNIO

/// The PostgreSQL backend's named operations, each one transaction (see ``PostgresStoreBackend``).
extension PostgresStoreBackend: StoreBackend {
    var location: String? { url.description }

    /// The decisions recorded for `client` of `types` (those never decided absent), in one statement.
    private func decisions(
        client: String, types: some Collection<String>, _ c: PostgresConnection
    ) async throws -> [String: AuthorizationDecision] {
        // Another person's store shared to read: everything may be read, nothing saved.
        if isSharedView {
            let decision = AuthorizationDecision(
                share: HKAuthorizationStatus.sharingDenied.rawValue, read: ReadDecision.granted.rawValue)
            return Dictionary(types.map { ($0, decision) }, uniquingKeysWith: { first, _ in first })
        }
        guard !types.isEmpty else { return [:] }
        var decisions: [String: AuthorizationDecision] = [:]
        for row in try await c.rows(
            """
            SELECT type_identifier, share, read FROM authorizations
            WHERE client = ? AND type_identifier = ANY(?::text[])
            """, [.text(client), .texts(Array(types))])
        {
            decisions[try row.at(0)] = AuthorizationDecision(
                share: Int(try row.at(1, as: Int32.self)), read: Int(try row.at(2, as: Int32.self)))
        }
        return decisions
    }

    func verify(_ check: ShareCheck, _ c: PostgresConnection) async throws {
        if isSharedView { throw sharedViewIsReadOnly }
        let decisions = try await decisions(client: check.client, types: Set(check.types), c)
        try check.verify { decisions[$0] }
    }

    /// Records decisions of `client` in two statements whatever their number: each changes only the fields it
    /// names (nil: as it was), and a type never decided gets 0 for a field not named.
    private func setDecisions(
        client: String, _ changes: [(type: String, share: Int?, read: Int?)], _ c: PostgresConnection
    ) async throws {
        guard !changes.isEmpty else { return }
        let types = PostgresValue.texts(changes.map(\.type))
        let shares = PostgresValue.integers(changes.map { Int64($0.share ?? 0) })
        let reads = PostgresValue.integers(changes.map { Int64($0.read ?? 0) })
        try await c.rows(
            """
            UPDATE authorizations a
            SET share = CASE WHEN u.share_named THEN u.share ELSE a.share END,
                read = CASE WHEN u.read_named THEN u.read ELSE a.read END
            FROM unnest(?::text[], ?::integer[], ?::integer[], ?::boolean[], ?::boolean[])
                AS u(type_identifier, share, read, share_named, read_named)
            WHERE a.client = ? AND a.type_identifier = u.type_identifier
            """,
            [
                types, shares, reads, .booleans(changes.map { $0.share != nil }),
                .booleans(changes.map { $0.read != nil }), .text(client),
            ])
        try await c.rows(
            """
            INSERT INTO authorizations (client, type_identifier, share, read)
            SELECT ?, type_identifier, share, read FROM unnest(?::text[], ?::integer[], ?::integer[])
                AS u(type_identifier, share, read)
            ON CONFLICT (owner, client, type_identifier) DO NOTHING
            """, [.text(client), types, shares, reads])
    }

    private func readableTypes(client: String, _ c: PostgresConnection) async throws -> Set<String> {
        if isSharedView {
            return Set(try await c.rows("SELECT identifier FROM types").map { try $0.at(0, as: String.self) })
                .union([HKCharacteristicTypeIdentifier.dateOfBirth.rawValue])
        }
        return Set(
            try await c.rows(
                "SELECT type_identifier FROM authorizations WHERE client = ? AND read = 1", [.text(client)]
            ).map { try $0.at(0, as: String.self) })
    }

    func access(client: String, _ c: PostgresConnection) async throws -> ReadAccess {
        if isSharedView { return ReadAccess(readableTypes: nil, clientIdentifier: client) }
        return ReadAccess(readableTypes: try await readableTypes(client: client, c), clientIdentifier: client)
    }

    // MARK: Authorization

    func authorizationDecisions(client: String, types: Set<String>) async throws -> [String: AuthorizationDecision] {
        try await transaction(write: false) { c in try await self.decisions(client: client, types: types, c) }
    }

    func authorizationDecisionBlocking(client: String, type: String) throws -> AuthorizationDecision? {
        try Self.blocking {
            try await self.transaction(write: false) { c in
                try await self.decisions(client: client, types: [type], c)[type]
            }
        }
    }

    func updateAuthorization(
        client: String, types: Set<String>,
        _ decide: @escaping @Sendable ([String: AuthorizationDecision]) throws -> [String: AuthorizationDecision]
    ) async throws {
        if isSharedView {
            // Every type is decided in a shared store (read granted, sharing denied): a request asks nothing.
            _ = try decide(try await authorizationDecisions(client: client, types: types))
            return
        }
        try await transaction(write: true) { c in
            let decisions = try await self.decisions(client: client, types: types, c)
            let changes = try decide(decisions).sorted { $0.key < $1.key }.map { type, changed in
                let old = decisions[type]
                return (
                    type: type, share: old?.share != changed.share ? changed.share : nil,
                    read: old?.read != changed.read ? changed.read : nil
                )
            }
            try await self.setDecisions(client: client, changes, c)
        }
    }

    func recordAuthorizationBlocking(client: String, type: String, share: Int?, read: Int?) throws {
        try Self.blocking {
            try await self.transaction(write: true) { c in
                try await self.setDecisions(client: client, [(type: type, share: share, read: read)], c)
            }
        }
    }

    func readableTypes(client: String) async throws -> Set<String> {
        try await transaction(write: false) { c in try await self.readableTypes(client: client, c) }
    }

    func readableTypesBlocking(client: String) throws -> Set<String> {
        try Self.blocking { try await self.readableTypes(client: client) }
    }

    func checkShareAuthorization(_ check: ShareCheck) async throws {
        try await transaction(write: false) { c in try await self.verify(check, c) }
    }

    // MARK: Objects

    func save(_ objects: [HKObject], source: HKSourceRevision, check: ShareCheck) async throws {
        try await transaction(write: true) { c in
            try await self.verify(check, c)
            try await self.insertWithCorrelations(objects, source: source, c)
        }
    }

    func delete(_ samples: [HKSample], client: String, now: Date, check: ShareCheck) async throws {
        try await transaction(write: true) { c in
            try await self.verify(check, c)
            var ids: [Int64] = []
            for sample in samples {
                guard
                    let row = try await c.rows(
                        """
                        SELECT s.id, so.bundle_identifier FROM samples s JOIN sources so ON so.id = s.source_id
                        WHERE s.uuid = ?
                        """, [.uuid(sample.uuid)]
                    ).first
                else { continue }
                guard try row.at(1, as: String.self) == client else {
                    throw HKError(
                        .errorAuthorizationDenied,
                        "Object \(sample.uuid) was saved by another program and cannot be deleted by \(client).")
                }
                ids.append(try row.at(0))
            }
            _ = try await self.deleteSamples(ids: ids, now: now, c)
        }
    }

    func deleteSamples(
        matching descriptor: HKQueryDescriptor, client: String, now: Date, check: ShareCheck
    ) async throws -> Int {
        try await transaction(write: true) { c in
            try await self.verify(check, c)
            guard
                var condition = try await self.whereClause(
                    for: [descriptor], access: ReadAccess(readableTypes: nil, clientIdentifier: client), c)
            else { return 0 }
            condition.sql = """
                SELECT s.id FROM samples s LEFT JOIN workouts w ON w.sample_id = s.id
                WHERE \(condition.sql) AND s.source_id IN (SELECT id FROM sources WHERE bundle_identifier = ?)
                ORDER BY s.id
                """
            condition.values.append(.text(client))
            let ids = try await c.rows(condition).map { try $0.at(0, as: Int64.self) }
            return try await self.deleteSamples(ids: ids, now: now, c)
        }
    }

    func associate(
        _ samples: [HKSample], withWorkout workout: UUID, source: HKSourceRevision, check: ShareCheck
    ) async throws {
        try await transaction(write: true) { c in
            try await self.verify(check, c)
            guard let workoutID = try await self.workoutID(uuid: workout, c) else {
                throw HKError.workoutNotSaved(workout)
            }
            _ = try await self.insert(samples, source: source, workoutID: workoutID, c)
        }
    }

    func saveSeries(_ series: QuantitySeriesToSave, check: ShareCheck) async throws {
        try await transaction(write: true) { c in
            try await self.verify(check, c)
            try await self.insertSeries(series, c)
        }
    }

    func relateEffort(_ relation: EffortRelation, relate: Bool, check: ShareCheck) async throws {
        try await transaction(write: true) { c in
            try await self.verify(check, c)
            guard let workoutID = try await self.workoutID(uuid: relation.workout, c),
                let typeID = try await self.existingTypeID(relation.sampleType.identifier, c),
                let sampleID = try await c.rows(
                    "SELECT id FROM samples WHERE type_id = ? AND uuid = ?", [.integer(typeID), .uuid(relation.sample)]
                ).first?.at(0, as: Int64.self)
            else {
                throw HKError(
                    .errorInvalidArgument, "The workout and the effort sample must both be saved in the store first.")
            }
            let activity = relation.activity.map(PostgresValue.uuid) ?? .null
            if relate {
                try await c.rows(
                    """
                    INSERT INTO workout_effort (workout_id, activity_uuid, sample_id) VALUES (?, ?::uuid, ?)
                    ON CONFLICT DO NOTHING
                    """, [.integer(workoutID), activity, .integer(sampleID)])
            } else {
                try await c.rows(
                    """
                    DELETE FROM workout_effort
                    WHERE workout_id = ? AND activity_uuid IS NOT DISTINCT FROM ?::uuid AND sample_id = ?
                    """, [.integer(workoutID), activity, .integer(sampleID)])
            }
        }
    }

    // MARK: Queries

    func samples(
        _ descriptors: [HKQueryDescriptor], limit: Int, sorts: [SampleSort], client: String
    ) async throws -> [HKSample] {
        try await transaction(write: false) { c in
            try await self.fetchSamples(
                descriptors, limit: limit, sorts: sorts, access: self.access(client: client, c), c)
        }
    }

    func changes(
        _ descriptors: [HKQueryDescriptor], after anchor: Int64, limit: Int, client: String
    ) async throws -> StoreChanges {
        try await transaction(write: false) { c in
            let access = try await self.access(client: client, c)
            let current = try await self.currentAnchor(c)
            var added: [(anchor: Int64, sample: HKSample)] = []
            if var condition = try await self.whereClause(for: descriptors, access: access, c) {
                condition.sql = Self.sampleSelect + " WHERE \(condition.sql) AND s.id > ? ORDER BY s.id"
                condition.values.append(.integer(anchor))
                if limit > 0 {
                    condition.sql += " LIMIT ?"
                    condition.values.append(.integer(Int64(limit)))
                }
                added = try await self.decodeRows(condition, access: access, c).map { ($0.id, $0.sample) }
            }
            var typeIDs: [Int64] = []
            for descriptor in descriptors where access.canRead(descriptor.sampleType.identifier) {
                if let id = try await self.existingTypeID(descriptor.sampleType.identifier, c) { typeIDs.append(id) }
            }
            var deleted: [(anchor: Int64, object: HKDeletedObject)] = []
            if !typeIDs.isEmpty {
                for row in try await c.rows(
                    """
                    SELECT anchor, uuid, metadata FROM deleted_objects
                    WHERE anchor > ? AND type_id = ANY(?::bigint[]) ORDER BY anchor
                    """, [.integer(anchor), .integers(typeIDs)])
                {
                    deleted.append(
                        (
                            try row.at(0),
                            HKDeletedObject(
                                uuid: try row.at(1),
                                metadata: try MetadataCoding.decode(try row.at(2, as: String?.self)))
                        ))
                }
            }
            return StoreChanges(added: added, deleted: deleted, currentAnchor: current)
        }
    }

    func changedTypes(
        _ descriptors: [HKQueryDescriptor], after anchor: Int64, client: String
    ) async throws -> (types: Set<HKSampleType>, anchor: Int64) {
        let changes = try await changes(descriptors, after: anchor, limit: 0, client: client)
        var types = Set(changes.added.map(\.sample.sampleType))
        if !changes.deleted.isEmpty {
            types.formUnion(descriptors.map(\.sampleType))
        }
        return (types, changes.currentAnchor)
    }

    func currentAnchor(_ c: PostgresConnection) async throws -> Int64 {
        try await c.rows(
            """
            SELECT greatest(coalesce((SELECT max(id) FROM samples), 0),
                            coalesce((SELECT max(anchor) FROM deleted_objects), 0))
            """
        ).first?.at(0) ?? 0
    }

    func currentAnchor() async throws -> Int64 {
        try await transaction(write: false) { c in try await self.currentAnchor(c) }
    }

    func sources(_ descriptors: [HKQueryDescriptor], client: String) async throws -> Set<HKSource> {
        try await transaction(write: false) { c in
            let access = try await self.access(client: client, c)
            guard var condition = try await self.whereClause(for: descriptors, access: access, c) else { return [] }
            condition.sql = """
                SELECT DISTINCT so.name, so.bundle_identifier FROM samples s LEFT JOIN workouts w ON w.sample_id = s.id
                JOIN sources so ON so.id = s.source_id WHERE \(condition.sql)
                """
            return Set(
                try await c.rows(condition).map {
                    HKSource(name: try $0.at(0, as: String.self), bundleIdentifier: try $0.at(1, as: String.self))
                })
        }
    }

    func statistics(
        _ type: HKQuantityType, fetch: HKQueryDescriptor, rangeStart: Double, rangeEnd: Double, client: String
    ) async throws -> StatisticsValues {
        try await transaction(write: false) { c in
            let access = try await self.access(client: client, c)
            let empty = StatisticsValues(merged: nil, bySource: [:], span: (.infinity, -.infinity))
            guard let condition = try await self.whereClause(for: [fetch], access: access, c) else { return empty }
            let bounds = [(rangeStart, rangeEnd)]
            let bySource = try await self.partials(type, condition: condition, bounds: bounds, c)
            let merged = try await self.mergedPartials(
                type, condition: condition, bounds: bounds, bySource: bySource, c)
            return self.statisticsValues(
                bySource: bySource[0] ?? [:], merged: merged[0] ?? StatisticsPartial(), style: type.aggregationStyle,
                revisions: try await self.sourceRevisions(bySource.values, c))
        }
    }

    func statisticsCollection(
        _ type: HKQuantityType, fetch: HKQueryDescriptor, tiling: DateTiling, client: String, everySource: Bool
    ) async throws -> [Int: StatisticsValues] {
        try await transaction(write: false) { c in
            let access =
                everySource
                ? ReadAccess(readableTypes: nil, clientIdentifier: client) : try await self.access(client: client, c)
            guard let condition = try await self.whereClause(for: [fetch], access: access, c) else { return [:] }
            // The intervals the data can touch: from the first start to the last end plus the longest hold.
            guard
                let span = try await c.rows(
                    PostgresStatement(
                        """
                        SELECT min(s.start), max(greatest(s."end", s.start + ?)) FROM samples s
                        LEFT JOIN workouts w ON w.sample_id = s.id WHERE \(condition.sql)
                        """, [.real(StatisticsAccumulator.defaultMaximumHold)] + condition.values)
                ).first,
                let first = try span.at(0, as: Double?.self), let last = try span.at(1, as: Double?.self)
            else { return [:] }
            let low = tiling.index(containing: Date(storeValue: first))
            let high = tiling.index(containing: Date(storeValue: last))
            let indices = Array(low ... max(low, high))
            let bounds = indices.map { index -> (Double, Double) in
                let interval = tiling.interval(index)
                return (interval.start.storeValue, interval.end.storeValue)
            }
            let bySource = try await self.partials(type, condition: condition, bounds: bounds, c)
            let merged = try await self.mergedPartials(
                type, condition: condition, bounds: bounds, bySource: bySource, c)
            let revisions = try await self.sourceRevisions(bySource.values, c)
            var result: [Int: StatisticsValues] = [:]
            for (position, partials) in bySource {
                result[indices[position]] = self.statisticsValues(
                    bySource: partials, merged: merged[position] ?? StatisticsPartial(),
                    style: type.aggregationStyle, revisions: revisions)
            }
            return result
        }
    }

    func activityDataSpan() async throws -> (start: Double, end: Double)? {
        try await transaction(write: false) { c in
            guard
                let row = try await c.rows(
                    """
                    SELECT min(s.start), max(s."end") FROM samples s JOIN types t ON t.id = s.type_id
                    WHERE t.identifier IN (?, ?)
                    """,
                    [.text(HKQuantityTypeIdentifier.activeEnergyBurned.rawValue), .text(HKWorkoutTypeIdentifier)]
                ).first,
                let start = try row.at(0, as: Double?.self), let end = try row.at(1, as: Double?.self)
            else { return nil }
            return (start, end)
        }
    }

    /// The running spans of every workout overlapping `[start, end)`: one query, each workout with its pause and
    /// resume events in order, cut as the SQLite backend cuts them (``ExerciseTime/runningSpans(start:end:pauses:)``).
    func workoutRunningSpans(from start: Double, to end: Double) async throws -> [ExerciseTime.Span] {
        let pause = Int64(HKWorkoutEventType.pause.rawValue)
        let resume = Int64(HKWorkoutEventType.resume.rawValue)
        return try await transaction(write: false) { c in
            var spans: [ExerciseTime.Span] = []
            for row in try await c.rows(
                """
                SELECT s.start, s."end",
                       coalesce(array_agg(e.type ORDER BY e.start, e.position) FILTER (WHERE e.type IS NOT NULL), '{}'),
                       coalesce(array_agg(e.start ORDER BY e.start, e.position) FILTER (WHERE e.type IS NOT NULL), '{}')
                FROM samples s JOIN workouts w ON w.sample_id = s.id
                LEFT JOIN workout_events e ON e.workout_id = s.id AND e.type IN (?, ?)
                WHERE s."end" > ? AND s.start < ? GROUP BY s.id, s.start, s."end" ORDER BY s.id
                """, [.integer(pause), .integer(resume), .real(start), .real(end)])
            {
                let types = try row.at(2, as: [Int64].self)
                let times = try row.at(3, as: [Double].self)
                spans += ExerciseTime.runningSpans(
                    start: try row.at(0), end: try row.at(1),
                    pauses: zip(types, times).map { (paused: $0 == pause, at: $1) })
            }
            return spans
        }
    }

    func seriesSamples(
        _ descriptor: HKQueryDescriptor, client: String
    ) async throws -> [(sample: HKQuantitySample, points: [SeriesQuantity]?)] {
        try await transaction(write: false) { c in
            let access = try await self.access(client: client, c)
            let found = try await self.fetchSamples([descriptor], limit: 0, sorts: [], access: access, c)
                .compactMap { $0 as? HKQuantitySample }
            let points = try await self.seriesPoints(of: found.filter { $0.count > 1 }.map(\.uuid), c)
            return found.map { ($0, points[$0.uuid]) }
        }
    }

    func effortRelationships(
        _ workouts: HKQueryDescriptor, after anchor: Int64, client: String
    ) async throws -> EffortRelationshipRows {
        try await transaction(write: false) { c in
            let access = try await self.access(client: client, c)
            let found = try await self.fetchSamples([workouts], limit: 0, sorts: [], access: access, c)
                .compactMap { $0 as? HKWorkout }
            let newest: Int64 = try await c.rows("SELECT coalesce(max(id), 0) FROM workout_effort").first?.at(0) ?? 0
            var rows: [(workout: UUID, activity: UUID?, sample: UUID, type: String)] = []
            if !found.isEmpty {
                for row in try await c.rows(
                    """
                    SELECT w.uuid, e.activity_uuid, s.uuid, t.identifier FROM workout_effort e
                    JOIN workouts w ON w.sample_id = e.workout_id JOIN samples s ON s.id = e.sample_id
                    JOIN types t ON t.id = s.type_id
                    WHERE e.id > ? AND w.uuid = ANY(?::uuid[]) ORDER BY e.id
                    """,
                    [.integer(anchor), .uuidArray(found.map(\.uuid))])
                {
                    rows.append((try row.at(0), try row.at(1), try row.at(2), try row.at(3)))
                }
            }
            let sampleUUIDs = Set(rows.map(\.sample))
            let effortTypes: [HKSampleType] = [
                HKQuantityType(.workoutEffortScore), HKQuantityType(.estimatedWorkoutEffortScore),
            ]
            let samples =
                sampleUUIDs.isEmpty
                ? []
                : try await self.fetchSamples(
                    effortTypes.map {
                        HKQueryDescriptor(sampleType: $0, predicate: HKQuery.predicateForObjects(with: sampleUUIDs))
                    }, limit: 0, sorts: [], access: access, c)
            return EffortRelationshipRows(rows: rows, workouts: found, samples: samples, newest: max(anchor, newest))
        }
    }

    func heartbeatBeats(of series: UUID) async throws -> [UInt8]? {
        try await transaction(write: false) { c in
            try await c.rows(
                "SELECT hb.beats FROM heartbeat_series hb JOIN samples s ON s.id = hb.sample_id WHERE s.uuid = ?",
                [.uuid(series)]
            ).first?.bytes(0)
        }
    }

    func routeLocations(of route: UUID) async throws -> [CLLocation] {
        let bytes = try await transaction(write: false) { c in
            try await c.rows(
                "SELECT r.locations FROM workout_routes r JOIN samples s ON s.id = r.sample_id WHERE s.uuid = ?",
                [.uuid(route)]
            ).first?.bytes(0)
        }
        guard let bytes else { return [] }
        do {
            return try WorkoutRouteCodec.decode(bytes)
        } catch {
            throw HKError(
                .errorDatabaseInaccessible,
                "The workout route \(route) in the health store \(url) is damaged: \(error.reason).")
        }
    }

    func workoutSensors(of workout: UUID) async throws -> [HKWorkoutSensor] {
        try await transaction(write: false) { c in
            var sensors: [HKWorkoutSensor] = []
            for row in try await c.rows(
                """
                SELECT ws.device_id, ws.battery_first, ws.battery_last FROM workout_sensors ws
                JOIN workouts w ON w.sample_id = ws.workout_id WHERE w.uuid = ? ORDER BY ws.position
                """, [.uuid(workout)])
            {
                sensors.append(
                    HKWorkoutSensor(
                        device: try await self.device(id: try row.at(0), c),
                        batteryPercentAtStart: try row.at(1, as: Int32?.self).map(Int.init),
                        batteryPercentAtEnd: try row.at(2, as: Int32?.self).map(Int.init)))
            }
            return sensors
        }
    }

    // MARK: Sources

    func sourcePriority(of type: HKQuantityType) async throws -> [HKSource] {
        try await transaction(write: false) { c in
            guard let typeID = try await self.existingTypeID(type.identifier, c) else { return [] }
            let ranks = try await self.sourceRanks(typeID: typeID, c)
            var sources: [HKSource] = []
            for (id, _) in ranks.sorted(by: { $0.value < $1.value }) {
                let source = try await self.sourceRevision(id: id, c).source
                if !sources.contains(source) { sources.append(source) }
            }
            return sources
        }
    }

    func setSourcePriority(
        of type: HKQuantityType, _ decide: @escaping @Sendable ([HKSource]) throws -> [String]
    ) async throws {
        let current = try await sourcePriority(of: type)
        try await transaction(write: true) { c in
            let typeID = try await self.typeID(type.identifier, c)
            let bundles = try decide(current)
            try await c.rows("DELETE FROM source_priorities WHERE type_id = ?", [.integer(typeID)])
            for (position, bundle) in bundles.enumerated() {
                try await c.rows(
                    "INSERT INTO source_priorities (type_id, bundle_identifier, position) VALUES (?, ?, ?)",
                    [.integer(typeID), .text(bundle), .integer(Int64(position))])
            }
        }
    }

    // MARK: Zones and profile

    func workoutProfile() async throws -> WorkoutProfile {
        try await transaction(write: false) { c in
            var profile = WorkoutProfile()
            guard
                let row = try await c.rows(
                    """
                    SELECT date_of_birth, resting_heart_rate, maximum_heart_rate, functional_threshold_power,
                           move_goal, exercise_goal, stand_goal, heart_rate_zones, cycling_power_zones
                    FROM workout_profile
                    """
                ).first
            else { return profile }
            profile.dateOfBirth = try row.at(0, as: String?.self).flatMap(WorkoutProfile.parseDate)
            profile.restingHeartRate = try row.at(1)
            profile.maximumHeartRate = try row.at(2)
            profile.functionalThresholdPower = try row.at(3)
            profile.moveGoal = try row.at(4)
            profile.exerciseGoal = try row.at(5)
            profile.standGoal = try row.at(6)
            profile.heartRateZoneBoundaries = try row.at(7, as: String?.self).flatMap(StoreDatabase.decodeList)
            profile.cyclingPowerZoneBoundaries = try row.at(8, as: String?.self).flatMap(StoreDatabase.decodeList)
            return profile
        }
    }

    func workoutProfileBlocking() throws -> WorkoutProfile {
        try Self.blocking { try await self.workoutProfile() }
    }

    func setWorkoutProfile(_ profile: WorkoutProfile) async throws {
        try await transaction(write: true) { c in
            try await c.rows("DELETE FROM workout_profile")
            try await c.rows(
                """
                INSERT INTO workout_profile (date_of_birth, resting_heart_rate, maximum_heart_rate,
                    functional_threshold_power, move_goal, exercise_goal, stand_goal, heart_rate_zones,
                    cycling_power_zones) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    PostgresValue(profile.dateOfBirth.flatMap(WorkoutProfile.formatDate)),
                    PostgresValue(profile.restingHeartRate), PostgresValue(profile.maximumHeartRate),
                    PostgresValue(profile.functionalThresholdPower), PostgresValue(profile.moveGoal),
                    PostgresValue(profile.exerciseGoal), PostgresValue(profile.standGoal),
                    PostgresValue(profile.heartRateZoneBoundaries.map(StoreDatabase.encodeList)),
                    PostgresValue(profile.cyclingPowerZoneBoundaries.map(StoreDatabase.encodeList)),
                ])
        }
    }

    func zonePreferences() async throws -> ZonePreferenceInputs {
        let profile = try await workoutProfile()
        return try await transaction(write: false) { c in
            func latest(_ type: HKQuantityType) async throws -> Double? {
                try await c.rows(
                    """
                    SELECT s.value FROM samples s JOIN types t ON t.id = s.type_id WHERE t.identifier = ?
                    ORDER BY s.start DESC, s.id DESC LIMIT 1
                    """, [.text(type.identifier)]
                ).first?.at(0)
            }
            return ZonePreferenceInputs(
                profile: profile, restingHeartRate: try await latest(HKQuantityType(.restingHeartRate)),
                functionalThresholdPower: try await latest(HKQuantityType(.cyclingFunctionalThresholdPower)))
        }
    }

    // MARK: Paired sensors

    /// Keeps a sensor as paired; pairing one already paired renames it and updates what it measures (its pairing
    /// date stays, so the order of `pairedSensors` does not change).
    func pairSensor(_ sensor: PairedSensor, at date: Date) async throws {
        try await transaction(write: true) { c in
            _ = try await c.rows(
                """
                INSERT INTO paired_sensors (identifier, name, capabilities, paired) VALUES (?, ?, ?, ?)
                ON CONFLICT (owner, identifier) DO UPDATE SET name = excluded.name, capabilities = excluded.capabilities
                """,
                [
                    .text(sensor.identifier), .text(sensor.name), .integer(Int64(sensor.capabilities.rawValue)),
                    .real(date.storeValue),
                ])
        }
    }

    func unpairSensor(identifier: String) async throws -> Bool {
        try await transaction(write: true) { c in
            !(try await c.rows(
                "DELETE FROM paired_sensors WHERE identifier = ? RETURNING identifier", [.text(identifier)]
            ).isEmpty)
        }
    }

    func pairedSensors() async throws -> [PairedSensor] {
        try await transaction(write: false) { c in
            try await c.rows("SELECT identifier, name, capabilities FROM paired_sensors ORDER BY paired, identifier")
                .map {
                    PairedSensor(
                        identifier: try $0.at(0), name: try $0.at(1),
                        capabilities: SensorCapabilities(
                            rawValue: UInt16(truncatingIfNeeded: try $0.at(2, as: Int64.self))))
                }
        }
    }

    // MARK: Condensing

    /// Condenses as the SQLite store does (``CondenseRuns``), in one transaction; each series keeps its points with
    /// their own times (the server keeps no shared timelines), and each original is one `deleted_objects` row.
    func condenseWorkout(_ workout: UUID, now: Date) async throws -> CondenseCounts? {
        try await transaction(write: true) { c -> CondenseCounts? in
            guard let workoutID = try await self.workoutID(uuid: workout, c) else { return nil }
            var groups: [[Int64]: CondenseRuns] = [:]  // [type, source] → candidates
            for row in try await c.rows(CondenseRuns.candidatesSQL, [.integer(workoutID)]) {
                let id: Int64 = try row.at(0)
                groups[[try row.at(1), try row.at(2)], default: CondenseRuns()].candidates[id] =
                    CondenseRuns.Candidate(
                        id: id, device: try row.at(3),
                        quantity: SeriesQuantity(start: try row.at(4), end: try row.at(5), value: try row.at(6)))
            }
            var counts = CondenseCounts()
            guard groups.values.contains(where: { $0.candidates.count > 1 }) else { return counts }
            let types = try await self.typesByID(c)
            for (key, group) in groups.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                guard group.candidates.count > 1, let identifier = types[key[0]],
                    let type = CondenseRuns.condenses(try HKSampleType.stored(identifier: identifier))
                else { continue }
                let span = group.streamSpan
                let stream = try await c.rows(
                    CondenseRuns.streamSQL,
                    [.integer(key[0]), .integer(key[1]), .real(span.lowerBound), .real(span.upperBound)]
                ).map { (id: try $0.at(0, as: Int64.self), start: try $0.at(1, as: Double.self)) }
                let runs = group.runs(stream: stream)
                guard !runs.isEmpty else { continue }
                let source = try await self.sourceRevision(id: key[1], c)
                var devices: [Int64: HKDevice] = [:]
                for run in runs {
                    var device: HKDevice?
                    if let id = run.device {
                        if devices[id] == nil { devices[id] = try await self.device(id: id, c) }
                        device = devices[id]
                    }
                    let quantities = run.quantities(style: type.aggregationStyle)
                    try await self.insertSeries(
                        QuantitySeriesToSave(
                            type: type, quantities: quantities, start: quantities[0].start,
                            end: quantities.map(\.end).max()!, uuid: UUID(), metadata: nil, device: device,
                            source: source), workoutID: workoutID, c)
                    counts.samplesRemoved += try await self.deleteSamples(ids: run.members.map(\.id), now: now, c)
                    counts.seriesCreated += 1
                    counts.quantitiesStored += quantities.count
                }
            }
            return counts
        }
    }

    func workouts(endedBefore date: Date) async throws -> [UUID] {
        try await transaction(write: false) { c in
            try await c.rows(
                "SELECT w.uuid FROM workouts w JOIN samples s ON s.id = w.sample_id WHERE s.\"end\" < ? ORDER BY s.id",
                [.real(date.storeValue)]
            ).map { try $0.at(0, as: UUID.self) }
        }
    }

    func purgeDeletionRecords(before cutoff: Date) async throws -> Int {
        try await transaction(write: true) { c in
            try await c.rows(
                "DELETE FROM deleted_objects WHERE deleted IS NULL OR deleted < ? RETURNING anchor",
                [.real(cutoff.storeValue)]
            ).count
        }
    }

    // MARK: Sharing

    func shareStore(with reader: String, at date: Date) async throws {
        guard reader != url.user else {
            throw HKError(.errorInvalidArgument, "\(url.user)'s health store is already theirs to read.")
        }
        try await transaction(write: true) { c in
            let known = try await c.rows(
                "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ?)", [.text(reader)]
            ).first?.at(0, as: Bool.self)
            guard known == true else {
                throw HKError(
                    .errorInvalidArgument,
                    "The PostgreSQL server of the health store \(self.url) has no role named \(reader) to share with.")
            }
            try await c.rows(
                "INSERT INTO store_shares (reader, shared) VALUES (?, ?) ON CONFLICT (owner, reader) DO NOTHING",
                [.text(reader), .real(date.storeValue)])
        }
    }

    func stopSharingStore(with reader: String) async throws -> Bool {
        try await transaction(write: true) { c in
            !(try await c.rows(
                "DELETE FROM store_shares WHERE owner = current_user AND reader = ? RETURNING reader", [.text(reader)]
            ).isEmpty)
        }
    }

    func storeShares() async throws -> [StoreShare] {
        try await transaction(write: false) { c in
            try await c.rows("SELECT owner, reader, shared FROM store_shares ORDER BY shared, owner, reader").map {
                StoreShare(
                    owner: try $0.at(0), reader: try $0.at(1), date: Date(storeValue: try $0.at(2, as: Double.self)))
            }
        }
    }

    // MARK: Change notifications

    func changeProbe() async throws -> (any StoreChangeProbe)? { nil }
}
