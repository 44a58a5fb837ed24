import Foundation
import HealthKitModel
import WorkoutEngine

/// What condensing did. OpenHealthKit.
public struct CondenseReport: Sendable, Equatable {
    /// Workouts examined.
    public var workouts: Int
    /// Original samples folded into series and deleted (reported to anchored queries as deleted objects).
    public var samplesRemoved: Int
    /// Series samples created.
    public var seriesCreated: Int
    /// Quantities the new series hold after coalescing.
    public var quantitiesStored: Int
    /// Deleted objects older than ``HKHealthStore/deletedObjectRetention`` that anchored queries no longer report.
    public var deletedObjectsPurged: Int

    public init(
        workouts: Int = 0, samplesRemoved: Int = 0, seriesCreated: Int = 0, quantitiesStored: Int = 0,
        deletedObjectsPurged: Int = 0
    ) {
        self.workouts = workouts
        self.samplesRemoved = samplesRemoved
        self.seriesCreated = seriesCreated
        self.quantitiesStored = quantitiesStored
        self.deletedObjectsPurged = deletedObjectsPurged
    }
}

extension HKHealthStore {
    /// Folds a saved workout's samples into quantity series, as HealthKit condenses old workouts.
    ///
    /// For every quantity type (distances, energy, steps, heart rate, power, cadence, speed, …), the workout's own
    /// samples (associated with it alone and without metadata) are folded, per source and device and
    /// per run of consecutive samples in that source's stream, into one series sample associated with the workout.
    /// Coalescing merges contiguous cumulative quantities of equal rate and equal heart-rate values whose held
    /// spans touch (see `SeriesCoalescer`); arithmetic-mean types (power, cadence, speed) keep every reading as a
    /// point. The originals are deleted and reported to anchored object queries as deleted objects, kept for
    /// ``HKHealthStore/deletedObjectRetention``: in a SQLite store from one compact record per series, whose series
    /// of one source and device share one timeline of their instants (a power meter's notification times are stored
    /// once for its power, cadence, speed, distance and energy; see `QuantitySeriesCodec+Timeline.swift`); in a
    /// PostgreSQL store one record per original, each series with its own times. The points are lossless. Every
    /// statistic computed by the store (sums, averages, minimum, maximum, duration, and the most recent heart rate)
    /// is the same before and after. Runs in one transaction: it happens entirely or not at all. Condensing a
    /// condensed workout changes nothing.
    ///
    /// - Throws: `errorInvalidArgument` when the workout is not in the store.
    ///
    /// HealthKit: "Accessing condensed workout samples" (HealthKit condenses in the background; this is the
    /// OpenHealthKit operation that does it on request).
    public func condenseWorkout(_ workout: HKWorkout) async throws -> CondenseReport {
        let uuid = workout.uuid
        guard let counts = try await backend().condenseWorkout(uuid, now: wallClock()) else {
            throw HKError(.errorInvalidArgument, "The workout \(uuid) is not in the health store.")
        }
        let report = CondenseReport(
            workouts: 1, samplesRemoved: counts.samplesRemoved, seriesCreated: counts.seriesCreated,
            quantitiesStored: counts.quantitiesStored)
        if report.samplesRemoved > 0 { notifyChange() }
        return report
    }

    /// How long the store keeps deletion records for anchored object queries: 30 days after the deletion. HealthKit
    /// documents that "deleted objects are temporary; the system may remove them from the HealthKit store at any
    /// time to free up space" without a period; OpenHealthKit keeps them 30 days, so an app that syncs at least
    /// monthly learns of every deletion. ``condenseWorkouts(olderThan:)`` purges older records (times from
    /// ``wallClock``); ``purgeDeletedObjects(deletedBefore:)`` does it on request. OpenHealthKit.
    public static let deletedObjectRetention: TimeInterval = 30 * 86_400

    /// Removes the deletion records of objects deleted before `date` (and of deletions from before OpenHealthKit
    /// kept their date); anchored queries no longer report them. Returns how many deleted objects were dropped.
    /// OpenHealthKit.
    ///
    /// HealthKit: HKDeletedObject ("Deleted objects are temporary").
    public func purgeDeletedObjects(deletedBefore date: Date) async throws -> Int {
        try await backend().purgeDeletionRecords(before: date)
    }

    /// Condenses every workout that ended before `date`, each in its own transaction, then purges deletion records
    /// older than ``deletedObjectRetention``. OpenHealthKit.
    public func condenseWorkouts(olderThan date: Date) async throws -> CondenseReport {
        let backend = try backend()
        let now = wallClock()
        var report = CondenseReport()
        for workout in try await backend.workouts(endedBefore: date) {
            // A workout deleted since it was listed is skipped.
            guard let counts = try await backend.condenseWorkout(workout, now: now) else { continue }
            report.workouts += 1
            report.samplesRemoved += counts.samplesRemoved
            report.seriesCreated += counts.seriesCreated
            report.quantitiesStored += counts.quantitiesStored
        }
        report.deletedObjectsPurged = try await purgeDeletedObjects(deletedBefore: now - Self.deletedObjectRetention)
        if report.samplesRemoved > 0 { notifyChange() }
        return report
    }
}
