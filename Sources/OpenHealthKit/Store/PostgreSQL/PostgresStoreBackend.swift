import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The PostgreSQL backend of a health store (``StoreBackend``), through PostgresNIO: the same operations with the
/// same semantics as the SQLite backend, every query in SQL on the server. OpenHealthKit.
///
/// Every row carries its owner, the role that wrote it (`owner`, `current_user` by default), and row-level security
/// lets a role see and change only its own rows, so one database holds many people's stores. The schema is made by
/// the database owner's first open (``PostgresSchema``); a login role uses the store when it is a member of the
/// group role `openhealthkit_person`. A URL with `person` opens another person's store that they shared with the
/// user: every read sees that person's rows, and every write throws `errorAuthorizationDenied`.
///
/// Each method is one transaction; a few connections are kept for the next ones, while they answer. Writes of one
/// person are serialised by a transaction-scoped advisory lock on the owner, so anchors (one sequence) are committed
/// in order. The `…Blocking` methods (HealthKit's synchronous API, the journal's serial queue) run their operation in a
/// detached task on a thread of its own (``BridgeExecutor``) and wait on a semaphore, so they may be called from any
/// thread, a cooperative one included.
final class PostgresStoreBackend: Sendable {
    let url: PostgresStoreURL
    private let nextID = Atomic<Int>(1)
    /// The ids of the shared `types` table, which only grows.
    let typeIDs = Mutex<[String: Int64]>([:])
    /// Connections that committed their last transaction, kept for the next ones (at most ``idleLimit``).
    private let idle = Mutex<[PostgresConnection]>([])
    /// The connection holding the leases of this store's running recordings, and their journals' ids
    /// (`PostgresStoreBackend+Journal.swift`).
    let leases = Mutex<(connection: PostgresConnection?, builders: Set<Int64>)>((nil, []))
    static let logger = Logger(label: "OpenHealthKit.PostgreSQL")

    private init(url: PostgresStoreURL) {
        self.url = url
    }

    deinit {
        for connection in idle.withLock({ $0 }) + [leases.withLock({ $0.connection })].compactMap({ $0 }) {
            Task { try? await connection.close() }
        }
    }

    /// Opens the store at `url`: connects, then migrates the schema when this role owns the database, or checks
    /// that it is made and that this role may use it. Throws `errorDatabaseInaccessible` with one sentence.
    static func open(url text: String) async throws -> PostgresStoreBackend {
        let backend = PostgresStoreBackend(url: try PostgresStoreURL(text))
        try await backend.transaction(write: false) { connection in
            try await PostgresSchema.prepare(connection, url: backend.url)
            if let person = backend.url.person {
                let shared = try await connection.rows(
                    "SELECT EXISTS (SELECT 1 FROM store_shares WHERE owner = ? AND reader = current_user)",
                    [.text(person)]
                ).first?.at(0, as: Bool.self)
                guard shared == true else {
                    throw HKError(
                        .errorDatabaseInaccessible,
                        "\(person) has not shared their health store with \(backend.url.user) (\(person) shares it with: workout share \(backend.url.user))."
                    )
                }
            }
        }
        return backend
    }

    /// Whether this store is another person's, shared with the user to read (the URL's `person`).
    var isSharedView: Bool { url.person != nil }

    /// The error of a write to another person's store.
    var sharedViewIsReadOnly: HKError {
        HKError(
            .errorAuthorizationDenied,
            "\(url.person ?? "")'s health store is shared with \(url.user) to read; \(url.user) cannot write to it.")
    }

    /// ``open(url:)``, blocking: for `HKHealthStore(databasePath:)`, which is synchronous.
    static func openBlocking(url text: String) throws -> PostgresStoreBackend {
        try blocking { try await open(url: text) }
    }

    // MARK: Connections

    func connect() async throws -> PostgresConnection {
        let tls: PostgresConnection.Configuration.TLS
        switch url.sslMode {
        case .disable:
            tls = .disable
        case .prefer, .require:
            var configuration = TLSConfiguration.makeClientConfiguration()
            // libpq's prefer and require encrypt without verifying the server's certificate.
            configuration.certificateVerification = .none
            let context = try NIOSSLContext(configuration: configuration)
            tls = url.sslMode == .require ? .require(context) : .prefer(context)
        }
        var configuration = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
            tls: tls)
        configuration.options.connectTimeout = .seconds(10)
        // No JIT compilation: the store's statements are short, and the planner overestimates the statistics
        // queries (a row per interval it cannot count), so JIT compiled them for 2.1 s of a 2.2 s daily-average
        // collection over a year that takes 0.1 s without it (PostgresBenchmark, auto_explain's JIT timing).
        configuration.options.additionalStartupParameters = [("jit", "off")]
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let connection = try await PostgresConnection.connect(
            on: PostgresClient.defaultEventLoopGroup.any(), configuration: configuration, id: id,
            logger: Self.logger)
        if let person = url.person {
            // Every statement of this connection sees this person's rows only (the schema's `one_person` policy).
            do {
                try await connection.query(
                    "SELECT set_config('openhealthkit.person', \(person), false)", logger: Self.logger)
            } catch {
                try? await connection.close()
                throw error
            }
        }
        return connection
    }

    /// Runs `body` in one transaction (REPEATABLE READ for reads, so they see one snapshot; a write takes the owner's
    /// advisory lock first) on an idle connection of this store's or a new one, mapping every database failure to
    /// `errorDatabaseInaccessible`. A connection goes back to the idle ones only after a transaction that committed;
    /// after any failure it is closed.
    func transaction<T: Sendable>(
        write: Bool, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        if write && isSharedView { throw sharedViewIsReadOnly }
        let connection = try await begin(write: write)
        do {
            if write {
                try await connection.query("SELECT pg_advisory_xact_lock(hashtext(current_user))", logger: Self.logger)
            }
            let result = try await body(connection)
            try await connection.query("COMMIT", logger: Self.logger)
            release(connection)
            return result
        } catch {
            try? await connection.close()
            if let error = error as? HKError { throw error }
            throw describe(error)
        }
    }

    private static var beginReads: PostgresQuery { PostgresQuery(unsafeSQL: "BEGIN ISOLATION LEVEL REPEATABLE READ") }
    private static var beginWrites: PostgresQuery { PostgresQuery(unsafeSQL: "BEGIN ISOLATION LEVEL READ COMMITTED") }

    /// A connection with a transaction begun: an idle one when one answers its `BEGIN` within
    /// ``idleAnswerLimit``, else a new one. An idle connection whose server restarted or went away is closed and
    /// never waited on: PostgresNIO 1.33 can miss that the server closed an idle connection, and a query on it then
    /// waits forever, so the `BEGIN` on a reused connection has a deadline that closes it. The deadline's task runs on
    /// ``BridgeExecutor``, as the blocking bridge's do: a blocking caller may be holding every thread of the pool.
    private func begin(write: Bool) async throws -> PostgresConnection {
        let begin = write ? Self.beginWrites : Self.beginReads
        while let reused = idle.withLock({ $0.popLast() }) {
            guard !reused.isClosed else { continue }
            let watchdog = Task(executorPreference: BridgeExecutor.shared) {
                try await Task.sleep(for: Self.idleAnswerLimit)
                try? await reused.close()
            }
            defer { watchdog.cancel() }
            do {
                try await reused.query(begin, logger: Self.logger)
                return reused
            } catch {
                try? await reused.close()
            }
        }
        let connection: PostgresConnection
        do { connection = try await connect() } catch { throw describe(error) }
        do {
            try await connection.query(begin, logger: Self.logger)
            return connection
        } catch {
            try? await connection.close()
            throw describe(error)
        }
    }

    /// How long an idle connection may take to answer `BEGIN` before it is given up for a new one.
    static let idleAnswerLimit: Duration = .seconds(5)
    /// How many idle connections a store keeps.
    static let idleLimit = 4

    /// Keeps `connection` for the next transaction, or closes it when ``idleLimit`` are kept already.
    private func release(_ connection: PostgresConnection) {
        let kept = idle.withLock { connections in
            guard connections.count < Self.idleLimit else { return false }
            connections.append(connection)
            return true
        }
        if !kept { Task { try? await connection.close() } }
    }

    /// Runs `body` on a detached task and waits for it: the bridge of the `…Blocking` methods (see the type).
    ///
    /// The task prefers ``BridgeExecutor``, so neither it nor the connections' answers need a thread of Swift's
    /// cooperative pool, which the waiting caller may be holding: HealthKit's synchronous calls
    /// (`authorizationStatus(for:)`, `discardWorkout()`) are made from async code as often as not, and with every
    /// thread of the pool (as many as the machine has cores) waiting here for work queued behind them, the process
    /// would stop for good.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let semaphore = DispatchSemaphore(value: 0)
        let result = Mutex<Result<T, any Error>?>(nil)
        Task.detached(executorPreference: BridgeExecutor.shared) {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            semaphore.signal()
        }
        semaphore.wait()
        return try result.withLock { $0! }.get()
    }

    /// The executor of the blocking bridge's tasks: a serial Dispatch queue, whose thread is its own (Dispatch gives a
    /// serial queue a thread of its own when it has work), never one of the cooperative pool's. Only continuations run
    /// on it (a connection's answer, a watchdog's timer), so the bridge's calls share it without waiting on each other.
    final class BridgeExecutor: TaskExecutor {
        static let shared = BridgeExecutor()
        private let queue = DispatchQueue(label: "org.openhealthkit.postgres.bridge")

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    // MARK: Errors

    /// Why a connection failed, in a few words, from the networking library's description of it (which names its
    /// own types); nil when it is none of the usual reasons.
    static func reachability(_ description: String) -> String? {
        let text = description.lowercased()
        let reasons = [
            ("connection refused", "connection refused"), ("timed out", "timed out"), ("timeout", "timed out"),
            ("no route to host", "no route to host"), ("network is unreachable", "network is unreachable"),
            ("connection reset", "connection reset"), ("name or service not known", "unknown host name"),
            ("nodename nor servname", "unknown host name"),
        ]
        return reasons.first { text.contains($0.0) }?.1
    }

    /// A failure of the server or the connection as one sentence naming the store (never its password).
    func describe(_ error: any Error) -> HKError {
        let place = url.description
        guard let error = error as? PSQLError else {
            return HKError(.errorDatabaseInaccessible, "The PostgreSQL health store \(place) failed: \(error).")
        }
        if let state = error.serverInfo?[.sqlState] {
            let message = error.serverInfo?[.message] ?? state
            switch state {
            case "28P01":
                return HKError(
                    .errorDatabaseInaccessible,
                    "PostgreSQL refused the password of \(url.user) for the health store \(place).")
            case "28000":
                return HKError(
                    .errorDatabaseInaccessible,
                    "PostgreSQL does not let \(url.user) connect to the health store \(place) (\(message)).")
            case "3D000":
                return HKError(
                    .errorDatabaseInaccessible,
                    "The database \(url.database) of the health store \(place) does not exist.")
            case "42501":
                return HKError(
                    .errorDatabaseInaccessible,
                    "\(url.user) may not use the health store \(place): grant it the openhealthkit_person role (\(message))."
                )
            case "53100":
                return HKError(
                    .errorDatabaseInaccessible,
                    "The disk of the PostgreSQL server holding the health store \(place) is full.")
            case "57P01", "57P02", "57P03":
                return HKError(
                    .errorDatabaseInaccessible,
                    "The PostgreSQL server of the health store \(place) is shutting down or restarting; try again.")
            default:
                return HKError(.errorDatabaseInaccessible, "The PostgreSQL health store \(place) failed: \(message).")
            }
        }
        switch error.code {
        case .connectionError, .serverClosedConnection, .uncleanShutdown:
            let reason = error.underlying.flatMap { Self.reachability(String(describing: $0)) }.map { " (\($0))" } ?? ""
            return HKError(
                .errorDatabaseInaccessible,
                "No PostgreSQL server answers for the health store \(place)\(reason).")
        case .sslUnsupported:
            return HKError(
                .errorDatabaseInaccessible,
                "The PostgreSQL server of the health store \(place) does not offer TLS, which sslmode=require asks for."
            )
        default:
            return HKError(.errorDatabaseInaccessible, "The PostgreSQL health store \(place) failed: \(error.code).")
        }
    }
}
