import Foundation
import GRDB
import HealthKitModel
import WorkoutEngine

/// Condensing a workout's samples into series, in the caller's write transaction.
extension StoreDatabase {
    /// Folds the workout's own samples (associated with it alone, without metadata) of condensable types into one
    /// series per run (``CondenseRuns``); deletes the originals, recording them as deleted objects.
    func condenseWorkout(id workoutID: Int64, now: Date, _ db: Database) throws -> CondenseCounts {
        var groups: [[Int64]: CondenseRuns] = [:]  // [type, source] → candidates
        let rows = try Row.fetchCursor(db, sql: CondenseRuns.candidatesSQL, arguments: [workoutID])
        while let row = try cursor(rows) {
            let key: [Int64] = [row[1], row[2]]
            groups[key, default: CondenseRuns()].candidates[row[0]] = CondenseRuns.Candidate(
                id: row[0], device: row[3],
                quantity: SeriesQuantity(start: row[4], end: row[5], value: row[6]))
        }
        var counts = CondenseCounts()
        // The series are stored after every run is known, so that the series of one source and device share one
        // timeline of their instants (QuantitySeriesCodec version 4).
        var pending: [SeriesRecord] = []
        for (key, group) in groups.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            guard group.candidates.count > 1, let type = CondenseRuns.condenses(try sampleType(id: key[0], db))
            else { continue }
            let span = group.streamSpan
            let stream = try Row.fetchAll(
                db, sql: CondenseRuns.streamSQL, arguments: [key[0], key[1], span.lowerBound, span.upperBound])
            for run in group.runs(stream: stream.map { (id: $0[0] as Int64, start: $0[1] as Double) }) {
                let quantities = run.quantities(style: type.aggregationStyle)
                pending.append(
                    SeriesRecord(
                        type: type, quantities: quantities, start: quantities[0].start,
                        end: quantities.map(\.end).max()!, deviceID: run.device, sourceID: key[1],
                        workoutID: workoutID))
                counts.samplesRemoved += try deleteFolded(
                    ids: run.members.map(\.id), typeID: key[0], sourceID: key[1], now: now, db)
                counts.seriesCreated += 1
                counts.quantitiesStored += quantities.count
            }
        }
        try insertSharingTimelines(pending, db)
        return counts
    }

    /// Inserts condensed series; those of one source and device, when there are several, on one shared timeline.
    private func insertSharingTimelines(_ records: [SeriesRecord], _ db: Database) throws {
        var groups: [[Int64]: [Int]] = [:]  // [source, device or -1] → indices in records, in order
        for (index, record) in records.enumerated() {
            groups[[record.sourceID, record.deviceID ?? -1], default: []].append(index)
        }
        var records = records
        for (_, indices) in groups.sorted(by: { $0.value[0] < $1.value[0] }) where indices.count > 1 {
            let timeline = QuantitySeriesCodec.Timeline(covering: indices.map { records[$0].quantities })
            let id = try insertTimeline(timeline, db)
            for index in indices { records[index].timeline = (id, timeline) }
        }
        for record in records { try insertSeries(record, db) }
    }

    private func cursor(_ rows: RowCursor) throws -> Row? { try rows.next() }

    /// Deletes folded samples, recording them as one compact deletion record (`deleted_ranges`) under one fresh
    /// anchor taken from the samples' id sequence: their UUIDs in the shorter of ``DeletedUUIDsCodec``'s forms (a few
    /// bits each for a live recording's samples, 16 bytes each for random ones), instead of one `deleted_objects`
    /// row per sample (about 43 bytes each with its index).
    private func deleteFolded(ids: [Int64], typeID: Int64, sourceID: Int64, now: Date, _ db: Database) throws -> Int {
        let select = try db.cachedStatement(sql: "SELECT uuid FROM samples WHERE id = ?")
        let delete = try db.cachedStatement(sql: "DELETE FROM samples WHERE id = ?")
        var uuids: [UUID] = []
        uuids.reserveCapacity(ids.count)
        for id in ids {
            guard let uuid = try Data.fetchOne(select, arguments: [id]), uuid.count == 16 else { continue }
            uuids.append(Self.uuid(uuid))
            try delete.execute(arguments: [id])
        }
        guard !uuids.isEmpty else { return 0 }
        let (format, blob) = DeletedUUIDsCodec.encode(uuids)
        try db.execute(
            sql: """
                INSERT INTO deleted_ranges (anchor, type_id, source_id, count, uuids, deleted, format) VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [try nextAnchor(db), typeID, sourceID, uuids.count, blob, now.storeValue, format])
        return uuids.count
    }
}

extension StoreDatabase {
    /// The UUIDs of the workouts that ended before a date, oldest first.
    func workoutUUIDs(endedBefore date: Date, _ db: Database) throws -> [UUID] {
        try UUID.fetchAll(
            db,
            sql: """
                SELECT w.uuid FROM workouts w JOIN samples s ON s.id = w.sample_id WHERE s."end" < ? ORDER BY s.start
                """, arguments: [date.storeValue])
    }

    /// Removes deletion records made before `cutoff` (and those of unknown age, from before deletion dates were
    /// kept). Returns how many deleted objects anchored queries no longer report.
    func purgeDeletionRecords(before cutoff: Date, _ db: Database) throws -> Int {
        let ranged =
            try Int.fetchOne(
                db, sql: "SELECT coalesce(sum(count), 0) FROM deleted_ranges WHERE deleted < ?",
                arguments: [cutoff.storeValue]) ?? 0
        try db.execute(sql: "DELETE FROM deleted_ranges WHERE deleted < ?", arguments: [cutoff.storeValue])
        try db.execute(
            sql: "DELETE FROM deleted_objects WHERE deleted IS NULL OR deleted < ?", arguments: [cutoff.storeValue])
        return ranged + db.changesCount
    }
}
