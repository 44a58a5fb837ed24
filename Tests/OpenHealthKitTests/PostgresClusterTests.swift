import Foundation
import TestSupport
import Testing

/// The test harness's throwaway PostgreSQL cluster: it starts once per test process, listens on loopback, lets a
/// created role log in with its password and nobody with a wrong one, and gives each test a database of its own.
@Suite(
    .enabled(if: PostgresCluster.unavailableReason == nil, "\(PostgresCluster.unavailableReason ?? "")"),
    .postgresCluster, .timeLimit(.minutes(1)))
struct PostgresClusterTests {
    @Test func aRoleLogsInToADatabaseOfItsOwnOnLoopback() async throws {
        let cluster = try await PostgresCluster.shared()
        // Given a role and a database made for this test
        let role = "harness_" + UUID().uuidString.prefix(8).lowercased()
        try await cluster.createRole(role, password: "s3cret")
        let database = try await cluster.createDatabase(owner: role)
        // When the role connects with its password
        let answer = try await cluster.psql(
            "SELECT current_user || ' ' || current_database() || ' ' || host(inet_server_addr())", database: database,
            user: role, password: "s3cret")
        // Then it is itself, in its database, on loopback
        #expect(answer == "\(role) \(database) 127.0.0.1")
        // And a wrong password is refused by the server
        await #expect(throws: PostgresClusterError.self) {
            try await cluster.psql("SELECT 1", database: database, user: role, password: "wrong")
        }
    }

    @Test func eachCallMakesAnotherDatabase() async throws {
        let cluster = try await PostgresCluster.shared()
        let first = try await cluster.createDatabase()
        let second = try await cluster.createDatabase()
        #expect(first != second)
        #expect(
            try await cluster.psql("SELECT count(*) FROM pg_database WHERE datname IN ('\(first)', '\(second)')") == "2"
        )
    }
}
