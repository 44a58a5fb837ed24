import Foundation
import Glibc
import Synchronization
import Testing

/// A throwaway PostgreSQL cluster for tests: `initdb` and `pg_ctl` in a temporary folder, listening on loopback only
/// on a free port, with a superuser of its own behind a random password. Run as the `postgres` OS user when the tests
/// run as root (initdb refuses root). One cluster per test process (``shared``); each test makes its own database
/// (``createDatabase(owner:)``). The cluster is stopped when the process exits, whether its tests passed or not; a
/// cluster left behind by a process that was killed is stopped by the next one that starts.
public final class PostgresCluster: Sendable {
    /// Where Debian's PostgreSQL 15 server binaries are.
    public static let binaries = "/usr/lib/postgresql/15/bin"

    /// Why PostgreSQL tests are skipped, or nil when the server binaries are installed.
    public static var unavailableReason: String? {
        FileManager.default.isExecutableFile(atPath: binaries + "/initdb")
            ? nil
            : "PostgreSQL's server binaries are not installed (\(binaries)/initdb): install Debian's postgresql to run the PostgreSQL store tests."
    }

    /// The cluster of this test process, started on first use; the reason when it could not start.
    public static func shared() async throws -> PostgresCluster { try await offPool { try sharedCluster.get() } }

    /// Runs blocking work (initdb, pg_ctl, psql) on a thread of its own while the calling task is suspended: a
    /// test waiting for a child process must not hold one of Swift's cooperative threads (two on a 2-core machine),
    /// or every other test of the process waits with it.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        // A serial queue of its own for each call: Dispatch gives it an overcommit thread. (A concurrent queue would
        // share the global pool, one thread per core, with every other user of Dispatch in the process.)
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "PostgresCluster").async { continuation.resume(with: Result { try body() }) }
        }
    }

    public let directory: String
    public let port: Int
    /// The cluster's superuser and its password.
    public let superuser = "ohk_admin"
    public let superuserPassword: String

    /// Whether the server syncs to disk as a production server does (benchmarks); tests run without it.
    public let durable: Bool

    private init(directory: String, port: Int, password: String, durable: Bool) {
        self.directory = directory
        self.port = port
        self.superuserPassword = password
        self.durable = durable
    }

    /// A `postgres://` URL of a database of this cluster.
    public func url(user: String, password: String?, database: String) -> String {
        let secret = password.map { ":" + $0 } ?? ""
        return "postgres://\(user)\(secret)@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    /// Runs SQL through `psql` as `user` (the superuser by default) and returns what it printed (unaligned, tuples
    /// only). Throws ``PostgresClusterError`` with psql's message when it fails.
    @discardableResult
    public func psql(
        _ sql: String, database: String = "postgres", user: String? = nil, password: String? = nil
    ) async throws -> String {
        try await Self.offPool { try self.psqlBlocking(sql, database: database, user: user, password: password) }
    }

    private func psqlBlocking(_ sql: String, database: String, user: String?, password: String?) throws -> String {
        let result = try Self.run(
            Self.binaries + "/psql",
            [
                "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
                "host=127.0.0.1 port=\(port) user=\(user ?? superuser) dbname=\(database)", "-c", sql,
            ],
            environment: ["PGPASSWORD": password ?? superuserPassword, "PGCONNECT_TIMEOUT": "10"])
        guard result.status == 0 else {
            throw PostgresClusterError(message: "psql failed (\(result.status)): \(result.output)")
        }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Creates a database `t_<random>` owned by `owner` (the superuser by default) and returns its name.
    public func createDatabase(owner: String? = nil) async throws -> String {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try await psql("CREATE DATABASE \(name)" + (owner.map { " OWNER \($0)" } ?? ""))
        return String(name)
    }

    /// Creates a login role with a password (a no-op when it exists), member of `groups`.
    public func createRole(_ name: String, password: String, options: String = "", groups: [String] = []) async throws {
        try await psql(
            """
            DO $$ BEGIN
              IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '\(name)') THEN
                CREATE ROLE \(name) LOGIN PASSWORD '\(password)' \(options);
              END IF;
            EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
            END $$;
            """)
        // Tests running side by side may grant the same membership at once: the second finds it made.
        for group in groups {
            try await psql(
                """
                DO $$ BEGIN
                  GRANT \(group) TO \(name);
                EXCEPTION WHEN unique_violation THEN NULL;
                END $$;
                """)
        }
    }

    /// Stops the server at once (`pg_ctl stop -m immediate`): the fault of a server that went away.
    public func stop() async throws {
        _ = try await Self.offPool {
            try Self.pgctl(["stop", "-D", self.directory + "/data", "-m", "immediate", "-w", "-t", "30"])
        }
    }

    /// Starts the stopped server again on the same port.
    public func start() async throws {
        try await Self.offPool { try self.startBlocking() }
    }

    private func startBlocking() throws {
        try Self.pgctl([
            "start", "-D", directory + "/data", "-l", directory + "/server.log", "-w", "-t", "60", "-o",
            "-c listen_addresses=127.0.0.1 -c port=\(port) -c unix_socket_directories='' -c max_connections=300"
                + (durable ? "" : " -c fsync=off -c full_page_writes=off"),
        ])
    }

    // MARK: Starting and stopping the shared cluster

    private static let sharedCluster: Result<PostgresCluster, PostgresClusterError> = Result {
        try launchStopped()
    }.mapError { ($0 as? PostgresClusterError) ?? PostgresClusterError(message: "\($0)") }

    /// Starts a cluster of its own, for a test that stops and restarts its server (the shared one serves every
    /// other test). It too is stopped when the process exits.
    /// With `durable`, the server syncs its writes to disk (fsync, full pages) as a production server does.
    public static func launchPrivate(durable: Bool = false) async throws -> PostgresCluster {
        try await offPool { try launchStopped(durable: durable) }
    }

    private static func launchStopped(durable: Bool = false) throws -> PostgresCluster {
        if let reason = unavailableReason { throw PostgresClusterError(message: reason) }
        stopAbandonedClusters()
        let cluster = try launch(durable: durable)
        running.withLock { running in
            if running.isEmpty { atexit { PostgresCluster.stopRunning() } }
            running.append(cluster.directory)
        }
        return cluster
    }

    private static let running = Mutex<[String]>([])

    /// The folders of this harness's clusters: `ohk-pg-<pid>-<random>` in the temporary folder.
    private static let prefix = "ohk-pg-"

    private static func launch(durable: Bool) throws -> PostgresCluster {
        let directory = "/tmp/\(prefix)\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let password = UUID().uuidString.replacingOccurrences(of: "-", with: "")
        try password.write(toFile: directory + "/pwfile", atomically: true, encoding: .utf8)
        if getuid() == 0 {
            guard let user = getpwnam("postgres") else {
                throw PostgresClusterError(
                    message: "The tests run as root and there is no postgres user to run the server as.")
            }
            _ = chown(directory, user.pointee.pw_uid, user.pointee.pw_gid)
            _ = chown(directory + "/pwfile", user.pointee.pw_uid, user.pointee.pw_gid)
        }
        try pgctl(
            [
                "initdb", "-D", directory + "/data", "-o",
                "-U ohk_admin --auth=scram-sha-256 --pwfile=\(directory)/pwfile --no-sync -E UTF8 --locale=C.UTF-8",
            ], tail: directory + "/server.log")
        var lastError: (any Error)?
        for _ in 0 ..< 3 {
            let cluster = PostgresCluster(
                directory: directory, port: try freePort(), password: password, durable: durable)
            do {
                try cluster.startBlocking()
                return cluster
            } catch {
                lastError = error
            }
        }
        throw lastError ?? PostgresClusterError(message: "The test cluster did not start.")
    }

    private static func stopRunning() {
        for directory in running.withLock({ $0 }) {
            _ = try? pgctl(["stop", "-D", directory + "/data", "-m", "immediate", "-w", "-t", "30"])
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Stops and removes the clusters of test processes that are gone (killed before their exit handler ran).
    private static func stopAbandonedClusters() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []
        for name in names where name.hasPrefix(prefix) {
            let pid = name.dropFirst(prefix.count).prefix { $0 != "-" }
            guard let pid = Int32(pid), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            let directory = "/tmp/" + name
            if FileManager.default.fileExists(atPath: directory + "/data/postmaster.pid") {
                _ = try? pgctl(["stop", "-D", directory + "/data", "-m", "immediate", "-w", "-t", "30"])
            }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Runs `pg_ctl` (as the postgres user when root); throws with what it printed (and the log's end) on failure.
    @discardableResult
    private static func pgctl(_ arguments: [String], tail log: String? = nil) throws -> String {
        var command = [binaries + "/pg_ctl"] + arguments
        if getuid() == 0 { command = ["/usr/sbin/runuser", "-u", "postgres", "--"] + command }
        // The server pg_ctl leaves running must not inherit the descriptors Foundation watches to see its child
        // end (nor any other of this process's): every descriptor above 2 is closed before pg_ctl runs.
        command =
            [
                "/bin/bash", "-c",
                #"for f in /proc/$$/fd/*; do n=${f##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-"; fi; done; exec "$@""#,
                "pg_ctl",
            ] + command
        let result = try run(command[0], Array(command.dropFirst()), environment: [:])
        guard result.status == 0 else {
            let logTail = (try? String(contentsOfFile: log ?? "", encoding: .utf8)).map { String($0.suffix(2000)) }
            throw PostgresClusterError(
                message: "pg_ctl \(arguments.first ?? "") failed (\(result.status)): \(result.output) \(logTail ?? "")")
        }
        return result.output
    }

    /// Runs a program to its end (at most 90 s, then it is killed) and returns its status and output. The output
    /// goes through a file, not a pipe: the server `pg_ctl start` leaves running must not hold our pipe open.
    private static func run(
        _ program: String, _ arguments: [String], environment: [String: String]
    ) throws
        -> (status: Int32, output: String)
    {
        let outputPath = "/tmp/ohk-pg-output-\(getpid())-\(UUID().uuidString.prefix(8))"
        guard FileManager.default.createFile(atPath: outputPath, contents: nil),
            let output = FileHandle(forWritingAtPath: outputPath)
        else { throw PostgresClusterError(message: "No file for the output of \(program).") }
        defer {
            try? output.close()
            try? FileManager.default.removeItem(atPath: outputPath)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.currentDirectoryURL = URL(fileURLWithPath: "/tmp")
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let exited = process.exits(within: 90)
        if !exited {
            process.killGroup()
            _ = process.exits(within: 10)
        }
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard exited else {
            throw PostgresClusterError(message: "\(program) did not finish within 90 s and was killed: \(text)")
        }
        return (process.terminationStatus, text)
    }

    /// A loopback TCP port nobody listens on now.
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw PostgresClusterError(message: "No socket for a free port.") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw PostgresClusterError(message: "No free loopback port.") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Why the test cluster could not do what it was asked.
public struct PostgresClusterError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { message }
}

/// Starts the test cluster (``PostgresCluster/shared()``) before a suite's tests, outside their time limits: `initdb`
/// and the first start take seconds, and up to a minute on a loaded two-core machine, which the first test to ask
/// would otherwise spend of its own limit. A cluster that fails to start is left for the tests to report.
public struct PostgresClusterTrait: SuiteTrait, TestScoping {
    public var isRecursive: Bool { false }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        if testCase == nil, PostgresCluster.unavailableReason == nil { _ = try? await PostgresCluster.shared() }
        try await function()
    }
}

extension Trait where Self == PostgresClusterTrait {
    /// Starts the shared PostgreSQL test cluster before the suite's tests run.
    public static var postgresCluster: Self { Self() }
}
