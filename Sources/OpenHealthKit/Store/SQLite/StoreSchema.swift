import GRDB
import HealthKitModel
import WorkoutEngine

/// The store's schema, as a history of migrations.
///
/// Migrations are never edited once they have shipped; a change is a new migration. They use table and column
/// names as strings and no model types, so they keep meaning the same thing as the code moves on.
///
/// Dates are stored as seconds since 2001-01-01 00:00:00 UTC (`Date.timeIntervalSinceReferenceDate`), UUIDs as
/// 16-byte blobs, quantities in their type's storage unit (see `QuantityTypeCatalog`).
enum StoreSchema {
    /// The first migration's identifier: every store, of any version, records it in `grdb_migrations`.
    static let firstMigration = "v1: samples, workouts, associations, authorization"

    /// The tables of another program's database, or nil: a database with tables besides GRDB's record of
    /// migrations and no record of this store's first migration is not a store (a browser's history given as
    /// `--store`, another GRDB application's file). An empty database, and a store of any version, give nil.
    static func foreignTables(_ db: Database) throws -> [String]? {
        let tables = try String.fetchAll(
            db,
            sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 7) != 'sqlite_' ORDER BY name"
        )
        let others = tables.filter { $0 != "grdb_migrations" }
        guard !others.isEmpty else { return nil }
        if tables.contains("grdb_migrations"),
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM grdb_migrations WHERE identifier = ?)",
                arguments: [firstMigration]) == true
        {
            return nil
        }
        return others
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(firstMigration) { db in
            try db.execute(
                sql: """
                    CREATE TABLE types (
                        id INTEGER PRIMARY KEY,
                        identifier TEXT NOT NULL UNIQUE
                    );
                    CREATE TABLE sources (
                        id INTEGER PRIMARY KEY,
                        key TEXT NOT NULL UNIQUE,
                        name TEXT NOT NULL,
                        bundle_identifier TEXT NOT NULL,
                        version TEXT,
                        product_type TEXT,
                        os_version TEXT NOT NULL
                    );
                    CREATE TABLE devices (
                        id INTEGER PRIMARY KEY,
                        key TEXT NOT NULL UNIQUE,
                        name TEXT, manufacturer TEXT, model TEXT, hardware_version TEXT, firmware_version TEXT,
                        software_version TEXT, local_identifier TEXT, udi_device_identifier TEXT
                    );
                    -- Every sample (quantity samples and workouts alike). The id is the anchor order.
                    -- UUIDs are not indexed here: random keys would scatter every batch of inserts over the whole
                    -- index. A sample is found by (type_id, start, uuid) through samples_by_type_start, which grows
                    -- in time order; workouts keep their UUID indexed in their own table.
                    CREATE TABLE samples (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        uuid BLOB NOT NULL,
                        type_id INTEGER NOT NULL REFERENCES types(id),
                        start REAL NOT NULL,
                        "end" REAL NOT NULL,
                        value REAL,
                        unit TEXT,
                        source_id INTEGER NOT NULL REFERENCES sources(id),
                        device_id INTEGER REFERENCES devices(id),
                        metadata TEXT,
                        -- The workout the sample was first associated with; further ones are in workout_samples.
                        workout_id INTEGER REFERENCES workouts(sample_id) ON DELETE SET NULL
                    );
                    CREATE INDEX samples_by_type_start ON samples(type_id, start);
                    CREATE INDEX samples_by_workout ON samples(workout_id) WHERE workout_id IS NOT NULL;
                    CREATE TABLE workouts (
                        sample_id INTEGER PRIMARY KEY REFERENCES samples(id) ON DELETE CASCADE,
                        uuid BLOB NOT NULL UNIQUE,
                        activity_type INTEGER NOT NULL,
                        duration REAL NOT NULL
                    );
                    CREATE TABLE workout_events (
                        workout_id INTEGER NOT NULL REFERENCES workouts(sample_id) ON DELETE CASCADE,
                        position INTEGER NOT NULL,
                        type INTEGER NOT NULL,
                        start REAL NOT NULL,
                        "end" REAL NOT NULL,
                        metadata TEXT,
                        PRIMARY KEY (workout_id, position)
                    ) WITHOUT ROWID;
                    CREATE TABLE workout_activities (
                        id INTEGER PRIMARY KEY,
                        uuid BLOB NOT NULL UNIQUE,
                        workout_id INTEGER NOT NULL REFERENCES workouts(sample_id) ON DELETE CASCADE,
                        activity_type INTEGER NOT NULL,
                        location_type INTEGER NOT NULL,
                        swimming_location_type INTEGER NOT NULL,
                        lap_length_meters REAL,
                        start REAL NOT NULL,
                        "end" REAL,
                        duration REAL NOT NULL,
                        metadata TEXT
                    );
                    CREATE INDEX workout_activities_by_workout ON workout_activities(workout_id);
                    CREATE TABLE workout_statistics (
                        workout_id INTEGER NOT NULL REFERENCES workouts(sample_id) ON DELETE CASCADE,
                        type_id INTEGER NOT NULL REFERENCES types(id),
                        start REAL NOT NULL, "end" REAL NOT NULL,
                        sum REAL, average REAL, minimum REAL, maximum REAL,
                        most_recent REAL, most_recent_start REAL, most_recent_end REAL, duration REAL,
                        PRIMARY KEY (workout_id, type_id)
                    ) WITHOUT ROWID;
                    CREATE TABLE activity_statistics (
                        activity_id INTEGER NOT NULL REFERENCES workout_activities(id) ON DELETE CASCADE,
                        type_id INTEGER NOT NULL REFERENCES types(id),
                        start REAL NOT NULL, "end" REAL NOT NULL,
                        sum REAL, average REAL, minimum REAL, maximum REAL,
                        most_recent REAL, most_recent_start REAL, most_recent_end REAL, duration REAL,
                        PRIMARY KEY (activity_id, type_id)
                    ) WITHOUT ROWID;
                    -- Samples associated with more than one workout: every association after the first.
                    CREATE TABLE workout_samples (
                        workout_id INTEGER NOT NULL REFERENCES workouts(sample_id) ON DELETE CASCADE,
                        sample_id INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
                        PRIMARY KEY (workout_id, sample_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX workout_samples_by_sample ON workout_samples(sample_id);
                    -- Deleted objects, for anchored object queries. Anchors share the samples' id sequence.
                    CREATE TABLE deleted_objects (
                        anchor INTEGER PRIMARY KEY,
                        uuid BLOB NOT NULL,
                        type_id INTEGER NOT NULL REFERENCES types(id),
                        source_id INTEGER NOT NULL REFERENCES sources(id),
                        metadata TEXT
                    );
                    CREATE INDEX deleted_objects_by_type ON deleted_objects(type_id, anchor);
                    -- Authorization decisions, per client and type. share: HKAuthorizationStatus raw value.
                    -- read: 0 never asked, 1 granted, 2 denied.
                    CREATE TABLE authorizations (
                        client TEXT NOT NULL,
                        type_identifier TEXT NOT NULL,
                        share INTEGER NOT NULL,
                        read INTEGER NOT NULL,
                        PRIMARY KEY (client, type_identifier)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v2: quantity series") { db in
            try db.execute(
                sql: """
                    -- A quantity series (HKQuantitySample with count > 1): the sample row holds its interval and its
                    -- quantity (sum for cumulative types, average for discrete ones); this row holds the summary that
                    -- statistics use without decoding points, and the points (QuantitySeriesCodec).
                    -- sum/weighted_sum/weight/duration/most_recent_* are a StatisticsPartial over the series' own span.
                    CREATE TABLE quantity_series (
                        sample_id INTEGER PRIMARY KEY REFERENCES samples(id) ON DELETE CASCADE,
                        count INTEGER NOT NULL,
                        sum REAL NOT NULL,
                        weighted_sum REAL NOT NULL,
                        weight REAL NOT NULL,
                        minimum REAL,
                        maximum REAL,
                        most_recent REAL,
                        most_recent_start REAL,
                        most_recent_end REAL,
                        most_recent_clipped_end REAL,
                        duration REAL NOT NULL,
                        points BLOB NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v3: live workout journal") { db in
            try db.execute(
                sql: """
                    -- A workout builder being recorded: live (with a session) or programmatic. Removed when the
                    -- builder finishes or is discarded; what is left after a crash is offered back for recovery.
                    CREATE TABLE live_builders (
                        id INTEGER PRIMARY KEY,
                        uuid BLOB NOT NULL UNIQUE,
                        client TEXT NOT NULL,
                        has_session INTEGER NOT NULL,
                        configuration TEXT NOT NULL,
                        device TEXT,
                        created REAL NOT NULL
                    );
                    -- What happened, in order: entries are JSON (kind 0) or binary sample batches (kind 1).
                    CREATE TABLE live_journal (
                        builder_id INTEGER NOT NULL REFERENCES live_builders(id) ON DELETE CASCADE,
                        seq INTEGER NOT NULL,
                        kind INTEGER NOT NULL,
                        payload BLOB NOT NULL,
                        PRIMARY KEY (builder_id, seq)
                    ) WITHOUT ROWID;
                    -- Sensors paired with the store: live data sources read from them.
                    CREATE TABLE paired_sensors (
                        identifier TEXT PRIMARY KEY,
                        name TEXT NOT NULL,
                        capabilities INTEGER NOT NULL,
                        paired REAL NOT NULL
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v4: workout zones") { db in
            try db.execute(
                sql: """
                    -- Time in zone of a saved workout (activity_id NULL) or of one of its activities, per quantity type.
                    -- boundaries: the configuration's upper thresholds in the type's storage unit, comma-separated;
                    -- durations: seconds per zone, lowest first. source: 0 system, 1 user, 2 app.
                    CREATE TABLE workout_zone_groups (
                        workout_id INTEGER NOT NULL REFERENCES workouts(sample_id) ON DELETE CASCADE,
                        activity_id INTEGER REFERENCES workout_activities(id) ON DELETE CASCADE,
                        type_id INTEGER NOT NULL REFERENCES types(id),
                        source INTEGER NOT NULL,
                        boundaries TEXT NOT NULL,
                        durations TEXT NOT NULL
                    );
                    CREATE INDEX workout_zone_groups_by_workout ON workout_zone_groups(workout_id);
                    -- The person's workout profile (one row): what system zones are computed from, and their own zones.
                    -- date_of_birth is YYYY-MM-DD; heart rates in count/min, power in W; zone boundaries as above.
                    CREATE TABLE workout_profile (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        date_of_birth TEXT,
                        resting_heart_rate REAL,
                        maximum_heart_rate REAL,
                        functional_threshold_power REAL,
                        heart_rate_zones TEXT,
                        cycling_power_zones TEXT
                    );
                    """)
        }
        migrator.registerMigration("v5: heartbeat series") { db in
            try db.execute(
                sql: """
                    -- The beats of heartbeat series samples (HeartbeatSeriesCodec).
                    CREATE TABLE heartbeat_series (
                        sample_id INTEGER PRIMARY KEY REFERENCES samples(id) ON DELETE CASCADE,
                        count INTEGER NOT NULL,
                        beats BLOB NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v6: source priority, compact deletion records") { db in
            try db.execute(
                sql: """
                    -- The sources that saved each type, with the anchor of their first sample of it: the default source
                    -- priority is the order in which sources first saved a type. Kept by a trigger on every insert.
                    CREATE TABLE type_sources (
                        type_id INTEGER NOT NULL REFERENCES types(id),
                        source_id INTEGER NOT NULL REFERENCES sources(id),
                        first_anchor INTEGER NOT NULL,
                        PRIMARY KEY (type_id, source_id)
                    ) WITHOUT ROWID;
                    INSERT INTO type_sources (type_id, source_id, first_anchor)
                        SELECT type_id, source_id, min(id) FROM samples GROUP BY type_id, source_id;
                    CREATE TRIGGER samples_record_type_source AFTER INSERT ON samples BEGIN
                        INSERT OR IGNORE INTO type_sources (type_id, source_id, first_anchor)
                        VALUES (NEW.type_id, NEW.source_id, NEW.id);
                    END;
                    -- The person's source priority per type (HealthKit: the Health app's Data Sources), highest first
                    -- (position 0). Sources not listed follow, in the order in which they first saved the type.
                    CREATE TABLE source_priorities (
                        type_id INTEGER NOT NULL REFERENCES types(id),
                        bundle_identifier TEXT NOT NULL,
                        position INTEGER NOT NULL,
                        PRIMARY KEY (type_id, bundle_identifier)
                    ) WITHOUT ROWID;
                    -- When each deleted object was deleted (seconds since 2001), for the retention of deletion records.
                    -- Records from before this column have NULL: their age is unknown, the next purge removes them.
                    ALTER TABLE deleted_objects ADD COLUMN deleted REAL;
                    -- Samples folded away by condensing: one record per condensed range (one series) instead of one
                    -- deleted_objects row per sample. uuids holds the originals' UUIDs, 16 bytes each, in the order
                    -- of their anchors; anchored queries report each of them as a deleted object at this anchor.
                    CREATE TABLE deleted_ranges (
                        anchor INTEGER PRIMARY KEY,
                        type_id INTEGER NOT NULL REFERENCES types(id),
                        source_id INTEGER NOT NULL REFERENCES sources(id),
                        count INTEGER NOT NULL,
                        uuids BLOB NOT NULL,
                        deleted REAL NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v7: activity goals") { db in
            try db.execute(
                sql: """
                    -- The person's daily activity goals (HKActivitySummary): kcal, minutes, hours; NULL: the default.
                    ALTER TABLE workout_profile ADD COLUMN move_goal REAL;
                    ALTER TABLE workout_profile ADD COLUMN exercise_goal REAL;
                    ALTER TABLE workout_profile ADD COLUMN stand_goal REAL;
                    """)
        }
        migrator.registerMigration("v8: workout effort relationships") { db in
            try db.execute(
                sql: """
                    -- Effort samples related to a workout or one of its activities (HKHealthStore.relateWorkoutEffortSample).
                    -- id is the relationship query's anchor; activity_uuid is NULL for the workout itself.
                    CREATE TABLE workout_effort (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        workout_id INTEGER NOT NULL REFERENCES workouts(sample_id) ON DELETE CASCADE,
                        activity_uuid BLOB,
                        sample_id INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE
                    );
                    CREATE UNIQUE INDEX workout_effort_unique ON workout_effort(workout_id, IFNULL(activity_uuid, x''), sample_id);
                    """)
        }
        migrator.registerMigration("v9: workout routes") { db in
            try db.execute(
                sql: """
                    -- The locations of workout route samples (WorkoutRouteCodec).
                    CREATE TABLE workout_routes (
                        sample_id INTEGER PRIMARY KEY REFERENCES samples(id) ON DELETE CASCADE,
                        count INTEGER NOT NULL,
                        locations BLOB NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v10: workout sensors") { db in
            try db.execute(
                sql: """
                    -- The sensors a live data source recorded a workout from, in their rank order, with their device (its
                    -- Device Information as known at the end) and the first and last battery level they reported.
                    CREATE TABLE workout_sensors (
                        workout_id INTEGER NOT NULL REFERENCES workouts(sample_id) ON DELETE CASCADE,
                        position INTEGER NOT NULL,
                        device_id INTEGER NOT NULL REFERENCES devices(id),
                        battery_first INTEGER,
                        battery_last INTEGER,
                        PRIMARY KEY (workout_id, position)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v11: shared series timelines") { db in
            try db.execute(
                sql: """
                    -- The instants that several series of one condensed workout share (one sensor's notification times,
                    -- which its power, cadence, speed, distance and energy all carry). A quantity series with a
                    -- timeline_id stores positions in these instants instead of its own times (QuantitySeriesCodec
                    -- version 4); instants holds them as a series (version 3).
                    CREATE TABLE series_timelines (
                        id INTEGER PRIMARY KEY,
                        instants BLOB NOT NULL
                    );
                    ALTER TABLE quantity_series ADD COLUMN timeline_id INTEGER REFERENCES series_timelines(id);
                    CREATE INDEX quantity_series_by_timeline ON quantity_series(timeline_id) WHERE timeline_id IS NOT NULL;
                    -- A timeline goes with the last series that uses it (deleted directly or with its sample).
                    CREATE TRIGGER quantity_series_release_timeline AFTER DELETE ON quantity_series
                    WHEN OLD.timeline_id IS NOT NULL BEGIN
                        DELETE FROM series_timelines WHERE id = OLD.timeline_id
                            AND NOT EXISTS (SELECT 1 FROM quantity_series WHERE timeline_id = OLD.timeline_id);
                    END;
                    """)
        }
        migrator.registerMigration("v12: grouped deletion records") { db in
            try db.execute(
                sql: """
                    -- How deleted_ranges.uuids lists its UUIDs (DeletedUUIDsCodec): 0, 16 bytes each; 1, groups of
                    -- consecutive UUIDs from one sample stream.
                    ALTER TABLE deleted_ranges ADD COLUMN format INTEGER NOT NULL DEFAULT 0;
                    """)
        }
        migrator.registerMigration("v13: category samples") { db in
            // Category samples (HKCategorySample: stand hours, sleep, mindful sessions, heart-rate events) are rows of
            // samples whose value is the category value, a whole number, with no unit; their type rows carry
            // HKCategoryTypeIdentifier… identifiers. No table changes: the migration marks stores that may hold
            // them, so that a version before it, which cannot read them, refuses the store as newer than it knows
            // instead of failing on the first category row a query meets.
            _ = db
        }
        migrator.registerMigration("v14: workout plans") { db in
            try db.execute(
                sql: """
                    -- WorkoutKit's plans (OpenWorkoutKit), each as the bytes of its .workout file
                    -- (WorkoutPlan.dataRepresentation): the plan a workout was recorded with (HKWorkout.workoutPlan),
                    -- WorkoutScheduler's schedule (at most maxAllowedScheduledWorkoutCount rows, checked in the
                    -- transaction that adds one), and the plans `workout plan import` keeps.
                    CREATE TABLE workout_plans (
                        workout_id INTEGER PRIMARY KEY REFERENCES workouts(sample_id) ON DELETE CASCADE,
                        plan BLOB NOT NULL
                    );
                    CREATE TABLE scheduled_workout_plans (
                        id INTEGER PRIMARY KEY,
                        plan_id TEXT NOT NULL,
                        date TEXT NOT NULL,
                        complete INTEGER NOT NULL DEFAULT 0,
                        plan BLOB NOT NULL,
                        UNIQUE (plan_id, date)
                    );
                    CREATE TABLE plan_library (
                        id INTEGER PRIMARY KEY,
                        name TEXT,
                        source TEXT NOT NULL,
                        imported REAL NOT NULL,
                        plan BLOB NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v15: correlations") { db in
            try db.execute(
                sql: """
                    -- A correlation (blood pressure, food) is a samples row of its correlation type with no value; each
                    -- sample it holds names it here (StoredCorrelations). No foreign key: deleting a correlation
                    -- deletes what it holds with it, and a foreign key would cost every sample deletion a lookup.
                    ALTER TABLE samples ADD COLUMN correlation_id INTEGER;
                    CREATE INDEX samples_by_correlation ON samples(correlation_id) WHERE correlation_id IS NOT NULL;
                    """)
        }
        return migrator
    }
}
