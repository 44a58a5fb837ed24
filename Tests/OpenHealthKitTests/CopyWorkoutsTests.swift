import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit

/// `HKHealthStore.copyWorkouts(to:only:progress:)` (`workout sync`): a workout with everything that belongs to it,
/// copied between two store files with its UUIDs; twice adds nothing; a copy that stopped part-way completes.
@Suite(.timeLimit(.minutes(1))) struct CopyWorkoutsTests {
    static let bpm = HKUnit.count().unitDivided(by: .minute())
    static let effortTypes: [HKSampleType] = [HKQuantityType(.workoutEffortScore)]
    /// The samples of ``savedWorkout(in:)``: 30 heart rates, another app's, a series, a heartbeat series, a route
    /// (associated) and the effort sample (related).
    static let associated = 34
    static let samples = associated + 1

    /// A workout in a store file: heart-rate samples from two sources, a heart-rate series, a heartbeat series, a
    /// route, an event, metadata, an activity and a related effort sample.
    func savedWorkout(in store: HKHealthStore) async throws -> HKWorkout {
        try await store.requestAuthorization(
            toShare: allTypes.union([HKSeriesType.heartbeat(), HKSeriesType.workoutRoute()] + Self.effortTypes),
            read: [])
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .cycling
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: nil)
        try await builder.beginCollection(at: t0)
        try await builder.addWorkoutActivity(
            HKWorkoutActivity(workoutConfiguration: configuration, start: t0, end: t0 + 600, metadata: nil))
        try await builder.addSamples((0 ..< 30).map { heartRate(120 + Double($0), at: Double($0) * 10) })
        try await builder.addWorkoutEvents([
            HKWorkoutEvent(type: .lap, dateInterval: DateInterval(start: t0 + 300, duration: 0), metadata: nil)
        ])
        try await builder.addMetadata([HKMetadataKeyIndoorWorkout: true, "gym": "north"])

        // Another app's sample, added to the workout.
        let other = store.asClient("other-app")
        try await other.requestAuthorization(toShare: allTypes, read: [])
        let theirs = heartRate(99, at: 400)
        try await other.save(theirs)

        let series = HKQuantitySeriesSampleBuilder(
            healthStore: store, quantityType: HKQuantityType(.heartRate), startDate: t0 + 300, device: nil)
        for second in 0 ..< 20 {
            try series.insert(
                HKQuantity(unit: Self.bpm, doubleValue: 140 + Double(second)), at: t0 + 300 + Double(second))
        }
        let seriesSamples = try await series.finishSeries(metadata: nil, endDate: t0 + 320)

        let beats = HKHeartbeatSeriesBuilder(healthStore: store, device: nil, start: t0)
        for (offset, gap) in [(0.0, false), (0.8, false), (5.5, true)] {
            try await beats.addHeartbeat(at: offset, precededByGap: gap)
        }
        try await builder.addSamples([theirs, try await beats.finishSeries()] + seriesSamples)
        try await builder.endCollection(at: t0 + 600)
        let workout = try #require(try await builder.finishWorkout())

        let route = HKWorkoutRouteBuilder(healthStore: store, device: nil)
        try await route.insertRouteData(
            (0 ..< 5).map {
                CLLocation(
                    coordinate: CLLocationCoordinate2D(latitude: 48.1 + Double($0) / 1000, longitude: 11.5),
                    altitude: 520, horizontalAccuracy: 5, verticalAccuracy: 3, timestamp: t0 + Double($0))
            })
        _ = try await route.finishRoute(with: workout, metadata: nil)

        let effort = HKQuantitySample(
            type: HKQuantityType(.workoutEffortScore), quantity: HKQuantity(unit: .appleEffortScore(), doubleValue: 7),
            start: t0 + 600, end: t0 + 600)
        try await store.save(effort)
        try await store.relateWorkoutEffortSample(effort, with: workout, activity: nil)
        return workout
    }

    /// What a store holds of a workout, in a form two stores can be compared by.
    func contents(of workout: UUID, in store: HKHealthStore) async throws -> [String] {
        let reader = store.asClient("reader")
        let types: [HKSampleType] =
            Array(allTypes) + [HKSeriesType.heartbeat(), HKSeriesType.workoutRoute()] + Self.effortTypes
        try await reader.requestAuthorization(toShare: [], read: Set(types.map { $0 as HKObjectType }))
        let found = try #require(
            try await fetch(reader, .workoutType(), HKQuery.predicateForObject(with: workout)).first as? HKWorkout)
        var lines = [
            "workout \(found.uuid) \(found.workoutActivityType.rawValue) \(found.duration) "
                + "events \(found.workoutEvents?.map(\.type.rawValue) ?? []) activities \(found.workoutActivities.map(\.uuid)) "
                + "gym \(found.metadata?["gym"] as? String ?? "-") source \(found.sourceRevision.source.bundleIdentifier)"
        ]
        var samples: [HKSample] = []
        for type in types where type != .workoutType() {
            samples += try await fetch(reader, type, HKQuery.predicateForObjects(from: found))
        }
        for sample in samples.sorted(by: { $0.uuid.uuidString < $1.uuid.uuidString }) {
            var line = "\(sample.uuid) \(sample.sampleType.identifier) \(sample.sourceRevision.source.bundleIdentifier)"
            if let quantity = sample as? HKQuantitySample {
                line += " \(quantity.count) \(quantity.quantity.doubleValue(for: Self.bpm))"
            }
            if let route = sample as? HKWorkoutRoute {
                var points: [String] = []
                for try await location in HKWorkoutRouteQueryDescriptor(route).results(for: reader) {
                    points.append("\(location.coordinate.latitude),\(location.timestamp.timeIntervalSince(t0))")
                }
                line += " \(points)"
            }
            lines.append(line)
        }
        let effort = try await fetch(
            reader, HKQuantityType(.workoutEffortScore),
            HKQuery.predicateForWorkoutEffortSamplesRelated(workout: found, activity: nil))
        lines.append("effort \(effort.map(\.uuid))")
        return lines
    }

    @Test func aWorkoutIsCopiedWholeWithItsUUIDsAndTwiceAddsNothing() async throws {
        let directory = try TemporaryDirectory()
        let source = try HKHealthStore(databasePath: directory.file("from.sqlite"), clientIdentifier: "workout")
        let destination = try HKHealthStore(databasePath: directory.file("to.sqlite"), clientIdentifier: "workout")
        let workout = try await savedWorkout(in: source)
        let expected = try await contents(of: workout.uuid, in: source)
        #expect(expected.count == Self.associated + 2, "\(expected)")

        let first = try await source.copyWorkouts(to: destination)
        #expect(first.workoutsCopied == 1 && first.workoutsAlreadyPresent == 0)
        #expect(first.samplesCopied == Self.samples && first.effortRelationshipsCopied == 1)
        #expect(try await contents(of: workout.uuid, in: destination) == expected)

        let second = try await source.copyWorkouts(to: destination)
        var nothing = WorkoutCopyReport()
        nothing.workoutsAlreadyPresent = 1
        #expect(second == nothing)
        #expect(try await contents(of: workout.uuid, in: destination) == expected)
    }

    @Test func aCopyThatStoppedPartWayIsCompletedByTheNext() async throws {
        let directory = try TemporaryDirectory()
        let source = try HKHealthStore(databasePath: directory.file("from.sqlite"), clientIdentifier: "workout")
        let destination = try HKHealthStore(databasePath: directory.file("to.sqlite"), clientIdentifier: "workout")
        let workout = try await savedWorkout(in: source)
        let expected = try await contents(of: workout.uuid, in: source)

        // What an interrupted copy leaves: some of the workout's samples saved, not associated, no workout.
        let reader = source.asClient("reader")
        try await reader.requestAuthorization(toShare: [], read: [HKQuantityType(.heartRate)])
        let some = try await fetch(reader, HKQuantityType(.heartRate), HKQuery.predicateForObjects(from: workout))
            .filter { ($0 as? HKQuantitySample)?.count == 1 }.prefix(10)
        try await destination.requestAuthorization(toShare: [HKQuantityType(.heartRate)], read: [])
        try await destination.save(Array(some))

        let report = try await source.copyWorkouts(to: destination)
        #expect(report.workoutsCopied == 1 && report.samplesCopied == Self.samples - 10)
        #expect(try await contents(of: workout.uuid, in: destination) == expected)
    }

    @Test func onlyTheNamedWorkoutsAreCopiedAndAStoreIsNotCopiedIntoItself() async throws {
        let directory = try TemporaryDirectory()
        let source = try HKHealthStore(databasePath: directory.file("from.sqlite"), clientIdentifier: "workout")
        let destination = try HKHealthStore(databasePath: directory.file("to.sqlite"), clientIdentifier: "workout")
        let first = try await savedWorkout(in: source)
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .running
        let builder = HKWorkoutBuilder(healthStore: source, configuration: configuration, device: nil)
        try await builder.beginCollection(at: t0 + 3600)
        try await builder.endCollection(at: t0 + 4200)
        let second = try #require(try await builder.finishWorkout())

        let named = try await source.copyWorkouts(to: destination, only: [second.uuid])
        #expect(named.workoutsCopied == 1 && named.samplesCopied == 0 && named.effortRelationshipsCopied == 0)
        let rest = try await source.copyWorkouts(to: destination)
        #expect(rest.workoutsCopied == 1 && rest.workoutsAlreadyPresent == 1 && rest.effortRelationshipsCopied == 1)
        #expect(try await contents(of: first.uuid, in: destination) == contents(of: first.uuid, in: source))

        let same = try HKHealthStore(databasePath: directory.file("from.sqlite"), clientIdentifier: "workout")
        let error = await expectHKError(.errorInvalidArgument) { _ = try await source.copyWorkouts(to: same) }
        #expect(error?.message == "Workouts cannot be copied from \(directory.file("from.sqlite")) to itself.")
    }
}

/// `copyWorkouts` with a PostgreSQL store: a copy cut at each of its writes (some thirty copies, each cut and
/// completed, so a longer time limit than one copy's), and a quantity series to the server and back.
@Suite(
    .enabled(if: PostgresCluster.unavailableReason == nil, "\(PostgresCluster.unavailableReason ?? "")"),
    .postgresCluster, .timeLimit(.minutes(3)))
struct CopyWorkoutsPostgresTests {
    /// A copy into PostgreSQL whose connection is cut at each of its writes in turn (a statement trigger on every
    /// table of the store ends the backend at its k-th write statement, as a restarting server does): each cut is
    /// one sentence naming the store without its password, nothing already stored is lost, and the next copy by
    /// the same store objects completes with every row once (each table's row count as an uncut copy leaves it).
    @Test func aCopyIntoPostgreSQLCutAtEveryWriteIsCompletedByTheNext() async throws {
        let directory = try TemporaryDirectory()
        let source = try HKHealthStore(databasePath: directory.file("from.sqlite"), clientIdentifier: "workout")
        let copies = CopyWorkoutsTests()
        let workout = try await copies.savedWorkout(in: source)
        let expected = try await copies.contents(of: workout.uuid, in: source)
        let url = try await StoreKind.postgres.freshStoreName(directory)
        let database = try StoreKind.databaseName(url)
        let cluster = try await StoreKind.roles()
        let tables = PostgresSchema.personTables
        func cut(atWrite step: Int) async throws {
            try await cluster.psql(
                """
                CREATE OR REPLACE FUNCTION fault() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
                BEGIN
                  IF nextval('fault_steps') = \(step) THEN PERFORM pg_terminate_backend(pg_backend_pid()); END IF;
                  RETURN NULL;
                END $$;
                SELECT setval('fault_steps', 1, false);
                """, database: database)
        }
        try await cluster.psql("CREATE SEQUENCE fault_steps", database: database)
        try await cut(atWrite: 0)
        try await cluster.psql(
            (["types"] + tables).map {
                "CREATE TRIGGER fault AFTER INSERT OR UPDATE OR DELETE ON \($0) FOR EACH STATEMENT EXECUTE FUNCTION fault();"
            }.joined(separator: " "),
            database: database)
        func rowCounts() async throws -> String {
            try await cluster.psql(
                tables.map { "SELECT '\($0)', count(*) FROM \($0)" }.joined(separator: " UNION ALL "),
                database: database)
        }
        func empty() async throws {
            try await cluster.psql("TRUNCATE \(tables.joined(separator: ", ")) CASCADE", database: database)
        }
        let destination = try await HKHealthStore.open(databasePath: url, clientIdentifier: "workout")

        // An uncut copy: the rows it leaves.
        _ = try await source.copyWorkouts(to: destination)
        let whole = try await rowCounts()

        // Cut at the first write, the second, …, until a copy makes fewer writes than the cut waits for.
        var cuts = 0
        for step in 1 ... 1_000 {
            try await empty()
            try await cut(atWrite: step)
            do {
                _ = try await source.copyWorkouts(to: destination)
                break
            } catch let error as HKError {
                cuts += 1
                #expect(error.code == .errorDatabaseInaccessible, "write \(step): \(error.message)")
                #expect(
                    !error.message.contains(StoreKind.password) && !error.message.contains("\n"),
                    "write \(step): \(error.message)")
            }
            try await cut(atWrite: 0)
            let report = try await source.copyWorkouts(to: destination)
            #expect(report.workoutsCopied + report.workoutsAlreadyPresent == 1, "write \(step)")
            #expect(try await rowCounts() == whole, "write \(step)")
            #expect(try await copies.contents(of: workout.uuid, in: destination) == expected, "write \(step)")
        }
        // The copy writes in more statements than these (its samples, the workout, its associations, sensors, plan).
        #expect(cuts > 10, "\(cuts) writes cut")
        #expect(try await rowCounts() == whole)
    }

    /// A workout with a quantity series (600 heart rates) goes from a SQLite file to PostgreSQL and back whole: the
    /// series keeps its UUID, its count and every point.
    @Test func aWorkoutWithAQuantitySeriesGoesToPostgreSQLAndBack() async throws {
        let directory = try TemporaryDirectory()
        let bpm = HKUnit(from: "count/min")
        let heart = HKQuantityType(.heartRate)
        let source = try HKHealthStore(databasePath: directory.file("from.sqlite"), clientIdentifier: "workout")
        try await source.requestAuthorization(toShare: allTypes, read: Set(allTypes.map { $0 as HKObjectType }))
        let builder = HKWorkoutBuilder(healthStore: source, configuration: configuration(.cycling), device: nil)
        try await builder.beginCollection(at: t0)
        try await builder.endCollection(at: t0 + 600)
        let workout = try #require(try await builder.finishWorkout())
        let series = HKQuantitySeriesSampleBuilder(healthStore: source, quantityType: heart, startDate: t0, device: nil)
        for second in 0 ..< 600 {
            try series.insert(HKQuantity(unit: bpm, doubleValue: 100 + Double(second % 50)), at: t0 + Double(second))
        }
        let saved = try #require(try await series.finishSeries(metadata: nil, endDate: t0 + 600).first)
        try await legacy.add([saved], to: workout, in: source)

        func points(_ store: HKHealthStore) async throws -> [String] {
            try await collect(
                HKQuantitySeriesSampleQueryDescriptor(
                    predicate: .quantitySample(type: heart, predicate: HKQuery.predicateForObjects(from: workout)),
                    options: .includeSample
                ).results(for: store)
            ).map { "\($0.sample?.uuid.uuidString ?? "-") \($0.sample?.count ?? 0) \($0.dateInterval) \($0.quantity)" }
        }
        let expected = try await points(source)
        #expect(expected.count == 600)
        let server = try await HKHealthStore.open(
            databasePath: try await StoreKind.postgres.freshStoreName(directory), clientIdentifier: "workout")
        let there = try await source.copyWorkouts(to: server)
        #expect(there.workoutsCopied == 1 && there.samplesCopied == 1)
        #expect(try await points(server) == expected)
        let back = try HKHealthStore(databasePath: directory.file("back.sqlite"), clientIdentifier: "workout")
        _ = try await server.copyWorkouts(to: back)
        #expect(try await points(back) == expected)
    }
}
