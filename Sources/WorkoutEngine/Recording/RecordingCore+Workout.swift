import Foundation
import HealthKitModel

/// The builder's lifecycle around its inputs (the journal's row, finishing, discarding) and what it answers when
/// asked: statistics, activities, zones, the elapsed time.
extension RecordingCore {
    // MARK: Lifecycle

    /// A `beginCollection` may make the journal's row (outside the lock): only one caller gets that far.
    package mutating func reserveBegin(at start: Date) throws {
        var next = lifecycle
        try next.begin(at: start)
        guard !beginning else {
            throw HKError(.errorInvalidArgument, "Collection has already begun for this workout builder.")
        }
        beginning = true
    }

    package mutating func releaseBegin() {
        beginning = false
    }

    /// The journal's row exists: entries from now on are recorded in it. A recovered journal goes on after its
    /// last `sequence`.
    package mutating func openJournal(_ writer: any RecordingJournal, after sequence: Int64? = nil) {
        journalWriter = writer
        guard let sequence else { return }
        // A replay's deliveries were for no one.
        journal = JournalBuffer(sequence: sequence)
        deliveries = Deliveries(spacing: deliveries.spacing)
    }

    /// The journal was deleted (the workout was saved or discarded): nothing more is buffered or handed over.
    package mutating func closeJournal() {
        journal.close()
    }

    /// What finishing saves: the workout, the samples and heartbeats still buffered, the journal, the samples to
    /// associate. The builder is finished from here; ``finishFailed(restoring:beats:now:)`` undoes it.
    package mutating func finish(
        configuration: HKWorkoutConfiguration, device: HKDevice?, sourceRevision: HKSourceRevision
    )
        throws -> (
            workout: HKWorkout, samples: [CollectedSample], beats: [HeartbeatCollector.Beat],
            writer: (any RecordingJournal)?,
            associated: [UUID]
        )
    {
        var next = lifecycle
        try next.finish()
        guard let start = lifecycle.startDate, let end = lifecycle.endDate else {
            throw HKError(.errorInvalidArgument, "The workout cannot be finished before collection has ended.")
        }
        let workout = HKWorkout(
            activityType: configuration.activityType, startDate: start, endDate: end,
            duration: lifecycle.elapsedTime(at: end, events: events),
            events: events,
            activities: activities.map { activity in
                // An activity ended after the workout (a late clock) ends with it.
                var clamped = activity
                clamped.end = min(activity.end ?? end, end)
                return workoutActivity(clamped, through: end)
            },
            statistics: statistics.allStatistics(start: start, through: end, source: source),
            uuid: UUID(), metadata: metadata, device: device, sourceRevision: sourceRevision,
            zoneGroups: zones.groups(from: start, to: end))
        try workout.validate()
        lifecycle = next
        let pending = journal.takePending()
        return (workout, pending.samples, pending.beats, journalWriter, associated)
    }

    /// Saving failed and nothing was saved: the builder can be finished again, with the buffered items back.
    package mutating func finishFailed(
        restoring samples: [CollectedSample], beats: [HeartbeatCollector.Beat], now: Duration
    ) {
        lifecycle = BuilderLifecycle(phase: .ended, startDate: lifecycle.startDate, endDate: lifecycle.endDate)
        if journalWriter != nil { journal.restore(samples, beats: beats, now: now) }
    }

    /// Discards the workout; returns the journal and the buffered samples, or nil when it had finished already.
    package mutating func discard() -> (writer: (any RecordingJournal)?, samples: [CollectedSample])? {
        guard lifecycle.phase != .finished && lifecycle.phase != .discarded else { return nil }
        lifecycle.discard()
        return (journalWriter, journal.takePending().samples)
    }

    /// Sets a custom zone configuration, before collection.
    package mutating func setCustomZones(_ configuration: HKWorkoutZoneConfiguration?, for type: HKQuantityType) throws
    {
        guard lifecycle.phase == .notStarted else {
            throw HKError(.errorInvalidArgument, "Custom zones must be set before collection begins.")
        }
        zones.custom[type] = configuration
    }

    // MARK: Queries

    /// Statistics are read up to `now` while collecting, up to the end once ended.
    package func horizon(_ now: Date) -> Date { lifecycle.endDate ?? now }

    package func allStatistics(now: Date) -> [HKQuantityType: HKStatistics] {
        statistics.allStatistics(start: lifecycle.startDate, through: horizon(now), source: source)
    }

    package func statistics(for type: HKQuantityType, now: Date) -> HKStatistics? {
        statistics.statistics(for: type, start: lifecycle.startDate, through: horizon(now), source: source)
    }

    /// The mean of the power readings of the 3 s up to `date` (``TrailingAverage/threeSecondPower()``), in watts.
    package func threeSecondPower(at date: Date) -> Double? {
        statistics.threeSecondPower.average(at: date)
    }

    package func elapsedTime(at date: Date) -> TimeInterval {
        lifecycle.elapsedTime(at: date, events: events)
    }

    /// An activity as HealthKit shows it, with its statistics and zones up to `now` (or its end).
    package func workoutActivity(_ activity: Activity, through now: Date) -> HKWorkoutActivity {
        let zoneEnd = min(activity.end ?? now, now)
        return HKWorkoutActivity(
            uuid: activity.uuid, configuration: activity.configuration, startDate: activity.start,
            endDate: activity.end, metadata: activity.metadata, parentEvents: events,
            statistics: statistics.activityStatistics(
                activity.uuid, through: activity.end ?? now,
                source: source),
            zoneGroups: zoneEnd > activity.start ? zones.groups(from: activity.start, to: zoneEnd) : nil)
    }

    package func workoutActivity(withUUID uuid: UUID, through now: Date) -> HKWorkoutActivity? {
        activities.first { $0.uuid == uuid }.map { workoutActivity($0, through: now) }
    }

    /// The activities, ordered by start date, each with its statistics so far.
    package func workoutActivities(through now: Date) -> [HKWorkoutActivity] {
        activities.sorted { $0.start < $1.start }.map { workoutActivity($0, through: now) }
    }

    /// The activity in progress, if any.
    package func currentActivity(through now: Date) -> HKWorkoutActivity? {
        activities.last { $0.end == nil }.map { workoutActivity($0, through: now) }
    }

    /// Whether zones are fixed, the configuration in effect for a type, and the custom one set before.
    package func zoneConfigurations(
        for type: HKQuantityType
    )
        -> (started: Bool, inEffect: HKWorkoutZoneConfiguration?, custom: HKWorkoutZoneConfiguration?)
    {
        (zones.started, zones.tracks.first { $0.configuration.quantityType == type }?.configuration, zones.custom[type])
    }

    package func zoneGroup(for type: HKQuantityType, at date: Date) -> HKWorkoutZoneGroup? {
        zones.group(for: type, at: date)
    }
}
