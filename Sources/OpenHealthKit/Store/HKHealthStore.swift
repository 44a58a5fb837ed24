import Foundation
import HealthKitModel
import Synchronization
import WorkoutEngine

/// The health store: one SQLite file holding workouts, samples and the person's authorization decisions (behind
/// the `StoreBackend` seam).
///
/// `HKHealthStore()` opens the default store: the path in `OPENHEALTHKIT_STORE` if set, else
/// `$XDG_DATA_HOME/openhealthkit/health.sqlite`, else `~/.local/share/openhealthkit/health.sqlite`. The file is
/// created with mode 0600 in a folder created 0700, and written in WAL mode. As in HealthKit the initializer cannot
/// fail: if the file cannot be opened, every call reports `errorDatabaseInaccessible` with the reason.
/// ``init(databasePath:clientIdentifier:)`` opens a given file and throws instead; `inMemory(clientIdentifier:)`
/// makes a private store for tests.
///
/// Every object is saved by a *client* (HealthKit's app): by default the executable's name. Authorization
/// decisions are kept per client in the store. See ``requestAuthorization(toShare:read:)``.
///
/// HealthKit: HKHealthStore.
public final class HKHealthStore: NSObject, @unchecked Sendable {
    private let opened: Result<any StoreBackend, HKError>
    /// The client this store object acts for: its objects' source, and the key of its authorization decisions.
    public let clientIdentifier: String
    /// What `requestAuthorization` answers for types not decided yet. OpenHealthKit.
    public var authorizationPolicy: HKAuthorizationPolicy {
        get { state.withLock { $0.policy } }
        set { state.withLock { $0.policy = newValue } }
    }

    /// The clocks live recordings run on (see ``LiveClocks``). Builders read them when they are made. OpenHealthKit.
    public var clocks: LiveClocks {
        get { state.withLock { $0.clocks } }
        set { state.withLock { $0.clocks = newValue } }
    }

    /// Where timestamps come from: sessions, builders and data sources read the time here, never from `Date()`.
    /// Tests and replays inject their own (`clocks.wall`). OpenHealthKit.
    public var wallClock: @Sendable () -> Date {
        get { state.withLock { $0.clocks.wall } }
        set { state.withLock { $0.clocks.wall = newValue } }
    }

    /// The clock replays pace themselves with (`clocks.pacing`). OpenHealthKit.
    public var clock: any Clock<Duration> {
        get { state.withLock { $0.clocks.pacing } }
        set { state.withLock { $0.clocks.pacing = newValue } }
    }

    /// How live data sources reach the sensors paired with this store: ``SensorConnector/standard`` by default
    /// (BlueZ, with the package's `BlueZ` trait), with no call from the app. Tests and other transports pass their own to the initializer. OpenHealthKit.
    public var sensorConnector: SensorConnector {
        get { state.withLock { $0.sensorConnector } }
        set { state.withLock { $0.sensorConnector = newValue } }
    }

    struct State {
        var clocks = LiveClocks.system
        var sensorConnector = SensorConnector.standard
        var policy: HKAuthorizationPolicy = .grantAll
        weak var activeSession: HKWorkoutSession?
        var runningQueries: [ObjectIdentifier: HKQuery] = [:]
        /// Watches the store file for other connections' commits while a long-running query runs (StoreChangeWatcher).
        var watcher: Task<Void, Never>?
        /// The types background delivery was enabled for (HKHealthStore+BackgroundDelivery).
        var backgroundDelivery: [String: HKUpdateFrequency] = [:]
        /// Mirroring's companion side (HKHealthStore+Mirroring).
        var mirroringStartHandler: (@Sendable (HKWorkoutSession) -> Void)?
        var mirrorCompanion: MirrorCompanion?
    }
    let state = Mutex(State())

    /// The serial queue completion handlers and query results are delivered on.
    let callbackQueue = DispatchQueue(label: "OpenHealthKit.HKHealthStore.callbacks")

    /// Opens the default store (see the type's discussion).
    public override convenience init() {
        self.init(openingLazily: StoreLocation.defaultPath(), clientIdentifier: HKHealthStore.defaultClientIdentifier)
    }

    /// Opens a store that reports a failure to open on each call instead of throwing here.
    convenience init(openingLazily path: String, clientIdentifier: String) {
        self.init(
            opened: Result { try HKHealthStore.openBackend(path) }.mapError { error in
                (error as? HKError) ?? HKError(.errorDatabaseInaccessible, "\(error)")
            }, clientIdentifier: clientIdentifier)
    }

    /// Opens the store at a path, creating it if needed. Throws `errorDatabaseInaccessible` with the reason
    /// (a directory, an unreadable file, a file that is not a store). It blocks the calling thread while it waits
    /// for the store's lock and migrates; from `async` code use ``open(databasePath:clientIdentifier:clocks:sensorConnector:)``.
    /// OpenHealthKit.
    public convenience init(databasePath: String, clientIdentifier: String? = nil) throws {
        let database = try HKHealthStore.openBackend(databasePath)
        self.init(
            opened: .success(database), clientIdentifier: clientIdentifier ?? HKHealthStore.defaultClientIdentifier)
    }

    /// Opens the store at a path, with the clocks its live recordings run on and the connector that reaches its
    /// paired sensors. OpenHealthKit.
    public convenience init(
        databasePath: String, clientIdentifier: String? = nil, clocks: LiveClocks,
        sensorConnector: SensorConnector = .standard
    ) throws {
        try self.init(databasePath: databasePath, clientIdentifier: clientIdentifier)
        state.withLock {
            $0.clocks = clocks
            $0.sensorConnector = sensorConnector
        }
    }

    /// Opens the store at a path, creating it if needed, with the calling task suspended while the store is locked
    /// and migrated (no cooperative thread blocks). Throws `errorDatabaseInaccessible` with the reason.
    /// OpenHealthKit.
    public static func open(
        databasePath: String, clientIdentifier: String? = nil, clocks: LiveClocks = .system,
        sensorConnector: SensorConnector = .standard
    ) async throws -> HKHealthStore {
        let backend = try await HKHealthStore.openBackend(databasePath)
        let store = HKHealthStore(
            opened: .success(backend), clientIdentifier: clientIdentifier ?? HKHealthStore.defaultClientIdentifier)
        store.state.withLock {
            $0.clocks = clocks
            $0.sensorConnector = sensorConnector
        }
        return store
    }

    /// A private store in memory. OpenHealthKit.
    public static func inMemory(
        clientIdentifier: String? = nil, clocks: LiveClocks = .system,
        sensorConnector: SensorConnector = .standard
    ) -> HKHealthStore {
        let store = HKHealthStore(
            opened: .success(StoreDatabase.inMemory()),
            clientIdentifier: clientIdentifier ?? HKHealthStore.defaultClientIdentifier)
        store.state.withLock {
            $0.clocks = clocks
            $0.sensorConnector = sensorConnector
        }
        return store
    }

    /// Another client's view of the same store (shares the connection). OpenHealthKit.
    public func asClient(_ clientIdentifier: String) -> HKHealthStore {
        HKHealthStore(opened: opened, clientIdentifier: clientIdentifier)
    }

    /// The backend a store name opens: PostgreSQL for a `postgres://` URL, else the SQLite file at that path.
    private static func openBackend(_ name: String) throws -> any StoreBackend {
        PostgresStoreURL.isURL(name)
            ? try PostgresStoreBackend.openBlocking(url: name) : try StoreDatabase.open(path: name)
    }

    private static func openBackend(_ name: String) async throws -> any StoreBackend {
        PostgresStoreURL.isURL(name)
            ? try await PostgresStoreBackend.open(url: name) : try await StoreDatabase.open(path: name)
    }

    private init(opened: Result<any StoreBackend, HKError>, clientIdentifier: String) {
        self.opened = opened
        self.clientIdentifier = clientIdentifier
    }

    /// The default client identifier: the executable's name.
    public static var defaultClientIdentifier: String { HKSourceRevision.processName }

    /// The path of the default store (`OPENHEALTHKIT_STORE`, XDG, or `~/.local/share`). OpenHealthKit.
    public static var defaultStorePath: String { StoreLocation.defaultPath() }

    /// The default store's path for a given environment. OpenHealthKit.
    public static func defaultStorePath(environment: [String: String]) -> String {
        StoreLocation.defaultPath(environment: environment)
    }

    /// The path of this store's file, or nil in memory. OpenHealthKit.
    public var databasePath: String? { try? opened.get().location }

    /// Whether health data is available on this machine: always true on Linux.
    public class func isHealthDataAvailable() -> Bool { true }

    /// Whether the store can hold health records (clinical documents): not supported by OpenHealthKit.
    public func supportsHealthRecords() -> Bool { false }

    /// The earliest date a sample may have. HealthKit's is a limit of the platform (samples before it cannot be
    /// saved or read); this store has none, so it is `Date.distantPast` and no sample is refused for its date.
    public func earliestPermittedSampleDate() -> Date { .distantPast }

    /// The store's backend, or the reason it could not be opened.
    func backend() throws -> any StoreBackend { try opened.get() }

    /// A session is about to start: another running session of this store fails, as in HealthKit.
    func sessionWillStart(_ session: HKWorkoutSession, at date: Date) {
        let previous = state.withLock { state -> HKWorkoutSession? in
            defer { state.activeSession = session }
            return state.activeSession === session ? nil : state.activeSession
        }
        previous?.fail(with: HKError(.errorAnotherWorkoutSessionStarted, "Another workout session started."), at: date)
    }

    func sessionDidEnd(_ session: HKWorkoutSession) {
        state.withLock { state in
            if state.activeSession === session { state.activeSession = nil }
        }
    }

    var sourceRevision: HKSourceRevision { HKSourceRevision.current(clientIdentifier: clientIdentifier) }

    /// Runs a query's store reads in a task of its own and calls `completion` on the callback queue: the
    /// completion-handler queries' bridge to the store's `async` operations.
    func complete<T: Sendable>(
        _ body: @escaping @Sendable () async throws -> T,
        _ completion: @escaping @Sendable (Result<T, Error>) -> Void
    ) {
        report(body, completion)
    }

    /// Runs an async operation for a completion-handler API and reports its result on the callback queue.
    ///
    /// The task lets go of the operation (and so of the store it holds) before the completion is queued: a caller
    /// that drops its last reference to the store once it hears back finds the store closed, its file free to copy
    /// or open again, rather than held a moment longer by a task still finishing.
    func report<T: Sendable>(
        _ operation: @escaping @Sendable () async throws -> T,
        _ completion: @escaping @Sendable (Result<T, Error>) -> Void
    ) {
        let queue = callbackQueue
        let pending = PendingOperation(operation)
        Task.detached {
            let result = await pending.run()
            queue.async { completion(result) }
        }
    }
}

/// An operation run once by a detached task, which lets go of it (and of what it captured) as soon as it returns.
final class PendingOperation<T: Sendable>: Sendable {
    private let operation: Mutex<(@Sendable () async throws -> T)?>

    init(_ operation: @escaping @Sendable () async throws -> T) { self.operation = Mutex(operation) }

    func run() async -> Result<T, Error> {
        guard let operation = operation.withLock({ $0.take() }) else { return .failure(CancellationError()) }
        do { return .success(try await operation()) } catch { return .failure(error) }
    }
}

extension Result {
    /// HealthKit's (success, error) pair.
    var healthKitPair: (Bool, (any Error)?) {
        switch self {
        case .success: (true, nil)
        case .failure(let error): (false, error)
        }
    }
}
