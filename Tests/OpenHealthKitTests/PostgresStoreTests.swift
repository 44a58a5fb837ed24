import FitnessSensors
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import OpenHealthKit

/// The PostgreSQL store against a real server (the test cluster): each person's rows are their own even in plain
/// SQL, and a wrong URL, a wrong password, an unreachable server or a role that may not use the store each give one
/// sentence that never shows the password.
@Suite(
    .enabled(if: PostgresCluster.unavailableReason == nil, "\(PostgresCluster.unavailableReason ?? "")"),
    .postgresCluster, .timeLimit(.minutes(2)))
struct PostgresStoreTests {
    let source = HKSourceRevision.current(clientIdentifier: "pg-tests")

    @Test func bobSeesNothingOfAlicesRowsEvenInPlainSQL() async throws {
        let directory = try TemporaryDirectory()
        let cluster = try await StoreKind.roles()
        let alicesURL = try await StoreKind.postgres.freshStoreName(directory, person: "ohk_alice")
        let database = try StoreKind.databaseName(alicesURL)
        // Given alice's heart rate saved in her store
        let alice = try await HKHealthStore.open(databasePath: alicesURL, clientIdentifier: "pg-tests")
        try await alice.requestAuthorization(toShare: allTypes, read: Set(allTypes.map { $0 as HKObjectType }))
        try await alice.save([heartRate(140, at: 0), heartRate(150, at: 5)])
        // When bob opens the same database through the store
        let bobsURL = cluster.url(user: "ohk_bob", password: StoreKind.password, database: database)
        let bob = try await HKHealthStore.open(databasePath: bobsURL, clientIdentifier: "pg-tests")
        try await bob.requestAuthorization(toShare: allTypes, read: Set(allTypes.map { $0 as HKObjectType }))
        // Then he reads none of her samples, and she reads both
        #expect(try await fetch(bob, HKQuantityType(.heartRate), nil).isEmpty)
        #expect(try await fetch(alice, HKQuantityType(.heartRate), nil).count == 2)
        // And plain SQL as bob shows none of her rows in any table, while as alice it shows her own
        for table in ["samples", "sources", "authorizations", "type_sources"] {
            let bobs = try await cluster.psql(
                "SELECT count(*) FROM \(table) WHERE owner = 'ohk_alice'", database: database, user: "ohk_bob",
                password: StoreKind.password)
            #expect(bobs == "0", "bob sees \(bobs) of alice's rows in \(table)")
        }
        let alices = try await cluster.psql(
            "SELECT count(*) FROM samples", database: database, user: "ohk_alice", password: StoreKind.password)
        #expect(alices == "2")
        // And bob cannot write a row in her name
        await #expect(throws: PostgresClusterError.self) {
            try await cluster.psql(
                "INSERT INTO authorizations (owner, client, type_identifier, share, read) VALUES ('ohk_alice', 'x', 'y', 2, 1)",
                database: database, user: "ohk_bob", password: StoreKind.password)
        }
    }

    @Test func aCoachReadsOnlyWhatAnAthleteSharedAndWritesNothing() async throws {
        let directory = try TemporaryDirectory()
        let cluster = try await StoreKind.roles()
        let alicesURL = try await StoreKind.postgres.freshStoreName(directory, person: "ohk_alice")
        let database = try StoreKind.databaseName(alicesURL)
        func url(_ user: String, person: String? = nil) -> String {
            cluster.url(user: user, password: StoreKind.password, database: database)
                + (person.map { "&person=\($0)" } ?? "")
        }
        func open(_ url: String) async throws -> HKHealthStore {
            let store = try await HKHealthStore.open(databasePath: url, clientIdentifier: "pg-tests")
            try await store.requestAuthorization(toShare: allTypes, read: Set(allTypes.map { $0 as HKObjectType }))
            return store
        }
        // Given alice's two heart rates, bob's one and the coach's own one, in one database
        let alice = try await open(alicesURL)
        try await alice.save([heartRate(140, at: 0), heartRate(150, at: 5)])
        try await open(url("ohk_bob")).save([heartRate(99, at: 0)])
        try await open(url("ohk_coach")).save([heartRate(70, at: 0)])
        // When nothing is shared, the coach cannot open alice's store, and is told how she shares it
        var error = await expectHKError(.errorDatabaseInaccessible) {
            _ = try await HKHealthStore.open(databasePath: url("ohk_coach", person: "ohk_alice"))
        }
        #expect(error?.message.contains("ohk_alice has not shared their health store with ohk_coach") == true)
        #expect(error?.message.contains(StoreKind.password) == false)
        // When alice shares with the coach (twice: the first share stays)
        try await alice.shareStore(withReader: "ohk_coach")
        try await alice.shareStore(withReader: "ohk_coach")
        #expect(try await alice.storeShares().map { "\($0.owner)>\($0.reader)" } == ["ohk_alice>ohk_coach"])
        // Then the coach reads her heart rates, neither bob's nor their own, and sees the share made with them
        let coachReadingAlice = try await open(url("ohk_coach", person: "ohk_alice"))
        let read = try await fetch(coachReadingAlice, HKQuantityType(.heartRate), nil)
        #expect(
            read.compactMap {
                ($0 as? HKQuantitySample)?.quantity.doubleValue(for: .count().unitDivided(by: .minute()))
            }
            .sorted() == [140, 150])
        #expect(try await coachReadingAlice.storeShares().map(\.owner) == ["ohk_alice"])
        #expect(coachReadingAlice.databasePath?.hasSuffix("?person=ohk_alice") == true)
        // And the coach can neither save into her store nor delete from it
        #expect(coachReadingAlice.authorizationStatus(for: HKQuantityType(.heartRate)) == .sharingDenied)
        error = await expectHKError(.errorAuthorizationDenied) {
            try await coachReadingAlice.delete(read)
        }
        #expect(
            error?.message == "ohk_alice's health store is shared with ohk_coach to read; ohk_coach cannot write to it."
        )
        await expectHKError(.errorAuthorizationDenied) {
            try await coachReadingAlice.save([heartRate(60, at: 9)])
        }
        await expectHKError(.errorAuthorizationDenied) {
            try await coachReadingAlice.shareStore(withReader: "ohk_bob")
        }
        #expect(try await fetch(alice, HKQuantityType(.heartRate), nil).count == 2)
        // And bob, with whom nothing is shared, cannot open her store
        await expectHKError(.errorDatabaseInaccessible) {
            _ = try await HKHealthStore.open(databasePath: url("ohk_bob", person: "ohk_alice"))
        }
        // And in plain SQL: the coach sees their own rows by default and alice's only when they ask for her; bob
        // naming her sees nothing; the coach cannot insert a row as alice's
        func count(_ user: String, person: String?) async throws -> String {
            try await cluster.psql(
                (person.map { "SET openhealthkit.person = '\($0)'; " } ?? "") + "SELECT count(*) FROM samples",
                database: database, user: user, password: StoreKind.password)
        }
        #expect(try await count("ohk_coach", person: nil) == "1")
        #expect(try await count("ohk_coach", person: "ohk_alice") == "2")
        #expect(try await count("ohk_bob", person: "ohk_alice") == "0")
        await #expect(throws: PostgresClusterError.self) {
            try await cluster.psql(
                "SET openhealthkit.person = 'ohk_alice'; DELETE FROM store_shares; "
                    + "INSERT INTO authorizations (owner, client, type_identifier, share, read) VALUES ('ohk_alice', 'x', 'y', 2, 1)",
                database: database, user: "ohk_coach", password: StoreKind.password)
        }
        #expect(try await alice.storeShares().count == 1)
        // When alice stops sharing, the coach's open store reads nothing more and a new open fails
        #expect(try await alice.stopSharingStore(withReader: "ohk_coach"))
        #expect(try await alice.stopSharingStore(withReader: "ohk_coach") == false)
        #expect(try await fetch(coachReadingAlice, HKQuantityType(.heartRate), nil).isEmpty)
        await expectHKError(.errorDatabaseInaccessible) {
            _ = try await HKHealthStore.open(databasePath: url("ohk_coach", person: "ohk_alice"))
        }
    }

    @Test func aPersonsStatementsUseTheOwnerIndexes() async throws {
        // Given alice's store (the policies compare owner with current_user in the column's collation)
        let directory = try TemporaryDirectory()
        let cluster = try await StoreKind.roles()
        let url = try await StoreKind.postgres.freshStoreName(directory, person: "ohk_alice")
        let database = try StoreKind.databaseName(url)
        _ = try await PostgresStoreBackend.open(url: url)
        // When alice looks a sample up by id and by UUID, the plan bounds the index scan by her own rows
        for lookup in ["id = 1", "uuid = '00000000-0000-0000-0000-000000000001'"] {
            let plan = try await cluster.psql(
                "EXPLAIN SELECT id FROM samples WHERE \(lookup)", database: database, user: "ohk_alice",
                password: StoreKind.password)
            let conditions = plan.split(separator: "\n").filter { $0.contains("Index Cond:") }
            #expect(conditions.contains { $0.contains("owner =") }, "\(plan)")
        }
    }

    @Test func sharingNeedsAServerRoleAndAPostgreSQLStore() async throws {
        let directory = try TemporaryDirectory()
        let alice = try await StoreKind.postgres.authorizedStore(directory)
        var error = await expectHKError(.errorInvalidArgument) {
            try await alice.shareStore(withReader: "ohk_nobody_of_that_name")
        }
        #expect(error?.message.contains("has no role named ohk_nobody_of_that_name") == true, "\(error?.message ?? "")")
        await expectHKError(.errorInvalidArgument) { try await alice.shareStore(withReader: "ohk_alice") }
        let file = try await StoreKind.sqlite.authorizedStore(directory)
        error = await expectHKError(.errorInvalidArgument) { try await file.shareStore(withReader: "ohk_coach") }
        #expect(error?.message.contains("one person's file") == true)
        #expect(try await file.storeShares().isEmpty)
    }

    @Test func aWrongPasswordIsOneSentenceWithoutThePassword() async throws {
        let cluster = try await StoreKind.roles()
        let database = try await cluster.createDatabase(owner: StoreKind.postgresOwner)
        let url = cluster.url(user: "ohk_alice", password: "not-the-Secret-42", database: database)
        let error = await expectHKError(.errorDatabaseInaccessible) {
            _ = try await PostgresStoreBackend.open(url: url)
        }
        #expect(error?.message.contains("refused the password of ohk_alice") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("not-the-Secret-42") == false)
    }

    @Test func anUnreachableServerIsOneSentence() async throws {
        let cluster = try await StoreKind.roles()
        // A port of the loopback nobody listens on: the cluster's port plus one is not it.
        let url = "postgres://ohk_alice:pw@127.0.0.1:1/health?sslmode=disable"
        _ = cluster
        let error = await expectHKError(.errorDatabaseInaccessible) {
            _ = try await PostgresStoreBackend.open(url: url)
        }
        #expect(
            error?.message.hasPrefix("No PostgreSQL server answers for the health store") == true,
            "\(error?.message ?? "")")
        #expect(error?.message.contains(":pw@") == false)
    }

    @Test(arguments: [
        ("postgres://@127.0.0.1:5432/db", "names no user"),
        ("postgres://alice@127.0.0.1:5432/", "names no database"),
        ("postgres://alice@127.0.0.1:5432/db?sslmode=sometimes", "sslmode must be disable, prefer or require"),
        ("postgres://alice@127.0.0.1:5432/db?colour=blue", "'colour' is not a setting"),
    ])
    func aWrongURLIsOneSentence(url: String, reason: String) async throws {
        let error = await expectHKError(.errorDatabaseInaccessible) {
            _ = try await PostgresStoreBackend.open(url: url)
        }
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }

    @Test func aRoleWithoutTheGroupRoleIsOneSentence() async throws {
        let directory = try TemporaryDirectory()
        let cluster = try await StoreKind.roles()
        try await cluster.createRole("ohk_stranger", password: StoreKind.password)
        let url = try await StoreKind.postgres.freshStoreName(directory, person: "ohk_stranger")
        let error = await expectHKError(.errorDatabaseInaccessible) {
            _ = try await PostgresStoreBackend.open(url: url)
        }
        #expect(error?.message.contains("not a member of openhealthkit_person") == true, "\(error?.message ?? "")")
    }

    @Test func aDatabaseWithoutTheSchemaTellsWhoMakesIt() async throws {
        let cluster = try await StoreKind.roles()
        let database = try await cluster.createDatabase(owner: StoreKind.postgresOwner)
        let url = cluster.url(user: "ohk_alice", password: StoreKind.password, database: database)
        let error = await expectHKError(.errorDatabaseInaccessible) {
            _ = try await PostgresStoreBackend.open(url: url)
        }
        #expect(error?.message.contains("open it once as the database's owner") == true, "\(error?.message ?? "")")
    }

    /// A store's heart-rate and active-energy collections over intervals of `components` from t0, as its client reads.
    func collections(
        _ store: HKHealthStore, every components: DateComponents
    ) async throws -> (heart: [Int: StatisticsValues], energy: [Int: StatisticsValues]) {
        let tiling = DateTiling(anchor: t0, components: components, calendar: Calendar(identifier: .gregorian))
        func collection(_ type: HKQuantityType) async throws -> [Int: StatisticsValues] {
            try await store.backend().statisticsCollection(
                type, fetch: HKQueryDescriptor(sampleType: type, predicate: nil), tiling: tiling,
                client: store.clientIdentifier, everySource: false)
        }
        return (
            try await collection(HKQuantityType(.heartRate)), try await collection(HKQuantityType(.activeEnergyBurned))
        )
    }

    @Test func aDailyCollectionIsAggregatedOnTheServerAsSQLiteDoesIt() async throws {
        // Given the same heart rates and energy in both backends, some held across a day's bound
        let directory = try TemporaryDirectory()
        var answers: [StoreKind: [Int: StatisticsValues]] = [:]
        var energy: [StoreKind: [Int: StatisticsValues]] = [:]
        for kind in StoreKind.available {
            let store = try await kind.authorizedStore(directory)
            let day = 86_400.0
            var samples: [HKSample] = []
            for index in 0 ..< 40 {
                let offset = Double(index) * 3_700 + (index % 3 == 0 ? day - 20 : 0)
                samples.append(heartRate(100 + Double(index % 7), at: offset, length: index % 2 == 0 ? 0 : 30))
                samples.append(
                    HKQuantitySample(
                        type: HKQuantityType(.activeEnergyBurned),
                        quantity: HKQuantity(unit: .kilocalorie(), doubleValue: Double(index)),
                        start: t0 + offset, end: t0 + offset + 600))
            }
            try await store.save(samples)
            (answers[kind], energy[kind]) = try await collections(store, every: DateComponents(day: 1))
        }
        guard let sqlite = answers[.sqlite], let postgres = answers[.postgres] else { return }
        // Then every day has the same statistics in both
        #expect(Set(sqlite.keys) == Set(postgres.keys))
        #expect(sqlite.count >= 2)
        for (index, values) in sqlite {
            let other = postgres[index]
            #expect(
                values.merged?.average.map { ($0 * 1e6).rounded() }
                    == other?.merged?.average.map { ($0 * 1e6).rounded() }, "day \(index)")
            #expect(values.merged?.minimum == other?.merged?.minimum)
            #expect(values.merged?.maximum == other?.merged?.maximum)
            #expect(values.merged?.mostRecent == other?.merged?.mostRecent)
            #expect(
                values.merged?.duration.map { ($0 * 1e6).rounded() }
                    == other?.merged?.duration.map { ($0 * 1e6).rounded() })
        }
        for (index, values) in energy[.sqlite] ?? [:] {
            #expect(
                values.merged?.sum.map { ($0 * 1e6).rounded() }
                    == energy[.postgres]?[index]?.merged?.sum.map { ($0 * 1e6).rounded() }, "day \(index)")
        }
    }

    @Test func quantitySeriesAreAddedUpOnTheServerAsSQLiteDoesIt() async throws {
        // Given in both backends: a heart-rate series of 600 readings a second apart from t0 + 30 s, plain heart
        // rates before and after, and energy from two apps, one as a series and one as plain samples
        let directory = try TemporaryDirectory()
        var heart: [StoreKind: [Int: StatisticsValues]] = [:]
        var energy: [StoreKind: [Int: StatisticsValues]] = [:]
        let bpm = HKUnit(from: "count/min")
        for kind in StoreKind.available {
            let store = try await kind.authorizedStore(directory, client: "com.example.first")
            let other = store.asClient("com.example.second")
            try await other.requestAuthorization(toShare: allTypes, read: [])
            try await store.save([heartRate(90, at: 0, length: 0), heartRate(95, at: 700, length: 0)])
            let series = HKQuantitySeriesSampleBuilder(
                healthStore: store, quantityType: HKQuantityType(.heartRate), startDate: t0 + 30, device: nil)
            for second in 0 ..< 600 {
                try series.insert(
                    HKQuantity(unit: bpm, doubleValue: 100 + Double(second * 7 % 40)), at: t0 + 30 + Double(second))
            }
            #expect(try await series.finishSeries(metadata: nil, endDate: t0 + 630).first?.count == 600)
            // and a short series inside one interval, added by its summary
            let inside = HKQuantitySeriesSampleBuilder(
                healthStore: store, quantityType: HKQuantityType(.heartRate), startDate: t0 + 660, device: nil)
            for second in 0 ..< 20 {
                try inside.insert(
                    HKQuantity(unit: bpm, doubleValue: 150 - Double(second)), at: t0 + 660 + Double(second))
            }
            _ = try await inside.finishSeries(metadata: nil, endDate: t0 + 680)
            let energySeries = HKQuantitySeriesSampleBuilder(
                healthStore: store, quantityType: HKQuantityType(.activeEnergyBurned), startDate: t0, device: nil)
            for minute in 0 ..< 12 {
                try energySeries.insert(
                    HKQuantity(unit: .kilocalorie(), doubleValue: 10 + Double(minute)),
                    for: DateInterval(start: t0 + Double(minute) * 60, duration: 60))
            }
            _ = try await energySeries.finishSeries(metadata: nil, endDate: t0 + 720)
            try await other.save(
                (0 ..< 20).map { minute in
                    HKQuantitySample(
                        type: HKQuantityType(.activeEnergyBurned),
                        quantity: HKQuantity(unit: .kilocalorie(), doubleValue: 8),
                        start: t0 + 330 + Double(minute) * 60, end: t0 + 390 + Double(minute) * 60)
                })
            // Five-minute intervals: the long series straddles two bounds, the short one lies inside one
            (heart[kind], energy[kind]) = try await collections(store, every: DateComponents(minute: 5))
        }
        guard let sqlite = heart[.sqlite], let postgres = heart[.postgres] else { return }
        // Then every interval has the same statistics in both
        func rounded(_ value: Double?) -> Double? { value.map { ($0 * 1e6).rounded() } }
        #expect(Set(sqlite.keys) == Set(postgres.keys))
        #expect(sqlite.count >= 3)
        for (index, values) in sqlite {
            let other = postgres[index]
            #expect(rounded(values.merged?.average) == rounded(other?.merged?.average), "interval \(index)")
            #expect(values.merged?.minimum == other?.merged?.minimum, "interval \(index)")
            #expect(values.merged?.maximum == other?.merged?.maximum, "interval \(index)")
            #expect(values.merged?.mostRecent == other?.merged?.mostRecent, "interval \(index)")
            #expect(rounded(values.merged?.duration) == rounded(other?.merged?.duration), "interval \(index)")
        }
        let sqliteIntervals = Set((energy[.sqlite] ?? [:]).keys)
        let postgresIntervals = Set((energy[.postgres] ?? [:]).keys)
        #expect(sqliteIntervals == postgresIntervals)
        for (index, values) in energy[.sqlite] ?? [:] {
            let other = energy[.postgres]?[index]
            #expect(rounded(values.merged?.sum) == rounded(other?.merged?.sum), "interval \(index)")
            #expect(
                values.bySource.mapValues { rounded($0.sum) } == (other?.bySource ?? [:]).mapValues { rounded($0.sum) },
                "interval \(index)")
        }
    }

    /// A store of ohk_alice's on a cluster of the calling test's own (one it may stop and start), its URL and database.
    func privateStore() async throws -> (PostgresCluster, String, String) {
        let cluster = try await PostgresCluster.launchPrivate()
        try await cluster.createRole("ohk_owner", password: "pw", options: "CREATEROLE")
        let database = try await cluster.createDatabase(owner: "ohk_owner")
        _ = try await PostgresStoreBackend.open(url: cluster.url(user: "ohk_owner", password: "pw", database: database))
        try await cluster.createRole("ohk_alice", password: "pw", groups: ["openhealthkit_person"])
        return (cluster, cluster.url(user: "ohk_alice", password: "pw", database: database), database)
    }

    @Test func aServerThatStopsGivesOneSentenceAndTheStoreWorksWhenItIsBack() async throws {
        // Given a store on a cluster of this test's own, with two samples saved
        let (cluster, url, _) = try await privateStore()
        let store = try await HKHealthStore.open(databasePath: url, clientIdentifier: "tests")
        try await store.requestAuthorization(toShare: allTypes, read: Set(allTypes.map { $0 as HKObjectType }))
        try await store.save([heartRate(120, at: 0), heartRate(121, at: 1)])
        // When the server stops
        try await cluster.stop()
        // Then a save and a query each fail with one sentence that names the store, not the password
        let saveError = await expectHKError(.errorDatabaseInaccessible) { try await store.save(heartRate(122, at: 2)) }
        #expect(
            saveError?.message.hasPrefix("No PostgreSQL server answers for the health store") == true,
            "\(saveError?.message ?? "")")
        #expect(saveError?.message.contains(":pw@") == false)
        await expectHKError(.errorDatabaseInaccessible) { _ = try await fetch(store, HKQuantityType(.heartRate), nil) }
        // And when it is back, the same store object reads what was saved before, and saves again
        try await cluster.start()
        #expect(try await fetch(store, HKQuantityType(.heartRate), nil).count == 2)
        try await store.save(heartRate(123, at: 3))
        #expect(try await fetch(store, HKQuantityType(.heartRate), nil).count == 3)
    }

    @Test func aWorkoutWhoseServerGoesAwayIsSavedWholeWhenItIsBack() async throws {
        // Given a builder recording into a store on a cluster of this test's own, its first readings journaled
        let (cluster, url, database) = try await privateStore()
        let (store, clock) = try await liveStore(databasePath: url)
        let (session, builder, strap) = try await strapRecording(store)
        func beats(_ seconds: Range<Int>) {
            for second in seconds {
                strap.send(.heartRate(HeartRateReading(bpm: 120 + second, contact: .detected)), at: t0 + Double(second))
            }
        }
        beats(0 ..< 10)
        try await builder.flushJournal()
        // When the server goes away, the recording goes on: readings, a lap and its end throw nothing
        try await cluster.stop()
        beats(10 ..< 20)
        try await builder.flushJournal()
        try await builder.addWorkoutEvents([
            HKWorkoutEvent(type: .lap, dateInterval: DateInterval(start: t0 + 15, duration: 0), metadata: nil)
        ])
        session.end()
        try await builder.endCollection(at: t0 + 30)
        // And its finish waits for the server, saying why once
        let (heard, hearing) = AsyncStream.makeStream(of: String.self)
        let sleeping = clock.monotonic.sleeperCount
        let finishing = Task {
            try await builder.finishWorkoutWaitingForTheStore { error in
                hearing.yield(error.message)
                hearing.finish()
            }
        }
        var messages: [String] = []
        for await message in heard { messages.append(message) }
        #expect(messages.count == 1)
        #expect(messages.first?.hasPrefix("No PostgreSQL server answers for the health store") == true, "\(messages)")
        try await clock.monotonic.waitForSleepers(sleeping + 1)
        // Then when the server is back and the next try comes, the workout is saved whole
        try await cluster.start()
        clock.monotonic.advance(by: StoreOutage.interval)
        let workout = try #require(try await finishing.value)
        let samples = try await fetch(store, HKQuantityType(.heartRate), HKQuery.predicateForObjects(from: workout))
        #expect(samples.count == 20)
        #expect(workout.workoutEvents?.map(\.type) == [.lap])
        #expect(try await store.recoverActiveWorkoutSession() == nil)
        #expect(try await cluster.psql("SELECT count(*) FROM live_builders", database: database) == "0")
    }

    @Test func aStoreKeepsItsConnectionsForItsNextCalls() async throws {
        let directory = try TemporaryDirectory()
        let cluster = try await StoreKind.roles()
        // Given dave's store after its first save
        let role = "ohk_dave_" + UUID().uuidString.prefix(6).lowercased()
        try await cluster.createRole(role, password: StoreKind.password, groups: ["openhealthkit_person"])
        let url = try await StoreKind.postgres.freshStoreName(directory, person: role)
        let store = try await HKHealthStore.open(databasePath: url, clientIdentifier: "tests")
        try await store.requestAuthorization(toShare: allTypes, read: Set(allTypes.map { $0 as HKObjectType }))
        try await store.save(heartRate(100, at: 0))
        let backends = "SELECT string_agg(pid::text, ',' ORDER BY pid) FROM pg_stat_activity WHERE usename = '\(role)'"
        let before = try await cluster.psql(backends)
        // When it is called ten times more, one call after another
        for second in 1 ... 5 {
            try await store.save(heartRate(100 + Double(second), at: Double(second)))
            _ = try await fetch(store, HKQuantityType(.heartRate), nil)
        }
        // Then the server runs the same backends for it: no connection was opened for those calls
        #expect(!before.isEmpty)
        #expect(try await cluster.psql(backends) == before)
        #expect(before.split(separator: ",").count <= PostgresStoreBackend.idleLimit)
        #expect(try await fetch(store, HKQuantityType(.heartRate), nil).count == 6)
    }

    @Test func aRevokedGrantIsOneSentenceOnTheNextCall() async throws {
        let directory = try TemporaryDirectory()
        let cluster = try await StoreKind.roles()
        // Given carol using a store as a member of openhealthkit_person
        let role = "ohk_carol_" + UUID().uuidString.prefix(6).lowercased()
        try await cluster.createRole(role, password: StoreKind.password, groups: ["openhealthkit_person"])
        let url = try await StoreKind.postgres.freshStoreName(directory, person: role)
        let store = try await HKHealthStore.open(databasePath: url, clientIdentifier: "tests")
        try await store.requestAuthorization(toShare: allTypes, read: Set(allTypes.map { $0 as HKObjectType }))
        try await store.save(heartRate(100, at: 0))
        // When the grant is revoked
        try await cluster.psql("REVOKE openhealthkit_person FROM \(role)")
        // Then her next call says she may not use the store
        let error = await expectHKError(.errorDatabaseInaccessible) {
            _ = try await fetch(store, HKQuantityType(.heartRate), nil)
        }
        #expect(error?.message.contains("may not use the health store") == true, "\(error?.message ?? "")")
    }

    @Test func aSchemaNewerThanTheProgramIsRefusedAndLeftAsItWas() async throws {
        let directory = try TemporaryDirectory()
        let cluster = try await StoreKind.roles()
        // Given alice's store with a sample, whose schema a newer program has since moved on
        let url = try await StoreKind.postgres.freshStoreName(directory)
        let database = try StoreKind.databaseName(url)
        let store = try await HKHealthStore.open(databasePath: url, clientIdentifier: "tests")
        try await store.requestAuthorization(toShare: allTypes, read: [])
        try await store.save(heartRate(100, at: 0))
        let newer = PostgresSchema.latestVersion + 1
        try await cluster.psql("INSERT INTO schema_migrations VALUES (\(newer))", database: database)
        let tables = "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public'"
        let tablesBefore = try await cluster.psql(tables, database: database)
        // When alice, then the database's owner (who would migrate), opens it
        for user in ["ohk_alice", StoreKind.postgresOwner] {
            let error = await expectHKError(.errorDatabaseInaccessible) {
                _ = try await PostgresStoreBackend.open(
                    url: cluster.url(user: user, password: StoreKind.password, database: database))
            }
            // Then each is refused with one sentence, without the password
            let message = error?.message ?? ""
            #expect(
                message.hasSuffix(
                    "was written by a newer version of OpenHealthKit (schema \(newer)); it was left untouched."),
                "\(message)")
            #expect(!message.contains(StoreKind.password), "\(message)")
        }
        // And the store is as the newer program left it: its migrations, its tables, alice's sample
        #expect(
            try await cluster.psql(
                "SELECT string_agg(version::text, ',' ORDER BY version) FROM schema_migrations", database: database)
                == (PostgresSchema.migrations.map(\.version) + [newer]).map(String.init).joined(separator: ","))
        #expect(try await cluster.psql(tables, database: database) == tablesBefore)
        #expect(try await cluster.psql("SELECT count(*) FROM samples", database: database) == "1")
    }

    /// The server's disk filling under a save: a database in a tablespace on a small tmpfs (root only, as the
    /// SQLite store's full-disk tests), which is then made larger, as an administrator frees room.
    @Test(.enabled(if: SmallDisk.canMount, "mounting a small disk needs root"), .blockingWaits)
    func aFullServerDiskIsOneSentenceAndLosesNothingStored() async throws {
        // A cluster of its own: a full tablespace fails every backend that must write one of its pages out of the
        // shared buffers, whatever database that backend serves.
        let cluster = try await PostgresCluster.launchPrivate()
        guard let disk = try SmallDisk(megabytes: 12) else {
            Issue.record("no tmpfs could be mounted")
            return
        }
        let server = try #require(getpwnam("postgres"))
        #expect(chown(disk.path, server.pointee.pw_uid, server.pointee.pw_gid) == 0)
        try await cluster.createRole("ohk_owner", password: "pw", options: "CREATEROLE")
        try await cluster.psql("CREATE TABLESPACE small LOCATION '\(disk.path)'")
        try await cluster.psql("CREATE DATABASE health OWNER ohk_owner TABLESPACE small")
        // Given alice's store in a database whose files are on a small disk
        _ = try await PostgresStoreBackend.open(url: cluster.url(user: "ohk_owner", password: "pw", database: "health"))
        try await cluster.createRole("ohk_alice", password: "pw", groups: ["openhealthkit_person"])
        let store = try await HKHealthStore.open(
            databasePath: cluster.url(user: "ohk_alice", password: "pw", database: "health"), clientIdentifier: "tests")
        try await store.requestAuthorization(toShare: allTypes, read: Set(allTypes.map { $0 as HKObjectType }))
        // When she saves heart rates until the disk is full
        var saved = 0
        var failure: HKError?
        for batch in 0 ..< 100 where failure == nil {
            let samples = (0 ..< 2_000).map { heartRate(100 + Double($0 % 50), at: Double(batch * 2_000 + $0)) }
            do {
                try await store.save(samples)
                saved += samples.count
            } catch let error as HKError {
                failure = error
            }
        }
        // Then the save that did not fit is one sentence naming the store without its password
        #expect(failure?.code == .errorDatabaseInaccessible)
        #expect(
            failure?.message
                == "The disk of the PostgreSQL server holding the health store \(store.databasePath ?? "") is full.")
        #expect(store.databasePath?.contains(":pw@") == false)
        // And when the server has room again, every sample saved before it is there, and the store answers
        #expect(saved > 0)
        #expect(try ChildProcess.run("/bin/mount", ["-o", "remount,size=64m", disk.path]) == 0)
        #expect(try await cluster.psql("SELECT count(*) FROM samples", database: "health") == "\(saved)")
        let first = try await fetch(
            store, HKQuantityType(.heartRate), HKQuery.predicateForSamples(withStart: t0, end: t0 + 10))
        #expect(first.count == 10)
        try await cluster.stop()
    }

    @Test func twoRecordersOfOnePersonAtOnceEachSaveTheirWorkoutWhole() async throws {
        let directory = try TemporaryDirectory()
        let cluster = try await StoreKind.roles()
        // Given alice recording on two machines at once into her one store, as the same program
        let url = try await StoreKind.postgres.freshStoreName(directory)
        let (bike, _) = try await liveStore(client: "workout", databasePath: url)
        let (treadmill, _) = try await liveStore(client: "workout", databasePath: url)
        let recordings = [try await strapRecording(bike), try await strapRecording(treadmill)]
        // When their readings interleave, their journals are written together, and they finish together
        for second in 0 ..< 30 {
            for (index, recording) in recordings.enumerated() {
                recording.strap.send(
                    .heartRate(HeartRateReading(bpm: 100 * (index + 1) + second, contact: .detected)),
                    at: t0 + Double(second))
            }
            if second % 10 == 9 {
                async let first: Void = recordings[0].builder.flushJournal()
                async let second: Void = recordings[1].builder.flushJournal()
                _ = try await (first, second)
            }
        }
        for recording in recordings {
            recording.session.end()
            try await recording.builder.endCollection(at: t0 + 30)
        }
        async let first = recordings[0].builder.finishWorkout()
        async let second = recordings[1].builder.finishWorkout()
        let workouts = [try #require(try await first), try #require(try await second)]
        // Then each workout has its own 30 readings, none twice and none of the other's, and no journal is left
        #expect(workouts[0].uuid != workouts[1].uuid)
        for (index, workout) in workouts.enumerated() {
            let samples = try await fetch(bike, HKQuantityType(.heartRate), HKQuery.predicateForObjects(from: workout))
            let bpm = samples.compactMap {
                ($0 as? HKQuantitySample)?.quantity.doubleValue(for: HKUnit(from: "count/min"))
            }
            #expect(bpm.sorted() == (0 ..< 30).map { Double(100 * (index + 1) + $0) }, "workout \(index)")
        }
        let database = try StoreKind.databaseName(url)
        let heartRates = """
            SELECT count(*) FROM samples s JOIN types t ON t.id = s.type_id
            WHERE t.identifier = 'HKQuantityTypeIdentifierHeartRate'
            """
        #expect(try await cluster.psql(heartRates, database: database) == "60")
        #expect(try await cluster.psql("SELECT count(*) FROM live_builders", database: database) == "0")
        #expect(try await bike.recoverActiveWorkoutSession() == nil)
    }

    @Test func aRideBeingRecordedIsOfferedToNoOtherMachinesRecovery() async throws {
        let directory = try TemporaryDirectory()
        let cluster = try await StoreKind.roles()
        // Given alice recording on the bike, her first readings journaled
        let url = try await StoreKind.postgres.freshStoreName(directory)
        let database = try StoreKind.databaseName(url)
        let (bike, _) = try await liveStore(client: "workout", databasePath: url)
        let (_, builder, strap) = try await strapRecording(bike)
        for second in 0 ..< 10 {
            strap.send(.heartRate(HeartRateReading(bpm: 120 + second, contact: .detected)), at: t0 + Double(second))
        }
        try await builder.flushJournal()
        // When `workout recover` runs on another machine (another store, the same program)
        let (desk, _) = try await liveStore(client: "workout", databasePath: url)
        // Then it offers nothing: the ride is being recorded
        #expect(try await desk.recoverActiveWorkoutSession() == nil)
        // And when the bike's recorder dies (the server ends its connections, as when its process is killed), the
        // ride is offered with what was journaled, to one machine only
        try await cluster.psql(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '\(database)'")
        let recovered = try #require(try await desk.recoverActiveWorkoutSession())
        let (phone, _) = try await liveStore(client: "workout", databasePath: url)
        #expect(try await phone.recoverActiveWorkoutSession() == nil)
        let recoveredBuilder = recovered.associatedWorkoutBuilder()
        recovered.end()
        try await recoveredBuilder.endCollection(at: t0 + 10)
        let workout = try #require(try await recoveredBuilder.finishWorkout())
        #expect(
            try await fetch(desk, HKQuantityType(.heartRate), HKQuery.predicateForObjects(from: workout)).count == 10)
        #expect(try await cluster.psql("SELECT count(*) FROM live_builders", database: database) == "0")
        #expect(try await phone.recoverActiveWorkoutSession() == nil)
    }

    /// HealthKit's synchronous calls on a PostgreSQL store (`init(databasePath:)`, `authorizationStatus(for:)`), made
    /// from async code on every thread of Swift's cooperative pool at once, each return: the calls wait for the server
    /// on a thread of their own, never for a thread of the pool they are holding. In a process of its own (an exit
    /// test), which gives up after 20 s: a process whose pool is stopped cannot end a test on a time limit.
    @Test func synchronousCallsFromEveryThreadOfTheCooperativePoolAtOnceReturn() async throws {
        let directory = try TemporaryDirectory()
        let url = try await StoreKind.postgres.freshStoreName(directory)
        let store = try await HKHealthStore.open(databasePath: url, clientIdentifier: "pg-tests")
        try await store.requestAuthorization(toShare: [HKQuantityType(.heartRate)], read: [])
        let child = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            [url = url as String] in
            // Two calls for each thread of the pool (one thread per core) and two more, this closure holding a
            // thread as well; each call opens a store of its own, so the connections stay well below the cluster's.
            let calls = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
            let answered = DispatchGroup()
            final class Count: Sendable { let value = Mutex(0) }
            let authorized = Count()
            for _ in 0 ..< calls {
                answered.enter()
                Task.detached {
                    let store = try? HKHealthStore(databasePath: url, clientIdentifier: "pg-tests")
                    if store?.authorizationStatus(for: HKQuantityType(.heartRate)) == .sharingAuthorized {
                        authorized.value.withLock { $0 += 1 }
                    }
                    answered.leave()
                }
            }
            guard answered.wait(timeout: .now() + 20) == .success else {
                FileHandle.standardError.write(Data("the synchronous calls did not return within 20 s\n".utf8))
                exit(1)
            }
            let count = authorized.value.withLock { $0 }
            guard count == calls else {
                FileHandle.standardError.write(Data("\(count) of \(calls) calls said sharingAuthorized\n".utf8))
                exit(1)
            }
        }
        let said = String(decoding: child?.standardErrorContent ?? [], as: UTF8.self)
        #expect(!said.contains("calls"), "\(said)")
    }
}
