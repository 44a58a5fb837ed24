import Foundation
import GRDB
import HealthKitModel
import Synchronization
import WorkoutEngine

#if canImport(Glibc)
import Glibc
#endif

/// The SQLite backend of a health store (``StoreBackend``): every statement the store runs lives in this folder, in
/// this type and its extensions by subject (`+Read`, `+Write`, `+Statistics`, `+Series`, `+Condense`, `+Sources`,
/// `+Sensors`, `+Authorization`, `+Zones`, `+Journal`), and its named operations in `+Backend`. The only code that
/// imports GRDB.
///
/// It takes any GRDB `DatabaseWriter` (a `DatabasePool` in WAL mode for files, a `DatabaseQueue` in memory),
/// migrates it on open, and keeps small caches of the ids of types, sources and devices.
final class StoreDatabase: Sendable {
    let writer: any DatabaseWriter
    let path: String?
    private let caches = Mutex(Caches())

    /// The ids of types, sources and devices, and the rows behind them.
    struct IDs {
        var typeIDs: [String: Int64] = [:]
        var typesByID: [Int64: HKSampleType] = [:]
        var sourceIDs: [String: Int64] = [:]
        var sourcesByID: [Int64: HKSourceRevision] = [:]
        var deviceIDs: [String: Int64] = [:]
        var devicesByID: [Int64: HKDevice] = [:]
    }

    /// What every connection may use (read from committed rows), and what the open write transaction learnt.
    ///
    /// An id learnt inside a write transaction waits in `staged` until the transaction commits: SQLite gives the
    /// rowid of a rolled-back insert to the next insert into `types`, `sources` or `devices` (none of them is
    /// AUTOINCREMENT), so an id remembered from a transaction that rolled back would name another row, and the
    /// samples of two types, sources or devices would mix. Only the writer's connection sees `staged` (one write
    /// transaction at a time); readers see committed rows only, so they remember at once.
    struct Caches {
        var committed = IDs()
        var staged: IDs?
    }
    private init(writer: any DatabaseWriter, path: String?) {
        self.writer = writer
        self.path = path
    }

    /// Opens (creating if needed) the store file at `path`. Throws `errorDatabaseInaccessible` with a clear sentence.
    static func open(path: String) throws -> StoreDatabase {
        try StoreLocation.prepare(path: path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "OpenHealthKit"
        // One process opens and migrates a store at a time. GRDB reads which migrations are applied before it takes
        // the write lock for each one, so two processes opening a fresh store together both applied v1 and the
        // second failed ("table … already exists"); and a process that opens while another migrates waits on
        // SQLite's busy timeout. An exclusive flock on the store's folder serialises the whole opening (of the
        // stores in that folder; it lasts milliseconds). Never on the store file itself: SQLite's locks are POSIX
        // record locks, which belong to the process and the file, and closing any descriptor of the file drops them
        // all, the SHARED lock a connection in WAL mode holds included: another process could then switch the open
        // store out of WAL mode, or, closing its last connection, take this one for gone and remove the WAL under it
        // (a loaded test run's "disk I/O error"). A folder that cannot be opened for the lock is opened without it.
        let folder = (path as NSString).deletingLastPathComponent
        let lock = Glibc.open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if lock >= 0 { _ = flock(lock, LOCK_EX) }
        defer {
            if lock >= 0 {
                _ = flock(lock, LOCK_UN)
                Glibc.close(lock)
            }
        }
        do {
            try refuseForeignOrNewer(path: path)
            let pool = try DatabasePool(path: path, configuration: configuration)
            let database = StoreDatabase(writer: pool, path: path)
            try database.migrate()
            return database
        } catch let error as HKError {
            throw error
        } catch let error as DatabaseError {
            throw describe(error, path: path)
        } catch {
            throw HKError(.errorDatabaseInaccessible, "The health store \(path) cannot be opened: \(error).")
        }
    }

    /// ``open(path:)`` on a thread of its own while the calling task is suspended: opening waits on the folder's
    /// lock and migrates, which is no work for one of Swift's cooperative threads.
    static func open(path: String) async throws -> StoreDatabase {
        try await withCheckedThrowingContinuation { continuation in
            opening.async { continuation.resume(with: Result { try open(path: path) }) }
        }
    }

    /// Where stores are opened from `async` code.
    private static let opening = DispatchQueue(label: "OpenHealthKit.StoreDatabase.open", attributes: .concurrent)

    /// Throws, before anything opens the file for writing, when an existing file is another program's SQLite
    /// database or a store written by a newer schema than this version knows: opening a pool would already switch
    /// the file to WAL mode, and migrating would add this store's tables to another program's file or misread a
    /// newer store. The file is looked at through a read-only connection, so it is left exactly as it was. A file
    /// that cannot be probed this way (empty, or in WAL mode without its shared-memory file) is checked again by
    /// ``migrate()`` inside the first write transaction.
    private static func refuseForeignOrNewer(path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0, info.st_size > 0 else { return }
        var readOnly = Configuration()
        readOnly.readonly = true
        let (foreign, superseded): ([String]?, Bool)
        do {
            let probe = try DatabaseQueue(path: path, configuration: readOnly)
            (foreign, superseded) = try probe.read { db in
                (
                    try StoreSchema.foreignTables(db),
                    try db.tableExists("grdb_migrations") && StoreSchema.migrator.hasBeenSuperseded(db)
                )
            }
            try probe.close()
        } catch {
            return
        }
        if let foreign { throw Self.foreign(path, tables: foreign, untouched: true) }
        if superseded {
            throw HKError(
                .errorDatabaseInaccessible,
                "The health store \(path) was written by a newer version of OpenHealthKit; it was left untouched.")
        }
    }

    /// Opens a fresh store in memory (tests, previews).
    static func inMemory() -> StoreDatabase {
        var configuration = Configuration()
        configuration.label = "OpenHealthKit (memory)"
        // An in-memory queue and a fixed, well-formed schema: neither can fail.
        let queue = try! DatabaseQueue(configuration: configuration)
        let database = StoreDatabase(writer: queue, path: nil)
        try! database.migrate()
        return database
    }

    private func migrate() throws {
        let migrator = StoreSchema.migrator
        try writer.write { db in
            if let tables = try StoreSchema.foreignTables(db) {
                throw Self.foreign(path ?? "in memory", tables: tables, untouched: false)
            }
            if try migrator.hasBeenSuperseded(db) {
                throw HKError(
                    .errorDatabaseInaccessible,
                    "The health store \(path ?? "in memory") was written by a newer version of OpenHealthKit.")
            }
        }
        try migrator.migrate(writer)
    }

    /// Another program's database given as a store, named by its tables (three at most).
    private static func foreign(_ place: String, tables: [String], untouched: Bool) -> HKError {
        let named =
            tables.count > 3
            ? tables.prefix(3).joined(separator: ", ") + " and \(tables.count - 3) more"
            : tables.joined(separator: ", ")
        return HKError(
            .errorDatabaseInaccessible,
            "The file \(place) is another program's SQLite database (tables \(named)), not an OpenHealthKit store"
                + (untouched ? "; it was left untouched." : "."))
    }

    static func describe(_ error: DatabaseError, path: String?) -> HKError {
        let place = path ?? "in memory"
        switch error.resultCode {
        case .SQLITE_NOTADB:
            return HKError(
                .errorDatabaseInaccessible, "The file \(place) is not an OpenHealthKit store (not an SQLite database).")
        case .SQLITE_CORRUPT:
            return HKError(
                .errorDatabaseInaccessible, "The health store \(place) is damaged (\(error.message ?? "corrupt")).")
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY, .SQLITE_AUTH:
            return HKError(
                .errorDatabaseInaccessible,
                "The health store \(place) cannot be opened for writing (\(error.message ?? "\(error.resultCode)")).")
        case .SQLITE_FULL:
            return HKError(.errorDatabaseInaccessible, "The disk holding the health store \(place) is full.")
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return HKError(.errorDatabaseInaccessible, "The health store \(place) is locked by another process.")
        default:
            return HKError(
                .errorDatabaseInaccessible,
                "The health store \(place) failed: \(error.message ?? "\(error.resultCode)").")
        }
    }

    /// Runs a write transaction, mapping SQLite errors to `HKError`.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try writer.write(body) } catch let error as DatabaseError { throw Self.describe(error, path: path) }
    }

    /// Runs a read, mapping SQLite errors to `HKError`.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try writer.read(body) } catch let error as DatabaseError { throw Self.describe(error, path: path) }
    }

    /// Runs a write transaction on GRDB's writer queue while the calling task is suspended, mapping SQLite errors to
    /// `HKError`. A write can wait up to the busy timeout for another process's lock; it waits on GRDB's thread,
    /// never on one of Swift's cooperative threads (two on a 2-core machine). Like HealthKit's calls, it is not
    /// cancelled with the calling task: once asked for, a write happens or fails on its own terms.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let path = path
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            writer.asyncWrite(
                { db in try body(db) },
                completion: { _, result in
                    continuation.resume(with: result.mapError { Self.mapped($0, path: path) })
                })
        }
    }

    /// Runs a read on one of GRDB's reader queues while the calling task is suspended, mapping SQLite errors to
    /// `HKError`.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let path = path
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            writer.asyncRead { result in
                continuation.resume(
                    with: Result { try body(try result.get()) }.mapError { Self.mapped($0, path: path) })
            }
        }
    }

    /// Caps the store file at its present size plus `extraPages` pages, as a disk with no more room would (SQLite's
    /// `PRAGMA max_page_count` on the writer's connection, which every write goes through); nil lifts the cap.
    /// The seam of the tests of a full disk.
    func limitGrowth(toExtraPages extraPages: Int?) throws {
        try writer.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(extraPages.map { pages + $0 } ?? 1_073_741_823)")
        }
    }

    /// An error as the store reports it: SQLite's as `HKError`, the others as they are.
    private static func mapped(_ error: any Error, path: String?) -> any Error {
        (error as? DatabaseError).map { describe($0, path: path) } ?? error
    }

    // MARK: Types, sources, devices

    /// Whether `db` is the writer's connection inside a write transaction: what it reads may not be committed.
    /// (A queue's reads run on the writer's connection with `query_only` set, in a transaction of their own.)
    private func isStaging(_ db: Database) -> Bool {
        guard !db.configuration.readonly, db.isInsideTransaction else { return false }
        return (try? Bool.fetchOne(db, sql: "PRAGMA query_only")) != true
    }

    /// A remembered value: the open write transaction's first, then the committed ones. Readers of a pool never
    /// look at `staged`; a queue's reader cannot run while a write transaction is open.
    private func cached<V>(_ db: Database, _ key: (IDs) -> V?) -> V? {
        let writer = !db.configuration.readonly
        return caches.withLock { caches in
            if writer, let staged = caches.staged, let value = key(staged) { return value }
            return key(caches.committed)
        }
    }

    /// Remembers a value: at once when read from committed rows, at commit when learnt inside a write transaction
    /// (dropped on rollback).
    private func remember(_ db: Database, _ update: (inout IDs) -> Void) {
        guard isStaging(db) else { return caches.withLock { update(&$0.committed) } }
        let first = caches.withLock { caches in
            var staged = caches.staged ?? IDs()
            update(&staged)
            defer { caches.staged = staged }
            return caches.staged == nil
        }
        guard first else { return }
        db.afterNextTransaction(
            onCommit: { [self] _ in
                caches.withLock { caches in
                    guard let staged = caches.staged else { return }
                    caches.committed.typeIDs.merge(staged.typeIDs) { $1 }
                    caches.committed.typesByID.merge(staged.typesByID) { $1 }
                    caches.committed.sourceIDs.merge(staged.sourceIDs) { $1 }
                    caches.committed.sourcesByID.merge(staged.sourcesByID) { $1 }
                    caches.committed.deviceIDs.merge(staged.deviceIDs) { $1 }
                    caches.committed.devicesByID.merge(staged.devicesByID) { $1 }
                    caches.staged = nil
                }
            },
            onRollback: { [self] _ in
                caches.withLock { $0.staged = nil }
            })
    }

    /// The id of a type, inserted on first use.
    func typeID(_ identifier: String, _ db: Database) throws -> Int64 {
        if let id = cached(db, { $0.typeIDs[identifier] }) { return id }
        try db.execute(sql: "INSERT OR IGNORE INTO types (identifier) VALUES (?)", arguments: [identifier])
        guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM types WHERE identifier = ?", arguments: [identifier])
        else {
            throw HKError(.errorDatabaseInaccessible, "The type table is damaged.")
        }
        remember(db) { $0.typeIDs[identifier] = id }
        return id
    }

    /// The id of a type if it has ever been stored.
    func existingTypeID(_ identifier: String, _ db: Database) throws -> Int64? {
        if let id = cached(db, { $0.typeIDs[identifier] }) { return id }
        let id = try Int64.fetchOne(db, sql: "SELECT id FROM types WHERE identifier = ?", arguments: [identifier])
        if let id { remember(db) { $0.typeIDs[identifier] = id } }
        return id
    }

    /// The sample type stored under an id.
    func sampleType(id: Int64, _ db: Database) throws -> HKSampleType {
        if let type = cached(db, { $0.typesByID[id] }) { return type }
        guard
            let identifier = try String.fetchOne(db, sql: "SELECT identifier FROM types WHERE id = ?", arguments: [id])
        else {
            throw HKError(
                .errorDatabaseInaccessible, "The health store is damaged: a sample refers to unknown type \(id).")
        }
        let type = try HKSampleType.stored(identifier: identifier)
        remember(db) { $0.typesByID[id] = type }
        return type
    }

    private static func key(_ revision: HKSourceRevision) -> String {
        let os = revision.operatingSystemVersion
        return [
            revision.source.name, revision.source.bundleIdentifier, revision.version ?? "\u{0}",
            revision.productType ?? "\u{0}", "\(os.majorVersion).\(os.minorVersion).\(os.patchVersion)",
        ]
        .joined(separator: "\u{1}")
    }

    func sourceID(_ revision: HKSourceRevision, _ db: Database) throws -> Int64 {
        let key = Self.key(revision)
        if let id = cached(db, { $0.sourceIDs[key] }) { return id }
        let os = revision.operatingSystemVersion
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO sources (key, name, bundle_identifier, version, product_type, os_version)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                key, revision.source.name, revision.source.bundleIdentifier, revision.version,
                revision.productType, "\(os.majorVersion).\(os.minorVersion).\(os.patchVersion)",
            ])
        guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM sources WHERE key = ?", arguments: [key]) else {
            throw HKError(.errorDatabaseInaccessible, "The source table is damaged.")
        }
        remember(db) { $0.sourceIDs[key] = id }
        return id
    }

    func sourceRevision(id: Int64, _ db: Database) throws -> HKSourceRevision {
        if let revision = cached(db, { $0.sourcesByID[id] }) { return revision }
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT name, bundle_identifier, version, product_type, os_version FROM sources WHERE id = ?",
                arguments: [id])
        else {
            throw HKError(.errorDatabaseInaccessible, "The health store is damaged: unknown source \(id).")
        }
        let parts = (row[4] as String).split(separator: ".").map { Int($0) ?? 0 } + [0, 0, 0]
        let revision = HKSourceRevision(
            source: HKSource(name: row[0], bundleIdentifier: row[1]), version: row[2],
            productType: row[3],
            operatingSystemVersion: OperatingSystemVersion(
                majorVersion: parts[0], minorVersion: parts[1],
                patchVersion: parts[2]))
        remember(db) { $0.sourcesByID[id] = revision }
        return revision
    }

    /// The ids of the sources whose bundle identifier is `client`: the objects a client may always read and delete.
    func ownSourceIDs(client: String, _ db: Database) throws -> [Int64] {
        try Int64.fetchAll(db, sql: "SELECT id FROM sources WHERE bundle_identifier = ?", arguments: [client])
    }

    func deviceID(_ device: HKDevice, _ db: Database) throws -> Int64 {
        let key = device.fields.map { $0 ?? "\u{0}" }.joined(separator: "\u{1}")
        if let id = cached(db, { $0.deviceIDs[key] }) { return id }
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO devices (key, name, manufacturer, model, hardware_version, firmware_version,
                                               software_version, local_identifier, udi_device_identifier)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: StatementArguments([key] + device.fields))
        guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM devices WHERE key = ?", arguments: [key]) else {
            throw HKError(.errorDatabaseInaccessible, "The device table is damaged.")
        }
        remember(db) { $0.deviceIDs[key] = id }
        return id
    }

    func device(id: Int64, _ db: Database) throws -> HKDevice {
        if let device = cached(db, { $0.devicesByID[id] }) { return device }
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT name, manufacturer, model, hardware_version, firmware_version, software_version, local_identifier,
                           udi_device_identifier FROM devices WHERE id = ?
                    """, arguments: [id])
        else {
            throw HKError(.errorDatabaseInaccessible, "The health store is damaged: unknown device \(id).")
        }
        let device = HKDevice(
            name: row[0], manufacturer: row[1], model: row[2], hardwareVersion: row[3],
            firmwareVersion: row[4], softwareVersion: row[5], localIdentifier: row[6],
            udiDeviceIdentifier: row[7])
        remember(db) { $0.devicesByID[id] = device }
        return device
    }
}
