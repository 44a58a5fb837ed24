import Foundation
import HealthKitModel
import WorkoutEngine

/// How condensing cuts one type and source's samples into runs, each folded into one series: the rule both backends
/// apply (``StoreDatabase`` and ``PostgresStoreBackend`` only read the rows and store what it gives).
///
/// A candidate is a sample of the workout alone, without metadata. A run is a sequence of candidates of one device
/// that follow each other in the source's stream of that type (every sample of the source, ordered by start and
/// row id); any other sample of the stream (metadata, another workout, another device, a series) ends it, so every
/// source's stream keeps its order and its held values. A run of one sample is left as it is.
struct CondenseRuns {
    struct Candidate: Sendable {
        var id: Int64
        var device: Int64?
        var quantity: SeriesQuantity
    }

    struct Run: Sendable {
        var members: [Candidate]
        /// The start of the stream's sample after the run (infinity when none follows within the read span): it
        /// ends the last member's hold.
        var nextStart: Double

        var device: Int64? { members[0].device }

        /// The series' quantities after coalescing (``SeriesCoalescer``).
        func quantities(style: HKQuantityAggregationStyle) -> [SeriesQuantity] {
            SeriesCoalescer.condense(members.map(\.quantity), nextStart: nextStart, style: style)
        }
    }

    /// The candidates of one type and source, by row id.
    var candidates: [Int64: Candidate] = [:]

    /// The SQL (the same in both stores' dialects) of a workout's candidates, the workout's row id its one argument:
    /// each row's id, type id, source id, device id, start, end and value.
    static let candidatesSQL = """
        SELECT s.id, s.type_id, s.source_id, s.device_id, s.start, s."end", s.value FROM samples s
        WHERE s.workout_id = ? AND s.metadata IS NULL AND s.value IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM workout_samples ws WHERE ws.sample_id = s.id)
          AND NOT EXISTS (SELECT 1 FROM quantity_series q WHERE q.sample_id = s.id)
        """

    /// The SQL of a source's stream of a type over ``streamSpan`` (arguments: type id, source id, the span's bounds):
    /// each sample's id and start, in stream order.
    static let streamSQL = """
        SELECT id, start FROM samples WHERE type_id = ? AND source_id = ? AND start BETWEEN ? AND ?
        ORDER BY start, id
        """

    /// Whether a type's candidates are worth condensing at all.
    static func condenses(_ type: HKSampleType) -> HKQuantityType? {
        guard let type = type as? HKQuantityType, SeriesCoalescer.isCondensable(type) else { return nil }
        return type
    }

    /// The starts of the source's stream to read: the candidates' span, plus the hold after it (its next sample).
    var streamSpan: ClosedRange<Double> {
        let starts = candidates.values.map(\.quantity.start)
        return starts.min()! ... starts.max()! + StatisticsAccumulator.defaultMaximumHold + 1
    }

    /// The runs of two or more members, given the source's stream over ``streamSpan`` in order.
    func runs(stream: some Sequence<(id: Int64, start: Double)>) -> [Run] {
        var runs: [Run] = []
        var run: [Candidate] = []
        func flush(next: Double) {
            if run.count > 1 { runs.append(Run(members: run, nextStart: next)) }
            run = []
        }
        for (id, start) in stream {
            if let candidate = candidates[id], run.isEmpty || run[0].device == candidate.device {
                run.append(candidate)
            } else {
                flush(next: start)
                if let candidate = candidates[id] { run.append(candidate) }
            }
        }
        flush(next: .infinity)
        return runs
    }
}
