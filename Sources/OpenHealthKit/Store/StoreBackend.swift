import Foundation

/// The seam between HealthKit's store semantics and the database that keeps the rows: named operations and
/// transactions, values in and values out.
///
/// Above the seam (`HKHealthStore` and its extensions, the queries, the builders) live what HealthKit's calls mean:
/// authorization rules (``ShareCheck``), how a predicate reads (``PredicateNode``), what statistics, series, route,
/// heartbeat, activity-summary and anchored queries answer, how a recording is recovered. Below it a backend runs
/// each operation against its database. The SQLite backend (`Store/SQLite/`, GRDB) is the embedded default; it is
/// the only code that imports GRDB. A PostgreSQL backend implements the same protocol with the same semantics.
///
/// What a backend guarantees:
/// - **Transactions.** Each method is one transaction: it happens entirely or not at all. A method that takes a
///   ``ShareCheck`` verifies it inside its own transaction, before it writes. Reads see one consistent snapshot.
/// - **Ordering.** Writes are serialised: a write that returned is seen by every later read of any connection.
///   Anchors (``currentAnchor()``) grow with every insert and deletion, and never go back.
/// - **Durability.** A write that returned survives a crash of the process. Journal batches
///   (``appendJournal(_:builderID:)``) are durable when the call returns, in the order they were appended.
/// - **Ids.** Objects are identified by their UUIDs across the seam; a journal by the `Int64` ``createJournal(_:)``
///   returned. A backend's own row ids never cross it, except inside the journal's sample payloads, which only
///   the same backend reads back.
/// - **Errors.** Every error thrown is an `HKError` (`errorDatabaseInaccessible` with one sentence for the
///   database's own failures: locked, full, damaged, unreachable), or an `HKError` a ``ShareCheck`` threw.
/// - **Threads.** The `async` methods suspend the calling task while the database works: no cooperative thread
///   waits on a lock, a disk or a network. Methods whose names end in `Blocking` block their caller; they exist
///   only for HealthKit's synchronous API (`authorizationStatus(for:)`, `discardWorkout()`, …) and are never called
///   from `async` code. ``appendJournal(_:builderID:)`` is called on the journal's own serial queue.
protocol StoreBackend: Sendable {
    /// Where the store is, for messages: a file path, or nil in memory.
    var location: String? { get }

    // MARK: Authorization

    /// The decisions recorded for `client`, by type identifier (types never decided are absent).
    func authorizationDecisions(client: String, types: Set<String>) async throws -> [String: AuthorizationDecision]

    /// ``authorizationDecisions(client:types:)`` for one type, blocking: only for HealthKit's synchronous
    /// `authorizationStatus(for:)`.
    func authorizationDecisionBlocking(client: String, type: String) throws -> AuthorizationDecision?

    /// In one transaction: reads the decisions of `types`, asks `decide` (which returns the changed ones) and
    /// records what it returned.
    func updateAuthorization(
        client: String, types: Set<String>,
        _ decide: @escaping @Sendable ([String: AuthorizationDecision]) throws -> [String: AuthorizationDecision]
    ) async throws

    /// Records one decision, blocking: OpenHealthKit's synchronous setters only.
    func recordAuthorizationBlocking(client: String, type: String, share: Int?, read: Int?) throws

    /// The types `client` may read (read authorization granted).
    func readableTypes(client: String) async throws -> Set<String>

    /// ``readableTypes(client:)``, blocking: only for HealthKit's synchronous characteristic reads.
    func readableTypesBlocking(client: String) throws -> Set<String>

    /// Verifies a share check against the recorded decisions (a read).
    func checkShareAuthorization(_ check: ShareCheck) async throws

    // MARK: Objects

    /// Saves objects (with `source`); objects already stored are left as they are.
    func save(_ objects: [HKObject], source: HKSourceRevision, check: ShareCheck) async throws

    /// Deletes samples `client` saved (another client's throws `errorAuthorizationDenied`; unknown ones are
    /// skipped), recording them as deleted objects at `now`.
    func delete(_ samples: [HKSample], client: String, now: Date, check: ShareCheck) async throws

    /// Deletes every sample of `client` that `descriptor` matches; returns how many.
    func deleteSamples(
        matching descriptor: HKQueryDescriptor, client: String, now: Date, check: ShareCheck
    ) async throws -> Int

    /// Saves the samples not yet stored and associates every one with the stored workout (`errorInvalidArgument`
    /// when the workout is not stored).
    func associate(
        _ samples: [HKSample], withWorkout workout: UUID, source: HKSourceRevision, check: ShareCheck)
        async throws

    /// Saves a quantity series sample built from quantities.
    func saveSeries(_ series: QuantitySeriesToSave, check: ShareCheck) async throws

    /// Relates (or, with `relate` false, unrelates) a stored effort sample to a stored workout or activity
    /// (`errorInvalidArgument` when either is not stored).
    func relateEffort(_ relation: EffortRelation, relate: Bool, check: ShareCheck) async throws

    // MARK: Queries

    /// The samples the descriptors match that `client` may read, sorted, at most `limit` (0: no limit).
    func samples(
        _ descriptors: [HKQueryDescriptor], limit: Int, sorts: [SampleSort], client: String
    ) async throws
        -> [HKSample]

    /// The samples added and the objects deleted after `anchor` that the descriptors match, oldest first (at most
    /// `limit` added ones), and the store's anchor.
    func changes(
        _ descriptors: [HKQueryDescriptor], after anchor: Int64, limit: Int, client: String
    ) async throws
        -> StoreChanges

    /// The sample types of the descriptors with a change after `anchor`, and the store's anchor.
    func changedTypes(
        _ descriptors: [HKQueryDescriptor], after anchor: Int64, client: String
    ) async throws
        -> (types: Set<HKSampleType>, anchor: Int64)

    /// The newest anchor.
    func currentAnchor() async throws -> Int64

    /// The sources of the samples the descriptors match that `client` may read.
    func sources(_ descriptors: [HKQueryDescriptor], client: String) async throws -> Set<HKSource>

    /// Statistics of `type` over `[rangeStart, rangeEnd)` from the rows `fetch` matches, per source and merged
    /// (cumulative types merged by source priority).
    func statistics(
        _ type: HKQuantityType, fetch: HKQueryDescriptor, rangeStart: Double, rangeEnd: Double, client: String
    ) async throws -> StatisticsValues

    /// Statistics of `type` per interval of `tiling`, by interval index; `everySource` reads every source's rows
    /// whatever `client` may read (activity summaries).
    func statisticsCollection(
        _ type: HKQuantityType, fetch: HKQueryDescriptor, tiling: DateTiling, client: String, everySource: Bool
    ) async throws -> [Int: StatisticsValues]

    /// The first start and last end of the data activity summaries are computed from, nil when there is none.
    func activityDataSpan() async throws -> (start: Double, end: Double)?

    /// The spans workouts were running (not paused) within `[start, end)`.
    func workoutRunningSpans(from start: Double, to end: Double) async throws -> [ExerciseTime.Span]

    /// The quantity samples the descriptor matches that `client` may read, each with its stored points when it is a
    /// series of more than one quantity.
    func seriesSamples(
        _ descriptor: HKQueryDescriptor, client: String
    ) async throws
        -> [(sample: HKQuantitySample, points: [SeriesQuantity]?)]

    /// The effort relationships added after `anchor` of the workouts `workouts` matches: the rows, the workouts and
    /// the effort samples `client` may read, and the newest anchor.
    func effortRelationships(
        _ workouts: HKQueryDescriptor, after anchor: Int64, client: String
    ) async throws
        -> EffortRelationshipRows

    /// The stored beats of a heartbeat series, encoded (``HeartbeatSeriesCodec``); nil when it has none.
    func heartbeatBeats(of series: UUID) async throws -> [UInt8]?

    /// The stored locations of a route.
    func routeLocations(of route: UUID) async throws -> [CLLocation]

    /// The sensors a workout was recorded from, in rank order.
    func workoutSensors(of workout: UUID) async throws -> [HKWorkoutSensor]

    // MARK: Sources

    /// The sources of a type in priority order.
    func sourcePriority(of type: HKQuantityType) async throws -> [HKSource]

    /// Replaces a type's priority order; `decide` checks the new order against the stored one (the rule above the
    /// seam) in the same transaction.
    func setSourcePriority(
        of type: HKQuantityType, _ decide: @escaping @Sendable ([HKSource]) throws -> [String]
    ) async throws

    // MARK: Zones and profile

    /// The person's workout profile.
    func workoutProfile() async throws -> WorkoutProfile

    /// ``workoutProfile()``, blocking: only for HealthKit's synchronous `dateOfBirthComponents()`.
    func workoutProfileBlocking() throws -> WorkoutProfile

    /// Replaces the workout profile.
    func setWorkoutProfile(_ profile: WorkoutProfile) async throws

    /// What zone preferences are computed from: the profile and the latest resting heart rate and FTP.
    func zonePreferences() async throws -> ZonePreferenceInputs

    // MARK: Paired sensors

    /// Pairs a sensor (replacing an earlier pairing of the same identifier).
    func pairSensor(_ sensor: PairedSensor, at date: Date) async throws
    /// Forgets a paired sensor; whether it was paired.
    func unpairSensor(identifier: String) async throws -> Bool
    /// The paired sensors in pairing order.
    func pairedSensors() async throws -> [PairedSensor]

    // MARK: Condensing

    /// Condenses a stored workout's samples into series (nil when the workout is not stored).
    func condenseWorkout(_ workout: UUID, now: Date) async throws -> CondenseCounts?
    /// The workouts that ended before `date`.
    func workouts(endedBefore date: Date) async throws -> [UUID]
    /// Drops deletion records older than `cutoff`; how many.
    func purgeDeletionRecords(before cutoff: Date) async throws -> Int

    // MARK: The live journal and workouts

    /// Creates a recording's journal; returns its id.
    func createJournal(_ header: JournalHeader) async throws -> Int64

    /// Deletes a journal and its rows (a recording that could not begin).
    func deleteJournal(builderID: Int64) async throws

    /// Appends a batch to a journal, durably, blocking: called on the journal's own serial queue, in order.
    func appendJournal(_ batch: JournalBatch, builderID: Int64) throws

    /// Saves a finished workout with its samples, heartbeats, associations and sensors, and deletes its journal.
    func finishWorkout(_ finish: WorkoutToFinish, check: ShareCheck) async throws

    /// Keeps the app-added samples of a discarded recording (unassociated) and deletes its journal, blocking:
    /// HealthKit's `discardWorkout()` is synchronous.
    func discardRecordingBlocking(builderID: Int64, extra: [CollectedSample], source: HKSourceRevision) throws

    /// The latest interrupted recording of `client` that had a session, with its journal rows in order.
    func interruptedRecording(client: String) async throws -> InterruptedRecording?

    // MARK: Workout plans (OpenWorkoutKit), as the bytes of their .workout files

    /// The plan a stored workout was recorded with, nil when it has none.
    func workoutPlan(ofWorkout workout: UUID) async throws -> Data?
    /// Keeps `plan` as the plan of a stored workout, replacing one it had (`errorInvalidArgument` when the workout
    /// is not stored).
    func setWorkoutPlan(_ plan: Data, ofWorkout workout: UUID) async throws
    /// The scheduled plans, by date then by when they were scheduled.
    func scheduledPlans() async throws -> [ScheduledPlanRecord]
    /// Schedules a plan at a date, replacing the same plan at the same date; false (nothing written) when `limit`
    /// plans are already scheduled.
    func schedulePlan(_ record: ScheduledPlanRecord, limit: Int) async throws -> Bool
    /// Removes a plan scheduled at a date; whether it was scheduled.
    func removeScheduledPlan(planID: UUID, date: String) async throws -> Bool
    /// Marks a plan scheduled at a date complete; whether it was scheduled.
    func markScheduledPlanComplete(planID: UUID, date: String) async throws -> Bool
    /// Removes every scheduled plan.
    func removeAllScheduledPlans() async throws
    /// Keeps a plan in the library; returns its id.
    func addLibraryPlan(_ record: LibraryPlanRecord) async throws -> Int64
    /// The library's plans, oldest first.
    func libraryPlans() async throws -> [LibraryPlanRecord]
    /// One plan of the library, nil when there is none with this id.
    func libraryPlan(id: Int64) async throws -> LibraryPlanRecord?

    // MARK: Sharing

    /// Shares the person's whole store, read-only, with the role `reader`; sharing again keeps the first share
    /// (`errorInvalidArgument` where a store cannot be shared, or for a reader the server does not know).
    func shareStore(with reader: String, at date: Date) async throws
    /// Ends the share with `reader`; whether there was one.
    func stopSharingStore(with reader: String) async throws -> Bool
    /// The shares the person made and the ones made with them, oldest first.
    func storeShares() async throws -> [StoreShare]

    // MARK: Change notifications

    /// A probe of commits made by other connections, nil when there can be none (in memory): its `version()`
    /// changes exactly when another connection committed.
    func changeProbe() async throws -> (any StoreChangeProbe)?
}

/// Reads a value that changes when another connection commits to the store (see ``StoreChangeWatcher``).
protocol StoreChangeProbe: Sendable {
    func version() async throws -> Int
}
