import Foundation
import TestSupport
import Testing

/// The test harness's throwaway PostgreSQL cluster: it starts once per test process, listens on loopback, lets a
/// created role log in with its password and nobody with a wrong one, and gives each test a database of its own.
@Suite(.enabled(if: PostgresCluster.unavailableReason == nil, "\(PostgresCluster.unavailableReason ?? "")"))
struct PostgresClusterTests {
    @Test func aRoleLogsInToADatabaseOfItsOwnOnLoopback() throws {
        let cluster = try PostgresCluster.shared()
        // Given a role and a database made for this test
        let role = "harness_" + UUID().uuidString.prefix(8).lowercased()
        try cluster.createRole(role, password: "s3cret")
        let database = try cluster.createDatabase(owner: role)
        // When the role connects with its password
        let answer = try cluster.psql(
            "SELECT current_user || ' ' || current_database() || ' ' || host(inet_server_addr())", database: database,
            user: role, password: "s3cret")
        // Then it is itself, in its database, on loopback
        #expect(answer == "\(role) \(database) 127.0.0.1")
        // And a wrong password is refused by the server
        #expect(throws: PostgresClusterError.self) {
            try cluster.psql("SELECT 1", database: database, user: role, password: "wrong")
        }
    }

    @Test func eachCallMakesAnotherDatabase() throws {
        let cluster = try PostgresCluster.shared()
        let first = try cluster.createDatabase()
        let second = try cluster.createDatabase()
        #expect(first != second)
        #expect(try cluster.psql("SELECT count(*) FROM pg_database WHERE datname IN ('\(first)', '\(second)')") == "2")
    }
}
