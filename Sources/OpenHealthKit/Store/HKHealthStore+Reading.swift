import Foundation
import GRDB
import HealthKitModel
import WorkoutEngine

extension HKHealthStore {
    /// Runs `body` in one read of the store with this client's read access (looked up in the same read),
    /// synchronously: the completion-handler queries call it on their own dispatch queue.
    func withStoreRead<T>(_ body: (StoreDatabase, ReadAccess, Database) throws -> T) throws -> T {
        let database = try database()
        let client = clientIdentifier
        return try database.read { db in
            try body(
                database,
                ReadAccess(
                    readableTypes: Set(try database.readableTypes(client: client, db)),
                    clientIdentifier: client), db)
        }
    }

    /// Runs `body` in one read of the store with this client's read access, on one of GRDB's reader queues while
    /// the calling task is suspended: the `async` queries never hold one of Swift's cooperative threads while
    /// SQLite works.
    func withStoreRead<T>(
        _ body: @escaping @Sendable (StoreDatabase, ReadAccess, Database) throws -> T
    ) async throws -> T {
        let database = try database()
        let client = clientIdentifier
        return try await database.read { db in
            try body(
                database,
                ReadAccess(
                    readableTypes: Set(try database.readableTypes(client: client, db)),
                    clientIdentifier: client), db)
        }
    }
}
