import Foundation
import PostgresNIO

/// Ids of types, sources and devices, and the samples' rows: the PostgreSQL backend's side of what the SQLite
/// backend keeps in `StoreDatabase` and `+Write`/`+Decode`. Values mean the same in both (``MetadataCoding``,
/// `storeValue` dates, storage units).
extension PostgresStoreBackend {
    /// The id of a type, inserted on first use. Only ids read from committed rows are remembered.
    func typeID(_ identifier: String, _ c: PostgresConnection) async throws -> Int64 {
        if let id = try await existingTypeID(identifier, c) { return id }
        try await c.rows(
            "INSERT INTO types (identifier) VALUES (?) ON CONFLICT (identifier) DO NOTHING", [.text(identifier)])
        guard let row = try await c.rows("SELECT id FROM types WHERE identifier = ?", [.text(identifier)]).first
        else { throw HKError(.errorDatabaseInaccessible, "The type table of \(url) is damaged.") }
        return try row.at(0)
    }

    func existingTypeID(_ identifier: String, _ c: PostgresConnection) async throws -> Int64? {
        if let id = typeIDs.withLock({ $0[identifier] }) { return id }
        guard let row = try await c.rows("SELECT id FROM types WHERE identifier = ?", [.text(identifier)]).first
        else { return nil }
        let id: Int64 = try row.at(0)
        typeIDs.withLock { $0[identifier] = id }
        return id
    }

    /// Every stored type, by id.
    func typesByID(_ c: PostgresConnection) async throws -> [Int64: String] {
        var types: [Int64: String] = [:]
        for row in try await c.rows("SELECT id, identifier FROM types") { types[try row.at(0)] = try row.at(1) }
        return types
    }

    func sourceID(_ revision: HKSourceRevision, _ c: PostgresConnection) async throws -> Int64 {
        let os = revision.operatingSystemVersion
        let key = [
            revision.source.name, revision.source.bundleIdentifier, revision.version ?? "\u{2}",
            revision.productType ?? "\u{2}", "\(os.majorVersion).\(os.minorVersion).\(os.patchVersion)",
        ]
        .joined(separator: "\u{1}")
        let found = try await c.rows(
            """
            INSERT INTO sources (key, name, bundle_identifier, version, product_type, os_version)
            VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (owner, key) DO UPDATE SET key = excluded.key RETURNING id
            """,
            [
                .text(key), .text(revision.source.name), .text(revision.source.bundleIdentifier),
                PostgresValue(revision.version), PostgresValue(revision.productType),
                .text("\(os.majorVersion).\(os.minorVersion).\(os.patchVersion)"),
            ])
        guard let row = found.first else { throw HKError(.errorDatabaseInaccessible, "The source table is damaged.") }
        return try row.at(0)
    }

    func sourceRevision(id: Int64, _ c: PostgresConnection) async throws -> HKSourceRevision {
        guard
            let row = try await c.rows(
                "SELECT name, bundle_identifier, version, product_type, os_version FROM sources WHERE id = ?",
                [.integer(id)]
            ).first
        else {
            throw HKError(.errorDatabaseInaccessible, "The health store \(url) is damaged: unknown source \(id).")
        }
        let parts = (try row.at(4, as: String.self)).split(separator: ".").map { Int($0) ?? 0 } + [0, 0, 0]
        return HKSourceRevision(
            source: HKSource(name: try row.at(0), bundleIdentifier: try row.at(1)), version: try row.at(2),
            productType: try row.at(3),
            operatingSystemVersion: OperatingSystemVersion(
                majorVersion: parts[0], minorVersion: parts[1], patchVersion: parts[2]))
    }

    /// A device's identity in `devices.key`. PostgreSQL text holds no NUL: an absent field is U+0002 here (U+0000 in
    /// the SQLite store).
    static func deviceKey(_ device: HKDevice) -> String {
        device.fields.map { $0 ?? "\u{2}" }.joined(separator: "\u{1}")
    }

    func deviceID(_ device: HKDevice, _ c: PostgresConnection) async throws -> Int64 {
        let key = Self.deviceKey(device)
        let found = try await c.rows(
            """
            INSERT INTO devices (key, name, manufacturer, model, hardware_version, firmware_version, software_version,
                                 local_identifier, udi_device_identifier)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (owner, key) DO UPDATE SET key = excluded.key RETURNING id
            """, [.text(key)] + device.fields.map(PostgresValue.init))
        guard let row = found.first else { throw HKError(.errorDatabaseInaccessible, "The device table is damaged.") }
        return try row.at(0)
    }

    func device(id: Int64, _ c: PostgresConnection) async throws -> HKDevice {
        guard
            let row = try await c.rows(
                """
                SELECT name, manufacturer, model, hardware_version, firmware_version, software_version,
                       local_identifier, udi_device_identifier FROM devices WHERE id = ?
                """, [.integer(id)]
            ).first
        else {
            throw HKError(.errorDatabaseInaccessible, "The health store \(url) is damaged: unknown device \(id).")
        }
        return HKDevice(
            name: try row.at(0), manufacturer: try row.at(1), model: try row.at(2), hardwareVersion: try row.at(3),
            firmwareVersion: try row.at(4), softwareVersion: try row.at(5), localIdentifier: try row.at(6),
            udiDeviceIdentifier: try row.at(7))
    }

    // MARK: Writing samples

    /// Inserts objects (the caller owns the transaction); objects already stored (same UUID) are left as they are
    /// and, with `workoutID`, associated with it. Returns the row id of every object, in order.
    ///
    /// A few round trips for any number of samples: which UUIDs are stored already is one query per 1,000, plain
    /// quantity and category samples go 64 to a statement (``SampleRowBatch``), types and devices are looked up once
    /// each; a workout, heartbeat series or route is written on its own, after the rows before it.
    func insert(
        _ objects: [HKObject], source: HKSourceRevision, workoutID: Int64? = nil, _ c: PostgresConnection
    ) async throws -> [Int64] {
        let samples = try objects.map { object in
            guard let sample = object as? HKSample else {
                throw HKError(.errorInvalidArgument, "Only samples can be saved; \(type(of: object)) is not one.")
            }
            return sample
        }
        let sourceRowID = try await sourceID(source, c)
        var stored = try await storedSampleIDs(samples.map(\.uuid), c)
        var batch = SampleRowBatch(sourceID: sourceRowID, workoutID: workoutID, keepsIDs: true)
        var deviceIDs: [String: Int64] = [:]
        var queued = Set<UUID>()
        for sample in samples {
            if let existing = stored[sample.uuid] {
                if let workoutID { try await associate(sampleID: existing, workoutID: workoutID, c) }
                continue
            }
            // The same object twice in one save is stored once.
            guard queued.insert(sample.uuid).inserted else { continue }
            let typeRowID = try await typeID(sample.sampleType.identifier, c)
            var deviceRowID: Int64?
            if let device = sample.device {
                let key = Self.deviceKey(device)
                if let id = deviceIDs[key] {
                    deviceRowID = id
                } else {
                    deviceRowID = try await deviceID(device, c)
                    deviceIDs[key] = deviceRowID
                }
            }
            var value: Double?
            var unit: String?
            if let quantitySample = sample as? HKQuantitySample {
                if quantitySample.count > 1 {
                    throw HKError(
                        .errorInvalidArgument,
                        "A quantity series (count > 1) can only be saved by HKQuantitySeriesSampleBuilder.")
                }
                let storageUnit = quantitySample.quantityType.storageUnit
                value = quantitySample.quantity.doubleValue(for: storageUnit)
                if quantitySample.quantity.unit != storageUnit { unit = quantitySample.quantity.unit.unitString }
            } else if let categorySample = sample as? HKCategorySample {
                value = Double(categorySample.value)
            }
            let row: [PostgresValue] = [
                .uuid(sample.uuid), .integer(typeRowID), .real(sample.startDate.storeValue),
                .real(sample.endDate.storeValue), PostgresValue(value), PostgresValue(unit), PostgresValue(deviceRowID),
                PostgresValue(try MetadataCoding.encode(sample.metadata)),
            ]
            guard sample is HKWorkout || sample is HKHeartbeatSeriesSample || sample is HKWorkoutRoute else {
                try await batch.add(row, c)
                continue
            }
            // Rows before it first, so anchors follow the objects' order.
            try await batch.flush(c)
            try await batch.add(row, c)
            try await batch.flush(c)
            guard let id = batch.ids[sample.uuid] else {
                throw HKError(.errorDatabaseInaccessible, "The health store \(url) did not store \(sample.uuid).")
            }
            if let workout = sample as? HKWorkout {
                try await insertWorkoutDetails(workout, id: id, c)
            } else if let series = sample as? HKHeartbeatSeriesSample {
                guard let beats = series.beats else {
                    throw HKError(
                        .errorInvalidArgument, "A heartbeat series can only be saved by the builder that made it.")
                }
                try await c.rows(
                    "INSERT INTO heartbeat_series (sample_id, count, beats) VALUES (?, ?, ?)",
                    [.integer(id), .integer(Int64(beats.count)), .bytes(HeartbeatSeriesCodec.encode(beats))])
            } else if let route = sample as? HKWorkoutRoute {
                guard let locations = route.locations else {
                    throw HKError(
                        .errorInvalidArgument, "A workout route can only be saved by the builder that made it.")
                }
                try await c.rows(
                    "INSERT INTO workout_routes (sample_id, count, locations) VALUES (?, ?, ?)",
                    [.integer(id), .integer(Int64(locations.count)), .bytes(WorkoutRouteCodec.encode(locations))])
            }
        }
        try await batch.flush(c)
        stored.merge(batch.ids) { old, _ in old }
        return try samples.map { sample in
            guard let id = stored[sample.uuid] else {
                throw HKError(.errorDatabaseInaccessible, "The health store \(url) did not store \(sample.uuid).")
            }
            return id
        }
    }

    /// How many UUIDs one statement names.
    static let uuidsPerStatement = 1_000

    /// `uuids` in slices of ``uuidsPerStatement``.
    static func slices(_ uuids: [UUID]) -> [ArraySlice<UUID>] {
        stride(from: 0, to: uuids.count, by: uuidsPerStatement).map {
            uuids[$0 ..< min($0 + uuidsPerStatement, uuids.count)]
        }
    }

    /// The row ids of the stored samples among `uuids`, one query per 1,000.
    private func storedSampleIDs(_ uuids: [UUID], _ c: PostgresConnection) async throws -> [UUID: Int64] {
        var found: [UUID: Int64] = [:]
        for slice in Self.slices(uuids) {
            for row in try await c.rows(
                "SELECT uuid, id FROM samples WHERE uuid = ANY(?::uuid[])", [.uuidArray(slice)])
            {
                found[try row.at(0, as: UUID.self)] = try row.at(1, as: Int64.self)
            }
        }
        return found
    }

    private func insertWorkoutDetails(_ workout: HKWorkout, id: Int64, _ c: PostgresConnection) async throws {
        try await c.rows(
            "INSERT INTO workouts (sample_id, uuid, activity_type, duration) VALUES (?, ?, ?, ?)",
            [
                .integer(id), .uuid(workout.uuid), .integer(Int64(workout.workoutActivityType.rawValue)),
                .real(workout.duration),
            ])
        for (position, event) in (workout.workoutEvents ?? []).enumerated() {
            try await c.rows(
                """
                INSERT INTO workout_events (workout_id, position, type, start, "end", metadata) VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    .integer(id), .integer(Int64(position)), .integer(Int64(event.type.rawValue)),
                    .real(event.dateInterval.start.storeValue), .real(event.dateInterval.end.storeValue),
                    PostgresValue(try MetadataCoding.encode(event.metadata)),
                ])
        }
        for (type, statistics) in workout.allStatistics {
            try await insertStatistics(
                statistics, table: "workout_statistics", owner: "workout_id", ownerID: id,
                typeID: try await typeID(type.identifier, c), c)
        }
        for activity in workout.workoutActivities {
            let configuration = activity.workoutConfiguration
            let row = try await c.rows(
                """
                INSERT INTO workout_activities (uuid, workout_id, activity_type, location_type, swimming_location_type,
                    lap_length_meters, start, "end", duration, metadata)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                """,
                [
                    .uuid(activity.uuid), .integer(id), .integer(Int64(configuration.activityType.rawValue)),
                    .integer(Int64(configuration.locationType.rawValue)),
                    .integer(Int64(configuration.swimmingLocationType.rawValue)),
                    PostgresValue(configuration.lapLength.map { $0.doubleValue(for: .meter()) }),
                    .real(activity.startDate.storeValue), PostgresValue(activity.endDate?.storeValue),
                    .real(activity.duration), PostgresValue(try MetadataCoding.encode(activity.metadata)),
                ])
            let activityID: Int64 = try row[0].at(0)
            for (type, statistics) in activity.allStatistics {
                try await insertStatistics(
                    statistics, table: "activity_statistics", owner: "activity_id", ownerID: activityID,
                    typeID: try await typeID(type.identifier, c), c)
            }
            try await insertZoneGroups(activity.zoneGroupsByType, workoutID: id, activityID: activityID, c)
        }
        try await insertZoneGroups(workout.zoneGroupsByType, workoutID: id, activityID: nil, c)
    }

    /// Writes the zone groups of a workout (`activityID` nil) or of one of its activities.
    private func insertZoneGroups(
        _ groups: [HKQuantityType: HKWorkoutZoneGroup]?, workoutID: Int64, activityID: Int64?,
        _ c: PostgresConnection
    ) async throws {
        for (type, group) in groups ?? [:] {
            try await c.rows(
                """
                INSERT INTO workout_zone_groups (workout_id, activity_id, type_id, source, boundaries, durations)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    .integer(workoutID), PostgresValue(activityID), .integer(try await typeID(type.identifier, c)),
                    .integer(Int64(group.configuration.source.storeCode)),
                    .reals(group.configuration.boundaryValues), .reals(group.durations),
                ])
        }
    }

    private func insertStatistics(
        _ statistics: HKStatistics, table: String, owner: String, ownerID: Int64, typeID: Int64,
        _ c: PostgresConnection
    ) async throws {
        let v = statistics.merged
        try await c.rows(
            """
            INSERT INTO \(table) (\(owner), type_id, start, "end", sum, average, minimum, maximum, most_recent,
                                  most_recent_start, most_recent_end, duration)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .integer(ownerID), .integer(typeID), .real(statistics.startDate.storeValue),
                .real(statistics.endDate.storeValue), PostgresValue(v.sum), PostgresValue(v.average),
                PostgresValue(v.minimum), PostgresValue(v.maximum), PostgresValue(v.mostRecent),
                PostgresValue(v.mostRecentInterval?.start.storeValue),
                PostgresValue(v.mostRecentInterval?.end.storeValue), PostgresValue(v.duration),
            ])
    }

    func sampleID(uuid: UUID, _ c: PostgresConnection) async throws -> Int64? {
        try await c.rows("SELECT id FROM samples WHERE uuid = ?", [.uuid(uuid)]).first?.at(0)
    }

    func workoutID(uuid: UUID, _ c: PostgresConnection) async throws -> Int64? {
        try await c.rows("SELECT sample_id FROM workouts WHERE uuid = ?", [.uuid(uuid)]).first?.at(0)
    }

    /// Associates a stored sample with a stored workout: in the sample's row the first time, in `workout_samples`
    /// after that.
    func associate(sampleID: Int64, workoutID: Int64, _ c: PostgresConnection) async throws {
        guard sampleID != workoutID else { return }
        guard let row = try await c.rows("SELECT workout_id FROM samples WHERE id = ?", [.integer(sampleID)]).first
        else { return }
        switch try row.at(0, as: Int64?.self) {
        case nil:
            try await c.rows(
                "UPDATE samples SET workout_id = ? WHERE id = ?", [.integer(workoutID), .integer(sampleID)])
        case workoutID:
            return
        default:
            try await c.rows(
                "INSERT INTO workout_samples (workout_id, sample_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
                [.integer(workoutID), .integer(sampleID)])
        }
    }

    /// Associates the stored samples among `uuids` with a stored workout, as ``associate(sampleID:workoutID:_:)``
    /// does one, in two statements per 1,000 (unknown UUIDs are skipped).
    func associate(uuids: [UUID], workoutID: Int64, _ c: PostgresConnection) async throws {
        for slice in Self.slices(uuids) {
            let list = PostgresValue.uuidArray(slice)
            try await c.rows(
                """
                INSERT INTO workout_samples (workout_id, sample_id)
                SELECT ?, id FROM samples WHERE uuid = ANY(?::uuid[]) AND id <> ? AND workout_id <> ?
                ON CONFLICT DO NOTHING
                """, [.integer(workoutID), list, .integer(workoutID), .integer(workoutID)])
            try await c.rows(
                "UPDATE samples SET workout_id = ? WHERE uuid = ANY(?::uuid[]) AND id <> ? AND workout_id IS NULL",
                [.integer(workoutID), list, .integer(workoutID)])
        }
    }

    /// Inserts objects, each correlation with the samples it holds (StoredCorrelations): the correlation's row, then
    /// theirs, each naming it. A sample some correlation already holds stays with that one.
    func insertWithCorrelations(_ objects: [HKObject], source: HKSourceRevision, _ c: PostgresConnection) async throws {
        let (rows, links) = StoredCorrelations.rows(objects)
        let ids = try await insert(rows, source: source, c)
        for link in links where !link.objects.isEmpty {
            try await c.rows(
                "UPDATE samples SET correlation_id = ? WHERE id = ANY(?) AND correlation_id IS NULL",
                [.integer(ids[link.correlation]), .integers(link.objects.map { ids[$0] })])
        }
    }

    /// Deletes the samples with these ids, recording each in `deleted_objects` under a fresh anchor. The samples a
    /// deleted correlation holds go with it, in the same statement (StoredCorrelations); they are not counted.
    func deleteSamples(ids: [Int64], now: Date, _ c: PostgresConnection) async throws -> Int {
        var count = 0
        for start in stride(from: 0, to: ids.count, by: Self.uuidsPerStatement) {
            let slice = PostgresValue.integers(Array(ids[start ..< min(start + Self.uuidsPerStatement, ids.count)]))
            let rows = try await c.rows(
                """
                WITH gone AS (
                    DELETE FROM samples WHERE id = ANY(?) OR correlation_id = ANY(?)
                    RETURNING id, uuid, type_id, source_id, metadata),
                recorded AS (
                    INSERT INTO deleted_objects (anchor, uuid, type_id, source_id, metadata, deleted)
                    SELECT nextval('anchors'), uuid, type_id, source_id, metadata, ?
                    FROM (SELECT * FROM gone ORDER BY id) g)
                SELECT count(*) FROM gone WHERE id = ANY(?)
                """, [slice, slice, .real(now.storeValue), slice])
            count += Int(try rows.first?.at(0, as: Int64.self) ?? 0)
        }
        return count
    }
}

/// Sample rows waiting to be inserted, written 64 at a time (one statement and one round trip each), each type's
/// first row also recorded in `type_sources` (the default source priority).
struct SampleRowBatch {
    static let rowsPerStatement = 64
    let sourceID: Int64
    let workoutID: Int64?
    /// Whether ``ids`` keeps the row id of every row written.
    let keepsIDs: Bool
    /// The row ids of the rows written, by UUID (when ``keepsIDs``).
    private(set) var ids: [UUID: Int64] = [:]
    private var waiting: [[PostgresValue]] = []

    init(sourceID: Int64, workoutID: Int64?, keepsIDs: Bool = false) {
        self.sourceID = sourceID
        self.workoutID = workoutID
        self.keepsIDs = keepsIDs
    }

    /// Adds a row: uuid, type_id, start, end, value, unit, device_id, metadata.
    mutating func add(_ row: [PostgresValue], _ c: PostgresConnection) async throws {
        waiting.append(row + [.integer(sourceID), PostgresValue(workoutID)])
        if waiting.count == Self.rowsPerStatement { try await flush(c) }
    }

    mutating func flush(_ c: PostgresConnection) async throws {
        guard !waiting.isEmpty else { return }
        let placeholders = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: waiting.count)
        let inserted = try await c.rows(
            PostgresStatement(
                """
                INSERT INTO samples (uuid, type_id, start, "end", value, unit, device_id, metadata, source_id, workout_id)
                VALUES \(placeholders.joined(separator: ", ")) RETURNING id, type_id, uuid
                """, waiting.flatMap { $0 }))
        waiting.removeAll(keepingCapacity: true)
        var first: [Int64: Int64] = [:]
        for row in inserted {
            let (id, type): (Int64, Int64) = (try row.at(0), try row.at(1))
            first[type] = min(first[type] ?? id, id)
            if keepsIDs { ids[try row.at(2, as: UUID.self)] = id }
        }
        guard !first.isEmpty else { return }
        try await c.rows(
            PostgresStatement(
                """
                INSERT INTO type_sources (type_id, source_id, first_anchor)
                VALUES \(Array(repeating: "(?, ?, ?)", count: first.count).joined(separator: ", ")) ON CONFLICT DO NOTHING
                """,
                first.sorted { $0.key < $1.key }.flatMap { [.integer($0.key), .integer(sourceID), .integer($0.value)] })
        )
    }
}

/// Quantity series: a sample row with the series' quantity, and a `quantity_series` row with its summary and points.
extension PostgresStoreBackend {
    /// Inserts a series in the caller's transaction; returns its sample's row id.
    @discardableResult
    func insertSeries(
        _ series: QuantitySeriesToSave, workoutID: Int64? = nil, _ c: PostgresConnection
    ) async throws
        -> Int64
    {
        let style = series.type.aggregationStyle
        let summary = StatisticsAccumulator.summary(style: style, of: series.quantities, seriesEnd: series.end)
        let quantity = HKQuantity(
            unit: series.type.storageUnit, doubleValue: StoreDatabase.seriesQuantity(summary, style: style))
        let (start, end) = (Date(storeValue: series.start), Date(storeValue: series.end))
        let metadata = try MetadataCoding.decode(series.metadata)
        // Saved as one quantity (the series' own), then given its series row.
        let sample: HKQuantitySample =
            style == .cumulative
            ? HKCumulativeQuantitySample(
                quantityType: series.type, quantity: quantity, startDate: start, endDate: end, count: 1,
                uuid: series.uuid, metadata: metadata, device: series.device, sourceRevision: series.source)
            : HKDiscreteQuantitySample(
                quantityType: series.type, quantity: quantity, startDate: start, endDate: end, count: 1,
                uuid: series.uuid, metadata: metadata, device: series.device, sourceRevision: series.source,
                summary: nil)
        guard let id = try await insert([sample], source: series.source, workoutID: workoutID, c).first else {
            throw HKError(.errorDatabaseInaccessible, "The health store \(url) did not store \(series.uuid).")
        }
        let recent = summary.mostRecent
        try await c.rows(
            """
            INSERT INTO quantity_series (sample_id, count, sum, weighted_sum, weight, minimum, maximum, most_recent,
                                         most_recent_start, most_recent_end, most_recent_clipped_end, duration, points)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .integer(id), .integer(Int64(series.quantities.count)), .real(summary.sum),
                .real(summary.weightedSum), .real(summary.weight),
                PostgresValue(summary.minimum.isFinite ? summary.minimum : nil),
                PostgresValue(summary.maximum.isFinite ? summary.maximum : nil), PostgresValue(recent?.value),
                PostgresValue(recent?.start), PostgresValue(recent?.end), PostgresValue(recent?.clippedEnd),
                .real(summary.duration), .bytes(Array(QuantitySeriesCodec.encode(series.quantities))),
            ])
        return id
    }

    /// The points of the stored series among `uuids`, by sample UUID.
    func seriesPoints(of uuids: [UUID], _ c: PostgresConnection) async throws -> [UUID: [SeriesQuantity]] {
        var points: [UUID: [SeriesQuantity]] = [:]
        for slice in Self.slices(uuids) {
            for row in try await c.rows(
                """
                SELECT s.uuid, q.points FROM quantity_series q JOIN samples s ON s.id = q.sample_id
                WHERE s.uuid = ANY(?::uuid[])
                """, [.uuidArray(slice)])
            {
                let uuid: UUID = try row.at(0)
                points[uuid] = try Self.decodePoints(try row.bytes(1), series: uuid)
            }
        }
        return points
    }

    /// A series' points decoded; a damaged one is one sentence.
    static func decodePoints(_ bytes: [UInt8]?, series: CustomStringConvertible) throws -> [SeriesQuantity] {
        do {
            return try QuantitySeriesCodec.decode(Data(bytes ?? []))
        } catch {
            throw HKError(.errorDatabaseInaccessible, "The health store is damaged: series \(series) cannot be read.")
        }
    }
}
