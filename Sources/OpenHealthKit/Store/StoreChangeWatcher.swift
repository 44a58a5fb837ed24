import Foundation
import HealthKitModel
import WorkoutEngine

/// Notices commits made to the store file by other connections — another `HKHealthStore` object, another process —
/// so that long-running queries (``HKObserverQuery``, anchored object, statistics collection and activity summary
/// queries with update handlers) hear of them within a second.
///
/// How: while at least one long-running query runs, a task asks the backend for a probe
/// (``StoreBackend/changeProbe()``: in SQLite its own read-only connection to the file, reading `PRAGMA
/// data_version` on GRDB's queue) and reads it every 250 ms on the store's injected `clock`. The value changes
/// exactly when another connection has committed (SQLite: "PRAGMA data_version"); then the store's queries are
/// told, and each checks whether anything of its own types changed. The task ends when the last long-running query
/// stops.
///
/// Why not inotify on the WAL file: it would put a file descriptor and a Linux-only API in `OpenHealthKit` (the
/// transport target is the only one with descriptors), and the WAL file is rewritten by checkpoints and deleted
/// when the last connection closes, which a watch must then follow. `data_version` is SQLite's own answer, costs
/// one tiny read per tick while a query runs, and nothing otherwise. A store in memory has no other connections:
/// its own saves notify its queries at once, as every store's do.
enum StoreChangeWatcher {
    /// How often `data_version` is read.
    static let interval: Duration = .milliseconds(250)
}

extension HKHealthStore {
    /// Starts the watcher unless it runs (or the store is in memory).
    func watchForChanges() {
        guard let backend = try? backend(), backend.location != nil else { return }
        let clock = self.clock
        state.withLock { state in
            guard state.watcher == nil else { return }
            state.watcher = Task.detached { [weak self] in
                guard let probe = try? await backend.changeProbe(), var last = try? await probe.version() else {
                    self?.state.withLock { $0.watcher = nil }
                    return
                }
                // A commit between the queries' start and this first reading would be missed: let them look once.
                self?.notifyChange()
                while !Task.isCancelled {
                    do { try await clock.sleep(for: StoreChangeWatcher.interval) } catch { break }
                    guard let store = self else { return }
                    let keepWatching = store.state.withLock { state -> Bool in
                        guard state.runningQueries.values.contains(where: { $0 is StoreObserving }) else {
                            state.watcher = nil
                            return false
                        }
                        return true
                    }
                    guard keepWatching else { return }
                    guard let version = try? await probe.version() else { continue }
                    if version != last {
                        last = version
                        store.notifyChange()
                    }
                }
            }
        }
    }
}
