import Foundation
import GRDB
import HealthKitModel
import WorkoutEngine

/// Writing quantity series: a sample row (interval, quantity) plus a `quantity_series` row (summary and points).
extension StoreDatabase {
    /// A series to store: its quantities in start order (values in the storage unit) and its sample's fields.
    struct SeriesRecord {
        var type: HKQuantityType
        var quantities: [SeriesQuantity]
        var start: Double
        var end: Double
        var uuid = UUID()
        var metadata: String?
        var deviceID: Int64?
        var sourceID: Int64
        var workoutID: Int64?
        /// The stored timeline whose instants this series' times are (see `QuantitySeriesCodec+Timeline.swift`).
        var timeline: (id: Int64, timeline: QuantitySeriesCodec.Timeline)?
    }

    /// Stores a timeline that series of one condensing share; returns its id.
    func insertTimeline(_ timeline: QuantitySeriesCodec.Timeline, _ db: Database) throws -> Int64 {
        try db.execute(sql: "INSERT INTO series_timelines (instants) VALUES (?)", arguments: [timeline.encoded()])
        return db.lastInsertedRowID
    }

    /// The sample's quantity: the sum for cumulative types, the (time-weighted, for heart rate) average otherwise.
    static func seriesQuantity(_ summary: StatisticsPartial, style: HKQuantityAggregationStyle) -> Double {
        let values = summary.values(style: style)
        return style == .cumulative ? (values?.sum ?? 0) : (values?.average ?? 0)
    }

    /// Inserts a series; returns the sample's row id.
    @discardableResult
    func insertSeries(_ record: SeriesRecord, _ db: Database) throws -> Int64 {
        let style = record.type.aggregationStyle
        let summary = StatisticsAccumulator.summary(style: style, of: record.quantities, seriesEnd: record.end)
        let insertSample = try db.cachedStatement(
            sql: """
                INSERT INTO samples (uuid, type_id, start, "end", value, unit, source_id, device_id, metadata, workout_id)
                VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)
                """)
        try insertSample.execute(arguments: [
            record.uuid, try typeID(record.type.identifier, db), record.start, record.end,
            Self.seriesQuantity(summary, style: style), record.sourceID, record.deviceID,
            record.metadata, record.workoutID,
        ])
        let id = db.lastInsertedRowID
        let recent = summary.mostRecent
        let insertSeries = try db.cachedStatement(
            sql: """
                INSERT INTO quantity_series (sample_id, count, sum, weighted_sum, weight, minimum, maximum, most_recent,
                                             most_recent_start, most_recent_end, most_recent_clipped_end, duration, points,
                                             timeline_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        // On its timeline when it has one (and every time is an instant of it), else with its own times.
        let shared = record.timeline.flatMap { timeline in
            QuantitySeriesCodec.encode(record.quantities, on: timeline.timeline).map { (timeline.id, $0) }
        }
        let arguments: StatementArguments = [
            id, record.quantities.count, summary.sum, summary.weightedSum, summary.weight,
            summary.minimum.isFinite ? summary.minimum : nil, summary.maximum.isFinite ? summary.maximum : nil,
            recent?.value, recent?.start, recent?.end, recent?.clippedEnd, summary.duration,
            shared?.1 ?? QuantitySeriesCodec.encode(record.quantities), shared?.0,
        ]
        try insertSeries.execute(arguments: arguments)
        return id
    }
}

extension StoreDatabase {
    /// The encoded beats of a stored heartbeat series (HeartbeatSeriesCodec), or nil when it is not in the store.
    func heartbeatBeats(uuid: UUID, _ db: Database) throws -> Data? {
        try Data.fetchOne(
            db,
            sql: """
                SELECT hb.beats FROM heartbeat_series hb JOIN samples s ON s.id = hb.sample_id
                WHERE s.uuid = ? AND s.type_id = (SELECT id FROM types WHERE identifier = ?)
                """, arguments: [uuid, HKDataTypeIdentifierHeartbeatSeries])
    }
}
