import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit

/// The two store backends the store's suites run against (Swift Testing `arguments:`): SQLite always, PostgreSQL
/// where its server binaries are installed (the test cluster of ``PostgresCluster``).
enum StoreKind: String, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    /// SQLite, and PostgreSQL when its server can run here.
    static let available: [StoreKind] = PostgresCluster.unavailableReason == nil ? [.sqlite, .postgres] : [.sqlite]

    var testDescription: String { rawValue }

    /// The login roles of the PostgreSQL tests: the owner of each test's database (who makes the schema) and two
    /// people who use stores in it, and a coach they may share with.
    static let postgresOwner = "ohk_owner"
    static let people = ["ohk_alice", "ohk_bob", "ohk_coach"]
    static let password = "pw-for-tests"

    /// The store name of a fresh store of this kind: a file in `directory`, or a new database of the test cluster,
    /// made by its owner and used by `person`.
    func freshStoreName(_ directory: borrowing TemporaryDirectory, person: String = people[0]) async throws -> String {
        switch self {
        case .sqlite:
            return directory.file("store-\(UUID().uuidString.prefix(8)).sqlite")
        case .postgres:
            let cluster = try await Self.roles()
            let database = try await cluster.createDatabase(owner: Self.postgresOwner)
            _ = try await PostgresStoreBackend.open(
                url: cluster.url(user: Self.postgresOwner, password: Self.password, database: database))
            return cluster.url(user: person, password: Self.password, database: database)
        }
    }

    /// The database a test store's PostgreSQL URL names.
    static func databaseName(_ url: String) throws -> String {
        String(try #require(URLComponents(string: url)?.path.dropFirst()))
    }

    /// A fresh backend of this kind.
    func backend(_ directory: borrowing TemporaryDirectory) async throws -> any StoreBackend {
        let name = try await freshStoreName(directory)
        switch self {
        case .sqlite: return try await StoreDatabase.open(path: name)
        case .postgres: return try await PostgresStoreBackend.open(url: name)
        }
    }

    /// A fresh store of this kind whose client is granted every type of `allTypes`.
    func authorizedStore(
        _ directory: borrowing TemporaryDirectory, client: String = "tests"
    ) async throws
        -> HKHealthStore
    {
        let store = try await HKHealthStore.open(
            databasePath: try await freshStoreName(directory), clientIdentifier: client)
        try await store.requestAuthorization(toShare: allTypes, read: Set(allTypes.map { $0 as HKObjectType }))
        return store
    }

    /// The test cluster with its roles made (once per process, by the first test that asks; the others wait).
    static func roles() async throws -> PostgresCluster {
        try await rolesMade.value
    }

    private static let rolesMade = Task<PostgresCluster, any Error> {
        let cluster = try await PostgresCluster.shared()
        try await cluster.createRole(postgresOwner, password: password, options: "CREATEROLE")
        // The group role exists once any owner has opened a store; made here too so people can join it first.
        try await cluster.psql(
            """
            DO $$ BEGIN
              CREATE ROLE openhealthkit_person NOLOGIN;
            EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
            END $$;
            """)
        for person in people {
            try await cluster.createRole(person, password: password, groups: ["openhealthkit_person"])
        }
        return cluster
    }
}
