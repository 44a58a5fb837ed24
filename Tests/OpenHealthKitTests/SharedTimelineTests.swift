import Foundation
import GRDB
import Testing

@testable import OpenHealthKit

/// Condensed series of one source and device share a timeline of their instants (migration v11, series codec
/// version 4): what they read back, when the timeline goes, stores from before it, and damaged data.
@Suite(.timeLimit(.minutes(1))) struct SharedTimelineTests {
    let power = HKQuantityType(.cyclingPower)
    let cadence = HKQuantityType(.cyclingCadence)
    let rpm = HKUnit(from: "count/min")

    func count(_ store: HKHealthStore, _ sql: String) throws -> Int {
        try store.database().read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }

    func seriesQuantities(
        _ store: HKHealthStore, _ type: HKQuantityType, _ sample: HKSample
    ) async throws
        -> [HKQuantitySeriesSampleQueryDescriptor.Result]
    {
        try await collect(
            HKQuantitySeriesSampleQueryDescriptor(
                predicate: .quantitySample(type: type, predicate: HKQuery.predicateForObject(with: sample.uuid)),
                options: []
            ).results(for: store))
    }

    @Test func seriesOfOneSourceShareATimelineThatGoesWithTheLastOfThem() async throws {
        let store = try await authorizedStore()
        try await store.requestAuthorization(toShare: [power, cadence], read: [power, cadence])
        let workout = legacy.workout(
            activityType: .cycling, start: t0, end: t0 + 600, workoutEvents: nil,
            totalEnergyBurned: nil, totalDistance: nil, metadata: nil)
        try await store.save(workout)
        // 100 power readings 480…520 ms apart (arrival times in whole ms), a cadence at each but the first (a crank
        // baseline), as one power meter's notifications carry them.
        var milliseconds = 0
        var powerSamples: [HKQuantitySample] = []
        var cadenceSamples: [HKQuantitySample] = []
        for index in 0 ..< 100 {
            milliseconds += 480 + (index * 17) % 41
            let time = t0 + Double(milliseconds) / 1000
            powerSamples.append(
                HKQuantitySample(
                    type: power, quantity: HKQuantity(unit: .watt(), doubleValue: Double(150 + index % 20)),
                    start: time, end: time))
            if index > 0 {
                cadenceSamples.append(
                    HKQuantitySample(
                        type: cadence, quantity: HKQuantity(unit: rpm, doubleValue: 85 + Double(index % 7) / 10),
                        start: time, end: time))
            }
        }
        try await store.associate(powerSamples + cadenceSamples, with: workout)
        let report = try await store.condenseWorkout(workout)
        #expect(report.seriesCreated == 2 && report.samplesRemoved == 199)
        #expect(try count(store, "SELECT count(*) FROM series_timelines") == 1)
        #expect(
            try count(store, "SELECT count(DISTINCT timeline_id) FROM quantity_series WHERE timeline_id IS NOT NULL")
                == 1)
        #expect(try count(store, "SELECT count(*) FROM quantity_series WHERE timeline_id IS NULL") == 0)

        // Every quantity reads back with its own times and value.
        let series = try await fetch(store, power, HKQuery.predicateForObjects(from: workout))
        let powerSeries = try #require(series.first)
        let cadenceSeries = try #require(
            try await fetch(store, cadence, HKQuery.predicateForObjects(from: workout)).first)
        let readPower = try await seriesQuantities(store, power, powerSeries)
        #expect(
            readPower.map(\.dateInterval) == powerSamples.map { DateInterval(start: $0.startDate, end: $0.endDate) })
        #expect(
            readPower.map { $0.quantity.doubleValue(for: .watt()) }
                == powerSamples.map { $0.quantity.doubleValue(for: .watt()) })
        let readCadence = try await seriesQuantities(store, cadence, cadenceSeries)
        #expect(readCadence.map(\.dateInterval.start) == cadenceSamples.map(\.startDate))
        #expect(
            readCadence.map { $0.quantity.doubleValue(for: rpm) }
                == cadenceSamples.map { $0.quantity.doubleValue(for: rpm) })

        // The timeline stays while a series uses it, and goes with the last.
        try await store.delete(powerSeries)
        #expect(try count(store, "SELECT count(*) FROM series_timelines") == 1)
        #expect(try await seriesQuantities(store, cadence, cadenceSeries).count == 99)
        try await store.delete(cadenceSeries)
        #expect(try count(store, "SELECT count(*) FROM series_timelines") == 0)
    }

    @Test func aStoreThatLostATimelineReportsItAndKeepsTheRest() async throws {
        let store = try await authorizedStore()
        try await store.requestAuthorization(toShare: [power, cadence], read: [power, cadence])
        let workout = legacy.workout(
            activityType: .cycling, start: t0, end: t0 + 600, workoutEvents: nil,
            totalEnergyBurned: nil, totalDistance: nil, metadata: nil)
        try await store.save(workout)
        let samples = (0 ..< 20).flatMap { index -> [HKSample] in
            let time = t0 + Double(index) / 2
            return [
                HKQuantitySample(
                    type: power, quantity: HKQuantity(unit: .watt(), doubleValue: 200), start: time, end: time),
                HKQuantitySample(
                    type: cadence, quantity: HKQuantity(unit: rpm, doubleValue: 90), start: time, end: time),
            ]
        }
        try await store.associate(samples, with: workout)
        _ = try await store.condenseWorkout(workout)
        // Damage: the power series loses its timeline (as a file edited by hand or copied in part might).
        try await store.database().write { db in
            try db.execute(
                sql: """
                    UPDATE quantity_series SET timeline_id = NULL WHERE sample_id =
                        (SELECT id FROM samples WHERE type_id = (SELECT id FROM types WHERE identifier = ?))
                    """, arguments: [power.identifier])
        }
        let powerSeries = try #require(try await fetch(store, power, HKQuery.predicateForObjects(from: workout)).first)
        let error = await expectHKError(.errorDatabaseInaccessible) {
            _ = try await seriesQuantities(store, power, powerSeries)
        }
        #expect(error?.message.contains("timeline") == true)
        // The cadence series, on the same timeline, still reads in full.
        let cadenceSeries = try #require(
            try await fetch(store, cadence, HKQuery.predicateForObjects(from: workout)).first)
        #expect(try await seriesQuantities(store, cadence, cadenceSeries).count == 20)
    }

    @Test func aLoneSeriesKeepsItsOwnTimes() async throws {
        let store = try await authorizedStore()
        let workout = legacy.workout(
            activityType: .running, start: t0, end: t0 + 600, workoutEvents: nil,
            totalEnergyBurned: nil, totalDistance: nil, metadata: nil)
        try await store.save(workout)
        try await store.associate(
            (0 ..< 50).map { heartRate(Double(120 + $0 % 5), at: Double($0), length: 0) }, with: workout)
        #expect(try await store.condenseWorkout(workout).seriesCreated == 1)
        #expect(try count(store, "SELECT count(*) FROM series_timelines") == 0)
        #expect(try count(store, "SELECT count(*) FROM quantity_series WHERE timeline_id IS NULL") == 1)
    }

    @Test func aStoreWrittenBeforeTimelinesKeepsItsSeries() async throws {
        // A store at schema v9 holding a heart-rate series as v9 wrote it: a sample row and a version 2 blob of
        // 10 quantities, one a second at 120…129 bpm.
        let directory = try TemporaryDirectory()
        let path = directory.file("store.sqlite")
        let queue = try DatabaseQueue(path: path)
        try StoreSchema.migrator.migrate(queue, upTo: "v9: workout routes")
        let quantities = (0 ..< 10).map {
            SeriesQuantity(
                start: t0.storeValue + Double($0), end: t0.storeValue + Double($0),
                value: Double(120 + $0))
        }
        let uuid = UUID()
        try await queue.write { db in
            try db.execute(
                sql: "INSERT INTO types (id, identifier) VALUES (1, ?)",
                arguments: [HKQuantityTypeIdentifier.heartRate.rawValue])
            try db.execute(
                sql: """
                    INSERT INTO sources (id, key, name, bundle_identifier, os_version) VALUES (1, 'old', 'Old', 'old', '1')
                    """)
            try db.execute(
                sql: """
                    INSERT INTO samples (id, uuid, type_id, start, "end", value, source_id) VALUES (1, ?, 1, ?, ?, 124.5, 1)
                    """, arguments: [uuid, quantities[0].start, quantities[9].end])
            try db.execute(
                sql: """
                    INSERT INTO quantity_series (sample_id, count, sum, weighted_sum, weight, minimum, maximum, most_recent,
                        most_recent_start, most_recent_end, most_recent_clipped_end, duration, points)
                    VALUES (1, 10, 1245, 1245, 10, 120, 129, 129, ?, ?, ?, 10, ?)
                    """,
                arguments: [
                    quantities[9].start, quantities[9].end, quantities[9].end,
                    QuantitySeriesCodec.encodeVersion2(quantities),
                ])
        }
        try queue.close()

        let store = try await authorizedStore(databasePath: path)
        let migrations = try await store.database().read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
        }
        #expect(migrations.contains("v11: shared series timelines"))
        let heart = HKQuantityType(.heartRate)
        let sample = try #require(try await fetch(store, heart, HKQuery.predicateForObject(with: uuid)).first)
        let read = try await seriesQuantities(store, heart, sample)
        #expect(read.map { $0.quantity.doubleValue(for: rpm) } == (120 ... 129).map(Double.init))
        #expect(read.map(\.dateInterval.start) == (0 ..< 10).map { t0 + Double($0) })
        #expect(try count(store, "SELECT count(*) FROM quantity_series WHERE timeline_id IS NULL") == 1)
    }

    @Test func aSeriesWithoutItsTimelineOrBeyondItIsAnErrorNeverACrash() throws {
        let quantities = (0 ..< 20).map { SeriesQuantity(start: Double($0), end: Double($0 + 1), value: 3) }
        let timeline = QuantitySeriesCodec.Timeline(covering: [quantities])
        #expect(timeline.instants == (0 ... 20).map(Double.init))
        let encoded = try #require(QuantitySeriesCodec.encode(quantities, on: timeline))
        #expect(encoded.first == 4)
        #expect(try QuantitySeriesCodec.decode(encoded, timeline: timeline) == quantities)
        #expect(throws: HKError.self) { try QuantitySeriesCodec.decode(encoded) }
        #expect(throws: HKError.self) { try QuantitySeriesCodec.decode(encoded, timeline: nil) }
        let shorter = QuantitySeriesCodec.Timeline(instants: Array(timeline.instants.prefix(10)))
        #expect(throws: HKError.self) { try QuantitySeriesCodec.decode(encoded, timeline: shorter) }
        for length in 1 ..< encoded.count {
            #expect(throws: HKError.self) { try QuantitySeriesCodec.decode(encoded.prefix(length), timeline: timeline) }
        }
        // A time that is not an instant of the timeline: no version 4 form (the series keeps its own times).
        #expect(QuantitySeriesCodec.encode([SeriesQuantity(start: 0.5, end: 0.5, value: 1)], on: timeline) == nil)
        // A timeline survives its own round trip bit for bit.
        #expect(try QuantitySeriesCodec.Timeline.decode(timeline.encoded()).instants == timeline.instants)
    }
}
