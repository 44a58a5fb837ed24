import Foundation
import GRDB
import GRDBSQLite
import HealthKitModel
import WorkoutEngine

/// One row of the samples table, as the insert statements bind it.
struct SampleRow {
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

    static let columns = "(uuid, type_id, start, \"end\", value, unit, source_id, device_id, metadata, workout_id)"
    static let placeholders = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    static let columnCount: Int32 = 10

    /// Binds the row's columns to parameters `base + 1 …` of a prepared statement; returns SQLite's codes or-ed.
    func bind(to handle: OpaquePointer?, at base: Int32) -> Int32 {
        var code = withUnsafeBytes(of: uuid.uuid) { bytes in
            sqlite3_bind_blob(handle, base + 1, bytes.baseAddress, 16, Self.transient)
        }
        code |= sqlite3_bind_int64(handle, base + 2, typeID)
        code |= sqlite3_bind_double(handle, base + 3, start)
        code |= sqlite3_bind_double(handle, base + 4, end)
        if let value { code |= sqlite3_bind_double(handle, base + 5, value) }
        if let unit { code |= sqlite3_bind_text(handle, base + 6, unit, -1, Self.transient) }
        code |= sqlite3_bind_int64(handle, base + 7, sourceID)
        if let deviceID { code |= sqlite3_bind_int64(handle, base + 8, deviceID) }
        if let metadata { code |= sqlite3_bind_text(handle, base + 9, metadata, -1, Self.transient) }
        if let workoutID { code |= sqlite3_bind_int64(handle, base + 10, workoutID) }
        return code
    }

    /// Runs a statement whose rows are bound (`code`: what binding returned), then resets it.
    static func step(_ handle: OpaquePointer?, bound code: Int32, _ database: Database) throws {
        guard code == SQLITE_OK else {
            throw HKError(
                .errorDatabaseInaccessible, "A sample could not be prepared for the store (SQLite code \(code)).")
        }
        let step = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard step == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(database.sqliteConnection))
            switch ResultCode(rawValue: step).primaryResultCode {
            case .SQLITE_FULL, .SQLITE_IOERR, .SQLITE_READONLY, .SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_CORRUPT:
                // The store's own trouble (a full disk, a damaged file): the store says it in its words.
                throw DatabaseError(resultCode: ResultCode(rawValue: step), message: message)
            default:
                throw HKError(.errorDatabaseInaccessible, "A sample could not be saved: \(message).")
            }
        }
    }

    /// SQLite copies the bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

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
        statement = try db.cachedStatement(
            sql: "INSERT INTO samples \(SampleRow.columns) VALUES \(SampleRow.placeholders)")
    }

    /// Inserts one row and returns its id.
    func callAsFunction(
        uuid: UUID, typeID: Int64, start: Double, end: Double, value: Double?, unit: String?,
        sourceID: Int64, deviceID: Int64?, metadata: String?, workoutID: Int64?
    ) throws -> Int64 {
        try insert(
            SampleRow(
                uuid: uuid, typeID: typeID, start: start, end: end, value: value, unit: unit, sourceID: sourceID,
                deviceID: deviceID, metadata: metadata, workoutID: workoutID))
    }

    /// Inserts one row and returns its id.
    func insert(_ row: SampleRow) throws -> Int64 {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        try SampleRow.step(handle, bound: row.bind(to: handle, at: 0), database)
        return database.lastInsertedRowID
    }
}

/// Many sample rows at a time: one `INSERT … VALUES (…), (…), …` statement of `rowsPerStatement` rows, bound with
/// SQLite's own calls. Saving a workout moves every sample it collected; one statement per row costs SQLite a
/// statement's setup (and an AUTOINCREMENT bookkeeping update) per row, which is most of the work. Rows are given
/// with `add` and written whenever a statement's worth is waiting; `finish()` writes the rest one row at a time.
/// Inside the caller's transaction. Ids are not returned.
struct SampleBulkInsert {
    static let rowsPerStatement = 64
    private let statement: Statement
    private let single: SampleInsert
    private let database: Database
    private var rows: [SampleRow] = []

    init(_ db: Database) throws {
        database = db
        single = try SampleInsert(db)
        let values = Array(repeating: SampleRow.placeholders, count: Self.rowsPerStatement).joined(separator: ", ")
        statement = try db.cachedStatement(sql: "INSERT INTO samples \(SampleRow.columns) VALUES \(values)")
        rows.reserveCapacity(Self.rowsPerStatement)
    }

    mutating func add(_ row: SampleRow) throws {
        rows.append(row)
        if rows.count == Self.rowsPerStatement { try writeFull() }
    }

    /// Writes the rows still waiting.
    mutating func finish() throws {
        for row in rows { _ = try single.insert(row) }
        rows.removeAll(keepingCapacity: true)
    }

    private mutating func writeFull() throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        var code = SQLITE_OK
        for (index, row) in rows.enumerated() { code |= row.bind(to: handle, at: Int32(index) * SampleRow.columnCount) }
        try SampleRow.step(handle, bound: code, database)
        rows.removeAll(keepingCapacity: true)
    }
}
