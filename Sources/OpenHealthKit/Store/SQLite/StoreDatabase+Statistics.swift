import Foundation
import GRDB
import HealthKitModel
import WorkoutEngine

/// The statistics reads: quantity rows streamed in start order through a cursor into the statistics engine.
/// A stored series contributes its summary row when it lies inside the range or interval; its points are read and
/// decoded only when it straddles a bound.
extension StoreDatabase {
    /// One row of a statistics scan: a plain quantity, or a series with its summary.
    enum StatisticsRow {
        case quantity(start: Double, end: Double, value: Double, source: Int64)
        case series(id: Int64, start: Double, end: Double, source: Int64, summary: StatisticsPartial)
    }

    /// Streams the rows of a type matching a predicate, in start order, applying the read-access rule.
    func scanStatisticsRows(
        type: HKQuantityType, predicate: NSPredicate?, access: ReadAccess, _ db: Database,
        _ body: (StatisticsRow) throws -> Void
    ) throws {
        let descriptor = HKQueryDescriptor(sampleType: type, predicate: predicate)
        guard let condition = try whereClause(for: [descriptor], access: access, db) else { return }
        let cursor = try Row.fetchCursor(
            db,
            sql: """
                SELECT s.id, s.start, s."end", s.value, s.source_id, q.count, q.sum, q.weighted_sum, q.weight, q.minimum,
                       q.maximum, q.most_recent, q.most_recent_start, q.most_recent_end, q.most_recent_clipped_end, q.duration
                FROM samples s LEFT JOIN workouts w ON w.sample_id = s.id LEFT JOIN quantity_series q ON q.sample_id = s.id
                WHERE \(condition.sql)
                ORDER BY s.start
                """, arguments: StatementArguments(condition.arguments))
        while let row = try cursor.next() {
            let start: Double = row[1]
            let end: Double = row[2]
            let source: Int64 = row[4]
            if let count = row[5] as Int? {
                var summary = StatisticsPartial(
                    count: count, sum: row[6], weightedSum: row[7], weight: row[8],
                    minimum: row[9] ?? .infinity, maximum: row[10] ?? -.infinity,
                    duration: row[15], firstStart: start, lastEnd: end)
                if let value = row[11] as Double? {
                    summary.mostRecent = .init(
                        clippedEnd: row[14], source: source, value: value, start: row[12],
                        end: row[13])
                }
                try body(.series(id: row[0], start: start, end: end, source: source, summary: summary))
            } else {
                guard let value = row[3] as Double? else {
                    throw HKError(
                        .errorDatabaseInaccessible,
                        "The health store is damaged: quantity sample \(row[0] as Int64) has no value.")
                }
                try body(.quantity(start: start, end: end, value: value, source: source))
            }
        }
    }

    /// The points of a stored series (with the instants of its timeline, when it has one).
    func seriesPoints(sampleID: Int64, _ db: Database) throws -> [SeriesQuantity] {
        let statement = try db.cachedStatement(
            sql: """
                SELECT q.points, t.instants FROM quantity_series q LEFT JOIN series_timelines t ON t.id = q.timeline_id
                WHERE q.sample_id = ?
                """)
        guard let row = try Row.fetchOne(statement, arguments: [sampleID]), let data = row[0] as Data? else {
            throw HKError(.errorDatabaseInaccessible, "The health store is damaged: series \(sampleID) has no points.")
        }
        let timeline = try (row[1] as Data?).map(QuantitySeriesCodec.Timeline.decode)
        return try QuantitySeriesCodec.decode(data, timeline: timeline)
    }

    /// What a statistics read gives: the partials per source id, and the merged partial. For cumulative types read
    /// from several sources the merged partial comes from the quantities merged by source priority
    /// (``SourcePriorityMerge``); otherwise it combines every source's partial.
    struct MergedPartials {
        var bySource: [Int64: StatisticsPartial]
        var merged: StatisticsPartial
    }

    /// Statistics over one range, per source and merged.
    func statisticsPartials(
        type: HKQuantityType, fetch: NSPredicate?, rangeStart: Double, rangeEnd: Double, access: ReadAccess,
        _ db: Database
    ) throws -> MergedPartials {
        let style = type.aggregationStyle
        var accumulator = StatisticsAccumulator(style: style, rangeStart: rangeStart, rangeEnd: rangeEnd)
        var kept: [StatisticsRow] = []
        let keep = try mayMergeSources(type, db)
        try scanStatisticsRows(type: type, predicate: fetch, access: access, db) { row in
            if keep { kept.append(row) }
            switch row {
            case let .quantity(start, end, value, source):
                accumulator.add(start: start, end: end, value: value, source: source)
            case let .series(id, start, end, source, summary):
                if start >= rangeStart && end < rangeEnd {
                    accumulator.add(summary: summary, seriesStart: start, source: source)
                } else {
                    for point in try seriesPoints(sampleID: id, db) {
                        accumulator.add(
                            start: point.start, end: point.end, value: point.value, source: source,
                            holdLimit: end)
                    }
                }
            }
        }
        let bySource = accumulator.partials()
        guard let pieces = try priorityMerged(type: type, kept, db) else {
            return MergedPartials(bySource: bySource, merged: Self.combined(bySource.values))
        }
        var merged = StatisticsAccumulator(style: style, rangeStart: rangeStart, rangeEnd: rangeEnd)
        for piece in pieces {
            merged.add(
                start: piece.quantity.start, end: piece.quantity.end, value: piece.quantity.value, source: piece.source)
        }
        return MergedPartials(bySource: bySource, merged: Self.combined(merged.partials().values))
    }

    /// Statistics per interval of a tiling, per source and merged.
    func collectionPartials(
        type: HKQuantityType, predicate: NSPredicate?, tiling: DateTiling, access: ReadAccess,
        _ db: Database
    ) throws -> [Int: MergedPartials] {
        let style = type.aggregationStyle
        var engine = StatisticsCollectionEngine(style: style, tiling: tiling)
        var kept: [StatisticsRow] = []
        let keep = try mayMergeSources(type, db)
        try scanStatisticsRows(type: type, predicate: predicate, access: access, db) { row in
            if keep { kept.append(row) }
            switch row {
            case let .quantity(start, end, value, source):
                engine.add(start: start, end: end, value: value, source: source)
            case let .series(id, start, end, source, summary):
                if !engine.add(summary: summary, seriesStart: start, seriesEnd: end, source: source) {
                    for point in try seriesPoints(sampleID: id, db) {
                        engine.add(
                            start: point.start, end: point.end, value: point.value, source: source, holdLimit: end)
                    }
                }
            }
        }
        let bySource = engine.finish()
        var mergedByIndex: [Int: StatisticsPartial] = bySource.mapValues { Self.combined($0.values) }
        if let pieces = try priorityMerged(type: type, kept, db) {
            var mergedEngine = StatisticsCollectionEngine(style: style, tiling: tiling)
            for piece in pieces {
                mergedEngine.add(
                    start: piece.quantity.start, end: piece.quantity.end, value: piece.quantity.value,
                    source: piece.source)
            }
            mergedByIndex = mergedEngine.finish().mapValues { Self.combined($0.values) }
        }
        var result: [Int: MergedPartials] = [:]
        for (index, perSource) in bySource {
            result[index] = MergedPartials(bySource: perSource, merged: mergedByIndex[index] ?? StatisticsPartial())
        }
        return result
    }

    /// Whether rows must be kept for a merge by source priority: a cumulative type saved by more than one source.
    /// Otherwise statistics stream without holding rows.
    private func mayMergeSources(_ type: HKQuantityType, _ db: Database) throws -> Bool {
        guard type.aggregationStyle == .cumulative, let typeID = try existingTypeID(type.identifier, db) else {
            return false
        }
        return try sourcePriority(typeID: typeID, db).count > 1
    }

    private static func combined(_ partials: some Sequence<StatisticsPartial>) -> StatisticsPartial {
        var total = StatisticsPartial()
        for partial in partials { total.combine(partial) }
        return total
    }

    /// The rows of a cumulative type merged by source priority, or nil when they come from one source (nothing to
    /// merge). Series are expanded into their quantities.
    private func priorityMerged(
        type: HKQuantityType, _ rows: [StatisticsRow],
        _ db: Database
    ) throws -> [SourcePriorityMerge.Piece]? {
        guard type.aggregationStyle == .cumulative, let typeID = try existingTypeID(type.identifier, db) else {
            return nil
        }
        let ranks = try sourceRanks(typeID: typeID, db)
        // A source id missing from type_sources (a damaged table) ranks after every known source.
        func rank(_ source: Int64) -> Int { ranks[source] ?? ranks.count }
        var levels: [Int: [SourcePriorityMerge.Piece]] = [:]
        for row in rows {
            switch row {
            case let .quantity(start, end, value, source):
                levels[rank(source), default: []].append(
                    .init(
                        source: source,
                        quantity: SeriesQuantity(start: start, end: end, value: value)))
            case let .series(id, _, _, source, _):
                levels[rank(source), default: []].append(
                    contentsOf: try seriesPoints(sampleID: id, db).map {
                        SourcePriorityMerge.Piece(source: source, quantity: $0)
                    })
            }
        }
        guard levels.count > 1 else { return nil }
        return SourcePriorityMerge.merge(levels.sorted { $0.key < $1.key }.map(\.value))
    }

    /// Per-source partials keyed by HealthKit source (revisions of one source combine), and the merged values.
    func statisticsValues(
        _ partials: MergedPartials, style: HKQuantityAggregationStyle,
        _ db: Database
    ) throws -> StatisticsValues {
        var bySource: [HKSource: StatisticsPartial] = [:]
        for (sourceID, partial) in partials.bySource {
            bySource[try sourceRevision(id: sourceID, db).source, default: StatisticsPartial()].combine(partial)
        }
        let merged = partials.merged
        return StatisticsValues(
            merged: merged.values(style: style), bySource: bySource.compactMapValues { $0.values(style: style) },
            span: (merged.firstStart, merged.lastEnd))
    }
}
