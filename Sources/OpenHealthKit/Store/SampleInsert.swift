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

/// Many sample rows at a time: one `INSERT … VALUES (…), (…), …` statement of `rowsPerStatement` rows, bound with
/// SQLite's own calls. Saving a workout moves every sample it collected; one statement per row costs SQLite a
/// statement's setup (and an AUTOINCREMENT bookkeeping update) per row, which is most of the work. Rows are given
/// with `add` and written whenever a statement's worth is waiting; `finish()` writes the rest one row at a time.
/// Inside the caller's transaction. Ids are not returned.
struct SampleBulkInsert {
    static let rowsPerStatement = 64
    private static let columns: Int32 = 10
    private let statement: Statement
    private let single: SampleInsert
    private let database: Database
    private var rows: [Row] = []

    struct Row {
        var uuid: UUID
        var typeID: Int64
        var start: Double
        var end: Double
        var value: Double?
        var unit: String?
        var sourceID: Int64
        var deviceID: Int64?
        var metadata: String?
        var workoutID: Int64?
    }

    init(_ db: Database) throws {
        database = db
        single = try SampleInsert(db)
        let values = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: Self.rowsPerStatement).joined(separator: ", ")
        statement = try db.cachedStatement(sql: """
            INSERT INTO samples (uuid, type_id, start, "end", value, unit, source_id, device_id, metadata, workout_id)
            VALUES \(values)
            """)
        rows.reserveCapacity(Self.rowsPerStatement)
    }

    mutating func add(_ row: Row) throws {
        rows.append(row)
        if rows.count == Self.rowsPerStatement { try writeFull() }
    }

    /// Writes the rows still waiting.
    mutating func finish() throws {
        for row in rows {
            _ = try single(uuid: row.uuid, typeID: row.typeID, start: row.start, end: row.end, value: row.value, unit: row.unit,
                           sourceID: row.sourceID, deviceID: row.deviceID, metadata: row.metadata, workoutID: row.workoutID)
        }
        rows.removeAll(keepingCapacity: true)
    }

    private mutating func writeFull() throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        var code = SQLITE_OK
        for (index, row) in rows.enumerated() {
            let base = Int32(index) * Self.columns
            code |= withUnsafeBytes(of: row.uuid.uuid) { bytes in
                sqlite3_bind_blob(handle, base + 1, bytes.baseAddress, 16, Self.transient)
            }
            code |= sqlite3_bind_int64(handle, base + 2, row.typeID)
            code |= sqlite3_bind_double(handle, base + 3, row.start)
            code |= sqlite3_bind_double(handle, base + 4, row.end)
            if let value = row.value { code |= sqlite3_bind_double(handle, base + 5, value) }
            if let unit = row.unit { code |= sqlite3_bind_text(handle, base + 6, unit, -1, Self.transient) }
            code |= sqlite3_bind_int64(handle, base + 7, row.sourceID)
            if let deviceID = row.deviceID { code |= sqlite3_bind_int64(handle, base + 8, deviceID) }
            if let metadata = row.metadata { code |= sqlite3_bind_text(handle, base + 9, metadata, -1, Self.transient) }
            if let workoutID = row.workoutID { code |= sqlite3_bind_int64(handle, base + 10, workoutID) }
        }
        guard code == SQLITE_OK else {
            throw HKError(.errorDatabaseInaccessible, "Samples could not be prepared for the store (SQLite code \(code)).")
        }
        let step = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard step == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(database.sqliteConnection))
            throw HKError(.errorDatabaseInaccessible, "Samples could not be saved: \(message).")
        }
        rows.removeAll(keepingCapacity: true)
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

