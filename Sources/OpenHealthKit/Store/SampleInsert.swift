import Foundation
import GRDB
import GRDBSQLite

/// The one statement every sample row goes through, bound with SQLite's own calls.
///
/// Saving a live workout moves hundreds of thousands of rows; building a `StatementArguments` array of
/// existentials for each costs more than SQLite's insert itself. This binds each column directly on GRDB's prepared
/// statement, inside the caller's transaction.
struct SampleInsert {
    private let statement: Statement
    private let database: Database

    init(_ db: Database) throws {
        database = db
        statement = try db.cachedStatement(sql: """
            INSERT INTO samples (uuid, type_id, start, "end", value, unit, source_id, device_id, metadata, workout_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
    }

    /// Inserts one row and returns its id.
    func callAsFunction(uuid: UUID, typeID: Int64, start: Double, end: Double, value: Double?, unit: String?,
                        sourceID: Int64, deviceID: Int64?, metadata: String?, workoutID: Int64?) throws -> Int64 {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        var code = withUnsafeBytes(of: uuid.uuid) { bytes in
            sqlite3_bind_blob(handle, 1, bytes.baseAddress, 16, Self.transient)
        }
        code |= sqlite3_bind_int64(handle, 2, typeID)
        code |= sqlite3_bind_double(handle, 3, start)
        code |= sqlite3_bind_double(handle, 4, end)
        if let value { code |= sqlite3_bind_double(handle, 5, value) }
        if let unit { code |= sqlite3_bind_text(handle, 6, unit, -1, Self.transient) }
        code |= sqlite3_bind_int64(handle, 7, sourceID)
        if let deviceID { code |= sqlite3_bind_int64(handle, 8, deviceID) }
        if let metadata { code |= sqlite3_bind_text(handle, 9, metadata, -1, Self.transient) }
        if let workoutID { code |= sqlite3_bind_int64(handle, 10, workoutID) }
        guard code == SQLITE_OK else {
            throw HKError(.errorDatabaseInaccessible, "A sample could not be prepared for the store (SQLite code \(code)).")
        }
        let step = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard step == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(database.sqliteConnection))
            throw HKError(.errorDatabaseInaccessible, "A sample could not be saved: \(message).")
        }
        return database.lastInsertedRowID
    }

    /// SQLite copies the bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
