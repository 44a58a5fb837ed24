import Foundation
import PostgresNIO

/// Statistics aggregated in SQL on the server: the rules of `StatisticsAccumulator` (membership by coverage in a
/// half-open range, cumulative values prorated by overlap, zero-length time-weighted values held until the next
/// quantity of their source for at most the maximum hold) written as one query over the matching rows and the
/// intervals, grouped by interval and source. Each group comes back as a ``StatisticsPartial``; what they mean
/// (averages, the merge of sources) stays with `StatisticsPartial` above the rows. A cumulative type saved by more
/// than one source is merged by source priority, which needs the quantities themselves: then the rows are read
/// and merged as the SQLite backend does (``SourcePriorityMerge``).
extension PostgresStoreBackend {
    /// The partials of `type` per interval (`bounds[i]`, half-open) and source, from the rows `condition` matches.
    /// `bounds` are ascending and disjoint, as a tiling's intervals are: each row is tried only against the
    /// intervals from the one holding its start to the one holding its covered end (`width_bucket` over the lower
    /// bounds), not against every interval, so a year of days costs a row one or two comparisons, not 365.
    func partials(
        _ type: HKQuantityType, condition: PostgresStatement, bounds: [(Double, Double)], _ c: PostgresConnection
    ) async throws -> [Int: [Int64: StatisticsPartial]] {
        assert(zip(bounds, bounds.dropFirst()).allSatisfy { $0.0.1 <= $0.1.0 }, "intervals ascending and disjoint")
        let style = type.aggregationStyle
        let holds = style.holdsInstants
        let contribution: String
        switch style {
        case .cumulative:
            contribution = "CASE WHEN cover_end > start THEN value * overlap / (cover_end - start) ELSE value END"
        default:
            contribution = "value"
        }
        let weighted =
            style == .discreteEquivalentContinuousLevel ? "power(10, value / 10) * overlap" : "value * overlap"
        let sql = """
            WITH matched AS (
                SELECT s.id, s.source_id AS source, s.start, s."end", s.value,
                       lead(s.start) OVER (PARTITION BY s.source_id ORDER BY s.start, s.id) AS next_start,
                       EXISTS (SELECT 1 FROM quantity_series q WHERE q.sample_id = s.id) AS series
                FROM samples s LEFT JOIN workouts w ON w.sample_id = s.id
                WHERE \(condition.sql)
            ), covered AS (
                SELECT source, start, "end", value,
                       CASE WHEN \(holds ? "TRUE" : "FALSE") AND "end" <= start
                            THEN greatest(start, least(coalesce(next_start, 'Infinity'::float8), start + ?))
                            ELSE greatest(start, "end") END AS cover_end
                FROM matched WHERE NOT series
            ), bounds AS (
                SELECT ?::float8[] AS lows, ?::float8[] AS highs
            ), candidates AS (
                SELECT (n - 1)::bigint AS i, c.source, c.start, c."end", c.value, c.cover_end,
                       b.lows[n] AS lo, b.highs[n] AS hi
                FROM covered c CROSS JOIN bounds b
                CROSS JOIN LATERAL generate_series(
                    greatest(width_bucket(c.start, b.lows), 1), width_bucket(c.cover_end, b.lows)) AS n
            ), members AS (
                SELECT i, source, start, "end", value, cover_end, lo, hi,
                       CASE WHEN cover_end > start THEN least(cover_end, hi) - greatest(start, lo) ELSE 0 END AS overlap
                FROM candidates
                WHERE (cover_end > start AND start < hi AND cover_end > lo)
                   OR (cover_end <= start AND start >= lo AND start < hi)
            )
            SELECT i, source, count(*), sum(\(contribution)), sum(\(weighted)), sum(overlap), min(value), max(value),
                   min(greatest(start, lo)), max(least(cover_end, hi)),
                   max(ARRAY[least(cover_end, hi), value, -start, -greatest(start, "end")])
            FROM members GROUP BY i, source
            """
        let statement = PostgresStatement(
            sql,
            condition.values + [
                .real(StatisticsAccumulator.defaultMaximumHold), .reals(bounds.map(\.0)), .reals(bounds.map(\.1)),
            ])
        var result: [Int: [Int64: StatisticsPartial]] = [:]
        for row in try await c.rows(statement) {
            let source: Int64 = try row.at(1)
            var partial = StatisticsPartial()
            partial.count = Int(try row.at(2, as: Int64.self))
            partial.sum = try row.at(3)
            partial.duration = try row.at(5)
            if style != .cumulative {
                partial.minimum = try row.at(6)
                partial.maximum = try row.at(7)
            }
            if holds {
                partial.weightedSum = try row.at(4)
                partial.weight = try row.at(5)
            }
            partial.firstStart = try row.at(8)
            partial.lastEnd = try row.at(9)
            // The most recent quantity: the latest clipped end, then the largest value, then the first in start order
            // (as `StatisticsAccumulator` keeps it), found in one pass as the greatest array (arrays compare element
            // by element; start and end negated).
            let recent = try row.at(10, as: [Double].self)
            guard recent.count == 4 else {
                throw HKError(.errorDatabaseInaccessible, "The health store \(url) sent a malformed statistic.")
            }
            partial.mostRecent = .init(
                clippedEnd: recent[0], source: source, value: recent[1], start: -recent[2], end: -recent[3])
            result[Int(try row.at(0, as: Int64.self)), default: [:]][source] = partial
        }
        try await addSeries(type, condition: condition, bounds: bounds, to: &result, c)
        return result
    }

    /// Adds the stored series among the rows `condition` matches, as the SQLite backend adds them: a series inside
    /// an interval adds its summary; one that straddles an interval's bound adds its points (read and decoded only
    /// then), each held at most until the series' end. (The query above leaves series out, and a zero-length
    /// quantity before a series is held until the series starts, as on SQLite.)
    private func addSeries(
        _ type: HKQuantityType, condition: PostgresStatement, bounds: [(Double, Double)],
        to result: inout [Int: [Int64: StatisticsPartial]], _ c: PostgresConnection
    ) async throws {
        var series: [(uuid: UUID, start: Double, end: Double, source: Int64, summary: StatisticsPartial)] = []
        for row in try await c.rows(
            PostgresStatement(
                """
                SELECT s.uuid, s.start, s."end", s.source_id, q.count, q.sum, q.weighted_sum, q.weight, q.minimum,
                       q.maximum, q.most_recent, q.most_recent_start, q.most_recent_end, q.most_recent_clipped_end,
                       q.duration
                FROM samples s LEFT JOIN workouts w ON w.sample_id = s.id JOIN quantity_series q ON q.sample_id = s.id
                WHERE \(condition.sql) ORDER BY s.start, s.id
                """, condition.values))
        {
            let (start, end, source): (Double, Double, Int64) = (try row.at(1), try row.at(2), try row.at(3))
            var summary = StatisticsPartial(
                count: Int(try row.at(4, as: Int32.self)), sum: try row.at(5), weightedSum: try row.at(6),
                weight: try row.at(7), minimum: try row.at(8, as: Double?.self) ?? .infinity,
                maximum: try row.at(9, as: Double?.self) ?? -.infinity, duration: try row.at(14), firstStart: start,
                lastEnd: end)
            if let value = try row.at(10, as: Double?.self) {
                summary.mostRecent = .init(
                    clippedEnd: try row.at(13), source: source, value: value, start: try row.at(11),
                    end: try row.at(12))
            }
            series.append((try row.at(0), start, end, source, summary))
        }
        guard !series.isEmpty else { return }
        let intervals = IntervalSearch(bounds)
        func inside(_ start: Double, _ end: Double, _ index: Int) -> Bool {
            start >= bounds[index].0 && end < bounds[index].1
        }
        // The points of the series that straddle a bound, in one read.
        let straddling = series.filter { one in
            intervals.touching(start: one.start, end: one.end).contains { !inside(one.start, one.end, $0) }
        }
        let points = try await seriesPoints(of: straddling.map(\.uuid), c)
        var accumulators: [Int: StatisticsAccumulator] = [:]
        for one in series {
            for index in intervals.touching(start: one.start, end: one.end) {
                var accumulator =
                    accumulators[index]
                    ?? StatisticsAccumulator(
                        style: type.aggregationStyle, rangeStart: bounds[index].0, rangeEnd: bounds[index].1)
                if inside(one.start, one.end, index) {
                    accumulator.add(summary: one.summary, seriesStart: one.start, source: one.source)
                } else {
                    guard let stored = points[one.uuid] else {
                        throw HKError(
                            .errorDatabaseInaccessible, "The health store is damaged: series \(one.uuid) has no points."
                        )
                    }
                    for point in stored {
                        accumulator.add(
                            start: point.start, end: point.end, value: point.value, source: one.source,
                            holdLimit: one.end)
                    }
                }
                accumulators[index] = accumulator
            }
        }
        for (index, accumulator) in accumulators {
            for (source, partial) in accumulator.partials() {
                result[index, default: [:]][source, default: StatisticsPartial()].combine(partial)
            }
        }
    }

    /// The partials merged over sources for each interval: by source priority for a cumulative type with more
    /// than one source (rows read and merged as in the SQLite backend), otherwise every source's partial combined.
    func mergedPartials(
        _ type: HKQuantityType, condition: PostgresStatement, bounds: [(Double, Double)],
        bySource: [Int: [Int64: StatisticsPartial]], _ c: PostgresConnection
    ) async throws -> [Int: StatisticsPartial] {
        let sources = Set(bySource.values.flatMap(\.keys))
        guard type.aggregationStyle == .cumulative, sources.count > 1,
            let typeID = try await existingTypeID(type.identifier, c)
        else {
            return bySource.mapValues { partials in
                partials.values.reduce(into: StatisticsPartial()) { $0.combine($1) }
            }
        }
        let ranks = try await sourceRanks(typeID: typeID, c)
        func rank(_ source: Int64) -> Int { ranks[source] ?? ranks.count }
        var levels: [Int: [SourcePriorityMerge.Piece]] = [:]
        for row in try await c.rows(
            PostgresStatement(
                """
                SELECT s.source_id, s.start, s."end", s.value, q.points FROM samples s
                LEFT JOIN workouts w ON w.sample_id = s.id LEFT JOIN quantity_series q ON q.sample_id = s.id
                WHERE \(condition.sql) ORDER BY s.start
                """, condition.values))
        {
            let source: Int64 = try row.at(0)
            // A series merges by its points, as on SQLite.
            let quantities =
                try row.bytes(4).map { try Self.decodePoints($0, series: "of source \(source)") }
                ?? [SeriesQuantity(start: try row.at(1), end: try row.at(2), value: try row.at(3))]
            levels[rank(source), default: []] += quantities.map { .init(source: source, quantity: $0) }
        }
        let pieces = SourcePriorityMerge.merge(levels.sorted { $0.key < $1.key }.map(\.value))
        // Each piece goes only to the intervals it touches, as the query's rows do.
        let intervals = IntervalSearch(bounds)
        var accumulators: [Int: StatisticsAccumulator] = [:]
        for piece in pieces {
            let (start, end) = (piece.quantity.start, piece.quantity.end)
            for index in intervals.touching(start: start, end: end) {
                accumulators[
                    index,
                    default: StatisticsAccumulator(
                        style: .cumulative, rangeStart: bounds[index].0, rangeEnd: bounds[index].1)
                ].add(start: start, end: end, value: piece.quantity.value, source: piece.source)
            }
        }
        return accumulators.compactMapValues { accumulator in
            let partial = accumulator.partials().values.reduce(into: StatisticsPartial()) { $0.combine($1) }
            return partial.isEmpty ? nil : partial
        }
    }

    /// The sources of a type ranked: the person's priority first, then the order they first saved it.
    func sourceRanks(typeID: Int64, _ c: PostgresConnection) async throws -> [Int64: Int] {
        var ranks: [Int64: Int] = [:]
        for (rank, row) in try await c.rows(
            """
            SELECT ts.source_id FROM type_sources ts JOIN sources so ON so.id = ts.source_id
            LEFT JOIN source_priorities p ON p.type_id = ts.type_id AND p.bundle_identifier = so.bundle_identifier
            WHERE ts.type_id = ? ORDER BY p.position IS NULL, p.position, ts.first_anchor
            """, [.integer(typeID)]
        ).enumerated() {
            ranks[try row.at(0)] = rank
        }
        return ranks
    }

    /// The statistics values of one interval: per HealthKit source (revisions of one source combined) and merged.
    /// `revisions` names the source rows (``sourceRevisions(_:_:)``: read once for every interval of a collection).
    func statisticsValues(
        bySource partials: [Int64: StatisticsPartial], merged: StatisticsPartial, style: HKQuantityAggregationStyle,
        revisions: [Int64: HKSourceRevision]
    ) -> StatisticsValues {
        var bySource: [HKSource: StatisticsPartial] = [:]
        for (sourceID, partial) in partials {
            guard let source = revisions[sourceID]?.source else { continue }
            bySource[source, default: StatisticsPartial()].combine(partial)
        }
        return StatisticsValues(
            merged: merged.values(style: style), bySource: bySource.compactMapValues { $0.values(style: style) },
            span: (merged.firstStart, merged.lastEnd))
    }

    /// The source revisions of the source rows the partials name, each read once.
    func sourceRevisions(
        _ partials: some Sequence<[Int64: StatisticsPartial]>, _ c: PostgresConnection
    ) async throws -> [Int64: HKSourceRevision] {
        var revisions: [Int64: HKSourceRevision] = [:]
        for id in Set(partials.flatMap(\.keys)) { revisions[id] = try await sourceRevision(id: id, c) }
        return revisions
    }
}

/// Ascending, disjoint intervals (a tiling's) searched for the ones a quantity can touch: from the one holding its
/// start to the one holding its end (the Swift side of the query's `width_bucket`).
struct IntervalSearch {
    private let lows: [Double]

    init(_ bounds: [(Double, Double)]) { lows = bounds.map(\.0) }

    /// The number of intervals starting at or before `time`.
    private func holding(_ time: Double) -> Int {
        var (low, high) = (0, lows.count)
        while low < high {
            let middle = (low + high) / 2
            if lows[middle] <= time { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The indices of the intervals a quantity from `start` to `end` may touch (the caller checks each).
    func touching(start: Double, end: Double) -> Range<Int> {
        max(holding(start) - 1, 0) ..< holding(max(start, end))
    }
}
