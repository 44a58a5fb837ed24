import Foundation
import GRDB
import HealthKitModel
import WorkoutEngine

/// Authorization decisions per client and type (`authorizations`).
extension StoreDatabase {
    /// A client's stored decisions for a type: the sharing status (HKAuthorizationStatus raw value) and the read
    /// decision; nil when neither was ever recorded.
    func authorization(client: String, type identifier: String, _ db: Database) throws -> (share: Int, read: Int)? {
        let statement = try db.cachedStatement(
            sql: "SELECT share, read FROM authorizations WHERE client = ? AND type_identifier = ?")
        return try Row.fetchOne(statement, arguments: [client, identifier]).map { ($0[0], $0[1]) }
    }

    func setShare(_ status: HKAuthorizationStatus, client: String, type identifier: String, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO authorizations (client, type_identifier, share, read) VALUES (?, ?, ?, 0)
                ON CONFLICT (client, type_identifier) DO UPDATE SET share = excluded.share
                """, arguments: [client, identifier, status.rawValue])
    }

    func setRead(_ decision: ReadDecision, client: String, type identifier: String, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO authorizations (client, type_identifier, share, read) VALUES (?, ?, 0, ?)
                ON CONFLICT (client, type_identifier) DO UPDATE SET read = excluded.read
                """, arguments: [client, identifier, decision.rawValue])
    }

    /// The identifiers of the types a client was granted reading.
    func readableTypes(client: String, _ db: Database) throws -> [String] {
        try String.fetchAll(
            db, sql: "SELECT type_identifier FROM authorizations WHERE client = ? AND read = 1",
            arguments: [client])
    }
}
