import Foundation
import HealthKitModel

/// A recorder's finish when the store does not answer: a PostgreSQL server that went away, restarts, or sits behind
/// a network that dropped. OpenHealthKit.
///
/// A finish that fails saves nothing and leaves the builder as it was (``HKWorkoutBuilder/finishWorkout()``), with
/// every reading it collected, so it can simply be tried again. A recorder (``LiveRecording/save(whileTheStoreDoesNotAnswer:)``,
/// ``WorkoutReplay/finish(whileTheStoreDoesNotAnswer:)``) tries it every ``interval`` on the store's monotonic clock
/// until the store answers, for at most ``limit``; the readings never leave the process's memory meanwhile. Only a
/// PostgreSQL store is waited for: a SQLite file that cannot be written will not start answering.
///
/// While a recording runs, a journal batch the server did not take is not an error of the builder's calls either:
/// its readings wait in memory and go with the next batch that reaches the server, so the journal catches up when
/// the server is back. What a crash during the outage loses is what had not reached it (and the state changes and
/// events journaled during the outage, which the finished workout still has).
public enum StoreOutage {
    /// How often a finish is tried again while the store does not answer.
    public static let interval: Duration = .seconds(5)
    /// How long a finish waits for the store before it gives up with the store's error.
    public static let limit: Duration = .seconds(600)
}

extension HKWorkoutBuilder {
    /// Whether an error is the store not answering: a PostgreSQL store's `errorDatabaseInaccessible` (a server that
    /// went away, restarts, or cannot be reached). A SQLite file's failures are never waited out.
    func isStoreOutage(_ error: any Error) -> Bool {
        guard let error = error as? HKError, error.code == .errorDatabaseInaccessible else { return false }
        return (try? healthStore.backend()) is PostgresStoreBackend
    }

    /// ``finishWorkout()``, tried again while a PostgreSQL store does not answer (see ``StoreOutage``); `waiting` hears
    /// the first failure that is waited out, once.
    func finishWorkoutWaitingForTheStore(
        _ waiting: @Sendable (HKError) -> Void
    ) async throws -> HKWorkout? {
        let clock = healthStore.clocks.monotonic
        var waited = Duration.zero
        while true {
            do {
                return try await finishWorkout()
            } catch let error as HKError where isStoreOutage(error) && waited < StoreOutage.limit {
                if waited == .zero { waiting(error) }
                try await clock.sleep(for: StoreOutage.interval)
                waited += StoreOutage.interval
            }
        }
    }
}
