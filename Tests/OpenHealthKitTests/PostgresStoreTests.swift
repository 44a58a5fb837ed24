import Foundation
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
        let database = String(alicesURL.split(separator: "/").last!.split(separator: "?").first!)
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
            let tiling = DateTiling(
                anchor: t0, components: DateComponents(day: 1), calendar: Calendar(identifier: .gregorian))
            let backend = try store.backend()
            answers[kind] = try await backend.statisticsCollection(
                HKQuantityType(.heartRate),
                fetch: HKQueryDescriptor(sampleType: HKQuantityType(.heartRate), predicate: nil),
                tiling: tiling, client: "tests", everySource: false)
            energy[kind] = try await backend.statisticsCollection(
                HKQuantityType(.activeEnergyBurned),
                fetch: HKQueryDescriptor(sampleType: HKQuantityType(.activeEnergyBurned), predicate: nil),
                tiling: tiling, client: "tests", everySource: false)
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

    @Test func aServerThatStopsGivesOneSentenceAndTheStoreWorksWhenItIsBack() async throws {
        // Given a store on a cluster of this test's own, with two samples saved
        let cluster = try await PostgresCluster.launchPrivate()
        try await cluster.createRole("ohk_owner", password: "pw", options: "CREATEROLE")
        let database = try await cluster.createDatabase(owner: "ohk_owner")
        _ = try await PostgresStoreBackend.open(url: cluster.url(user: "ohk_owner", password: "pw", database: database))
        try await cluster.createRole("ohk_alice", password: "pw", groups: ["openhealthkit_person"])
        let store = try await HKHealthStore.open(
            databasePath: cluster.url(user: "ohk_alice", password: "pw", database: database), clientIdentifier: "tests")
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
}
