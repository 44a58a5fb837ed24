import FitnessSensors
import Foundation
import HealthKitModel

/// The live recording between a sensor's typed reading and the store, as one value: the builder's lifecycle, its
/// events, activities and metadata, the mapping of readings to samples for the collected types (one device per
/// measurement), the statistics, the zones, the deliveries waiting for the delegate and the journal's buffer.
///
/// It is the single reducer of everything a recording is told (``RecordingInput``): ``apply(_:now:)`` answers each
/// input with the actions its shell must carry out. The journal records the inputs, and crash recovery decodes them
/// and folds them through the same `apply` (``replaying(configuration:)``), so a rule added to the live path is the
/// recovered recording's rule too.
///
/// The core never reads a clock and never asks anyone anything: the wall times come in with the inputs, and `now`
/// is the shell's monotonic clock (the age of buffered samples, the spacing of deliveries). Its shell is the workout
/// builder, which holds it in a `Mutex`, hands journal batches to the writer without waiting, and waits (for the
/// writer's back-pressure, or for an entry to be written) only after unlocking.
///
/// In the manner of swift-async-algorithms' state machines, with the effects returned rather than performed.
package struct RecordingCore: Sendable {
    /// A sensor feeding the recording, in the data source's order.
    package struct Channel {
        package let identifier: String
        /// The sensor's device, as its samples name it.
        package var deviceCode: UInt32
        package var mapper = ReadingMapper()
    }

    // The collection plan.
    package var settings: CollectionSettings
    package var collected: [Bool]
    package var channels: [Channel] = []
    package var owners = MeasurementOwners()
    package var heartbeats = HeartbeatCollector()

    // The workout as the builder records it.
    // Changed only by the core's own files (RecordingCore*.swift), as are the sub-states below; the shell reads them.
    package var lifecycle = BuilderLifecycle()
    package private(set) var events: [HKWorkoutEvent] = []
    package private(set) var activities: [Activity] = []
    /// Metadata values are property-list values and quantities, never changed once made.
    package private(set) nonisolated(unsafe) var metadata: [String: Any] = [:]
    package private(set) var associated: [UUID] = []
    /// The session as its recorded changes leave it (what recovery restores).
    package private(set) var session = SessionStateMachine()

    // What the recording has made.
    package var statistics = BuilderStatistics()
    package var zones = BuilderZones()
    package var journal = JournalBuffer(sequence: 0)
    package var deliveries: Deliveries
    /// The journal's writer, once collection has begun: where the shell hands batches. The core never calls it; it
    /// holds it so that the writer is opened and taken under the same lock as the recording's state.
    package var journalWriter: (any RecordingJournal)?

    /// The source statistics and activities name.
    package let source: HKSource
    /// The workout's own activity type: what the plan collects for outside a multisport leg.
    package let workoutActivity: HKWorkoutActivityType
    /// The session, if any, is running (readings are dropped while it is paused or stopped). A pause ends every
    /// reading's hold: no energy is integrated across it (``PowerEnergy``).
    package private(set) var sessionRunning: Bool {
        didSet { if !sessionRunning { for index in channels.indices { channels[index].mapper.reset() } } }
    }
    /// A delegate is set: collected types are delivered.
    package var hasDelegate = false
    /// A `beginCollection` is making the journal's row (outside the lock): a second one fails at once.
    package var beginning = false
    /// Reused between readings so that mapping one allocates nothing.
    package var scratch: [CollectedSample] = []

    /// The builder is collecting (its phase is active).
    package var collecting: Bool { lifecycle.phase == .active }

    package init(
        activity: HKWorkoutActivityType, deliverySpacing: Duration, source: HKSource, sessionRunning: Bool = true
    ) {
        settings = CollectionSettings(activity: activity)
        workoutActivity = activity
        collected = settings.collectedCodes
        deliveries = Deliveries(spacing: deliverySpacing)
        self.source = source
        self.sessionRunning = sessionRunning
        scratch.reserveCapacity(4)
    }

    /// A core to fold a journal through: it records nothing (its inputs are the journal's), and its session is
    /// whatever the journal's session changes make it. ``openJournal(_:after:)`` lets it record again.
    package static func replaying(
        activity: HKWorkoutActivityType, deliverySpacing: Duration, source: HKSource
    ) -> RecordingCore {
        var core = RecordingCore(
            activity: activity, deliverySpacing: deliverySpacing, source: source, sessionRunning: false)
        core.journal.close()
        return core
    }

    // MARK: Inputs

    /// Answers an input with what the shell must do. Throws, changing nothing, when the input is not allowed now
    /// (HealthKit's `errorInvalidArgument`: an event added to a finished builder, an activity overlapping another).
    package mutating func apply(_ input: RecordingInput, now: Duration) throws -> Actions {
        switch input {
        case let .reading(value, channel, time):
            return received(value, from: channel, at: time, now: now)
        case let .connection(state, channel):
            connectionChanged(state, channel: channel)
            return .none
        case let .tick(time):
            return tick(now: now, time: time)
        case let .samples(samples):
            try lifecycle.checkCanAdd("samples")
            guard lifecycle.phase != .notStarted else {
                throw HKError(.errorInvalidArgument, "Samples can be added once collection has begun.")
            }
            var actions = Actions()
            collect(samples, now: now, into: &actions)
            return actions
        case let .sessionState(from, to, date):
            var actions = Actions()
            try record(.sessionState(from: from.rawValue, to: to.rawValue, date: date.storeValue), into: &actions)
            sessionRunning = to == .running
            session.record(to, at: date)
            return actions
        case let .began(start):
            var next = lifecycle
            try next.begin(at: start)
            var actions = Actions()
            try record(
                .builderPhase(phase: BuilderLifecycle.Phase.active.rawValue, start: start.storeValue, end: nil),
                into: &actions)
            lifecycle = next
            zones.begin([], events: events)
            return actions
        case let .zoneConfiguration(configuration):
            guard collecting else { throw HKError(.errorInvalidArgument, "Zones are fixed when collection begins.") }
            var actions = Actions()
            try record(configuration.journalEntry, into: &actions)
            zones.add(configuration, events: events)
            return actions
        case let .ended(end):
            var next = lifecycle
            try next.end(at: end)
            var actions = Actions()
            try record(
                .builderPhase(
                    phase: BuilderLifecycle.Phase.ended.rawValue, start: next.startDate?.storeValue,
                    end: end.storeValue), into: &actions)
            lifecycle = next
            for index in activities.indices where activities[index].end == nil {
                activities[index].end = end
                statistics.endActivity(activities[index].uuid, at: end)
            }
            return actions
        case let .events(added, checkedAt):
            return try add(added, checkedAt: checkedAt)
        case let .activityBegan(activity):
            // The plan follows the new leg even when the builder refuses it (the session keeps its own account of
            // activities); inside `apply`, so a recovered recording collects for the leg it was in.
            defer { activityChanged(to: activity.configuration.activityType) }
            return try begin(activity)
        case let .activityEnded(uuid, end):
            defer { activityChanged(to: workoutActivity) }
            return try endActivity(uuid, at: end)
        case let .activityMetadata(uuid, added):
            try lifecycle.checkCanAdd("activity metadata")
            guard let index = activities.firstIndex(where: { $0.uuid == uuid }) else {
                throw HKError(.errorInvalidArgument, "No workout activity has the UUID \(uuid).")
            }
            activities[index].metadata = (activities[index].metadata ?? [:]).merging(added) { $1 }
            return .none
        case let .metadata(added):
            try MetadataCoding.validate(added)
            try lifecycle.checkCanAdd("metadata")
            var actions = Actions()
            if let json = try MetadataCoding.encode(added) { try record(.metadata(json), into: &actions) }
            metadata.merge(added) { $1 }
            return actions
        case let .associated(uuid):
            var actions = Actions()
            try record(.associated(uuid: uuid), into: &actions)
            associated.append(uuid)
            return actions
        }
    }

    private mutating func add(_ added: [HKWorkoutEvent], checkedAt: Date) throws -> Actions {
        try lifecycle.checkCanAdd("workout events")
        for event in added { try MetadataCoding.validate(event.metadata) }
        var actions = Actions()
        for event in added {
            try record(
                .event(
                    type: event.type.rawValue, start: event.dateInterval.start.storeValue,
                    end: event.dateInterval.end.storeValue, metadata: MetadataCoding.encode(event.metadata)),
                into: &actions)
            events.append(event)
        }
        events.sort { $0.dateInterval.start < $1.dateInterval.start }
        actions.calls = [.collectedEvents]
        actions.zoneChanges = zones.eventsChanged(events, now: checkedAt)
        return actions
    }

    private mutating func begin(_ activity: Activity) throws -> Actions {
        try lifecycle.checkCanAdd("workout activities")
        if activities.contains(where: { $0.end == nil }) {
            throw HKError(.errorInvalidArgument, "Cannot add new activity before ending current activity.")
        }
        if let end = activity.end, end <= activity.start {
            throw HKError(.errorInvalidArgument, "An activity's end must be after its start.")
        }
        if let overlap = activities.first(where: {
            ($0.end ?? .distantFuture) > activity.start && $0.start < (activity.end ?? .distantFuture)
        }) {
            throw HKError(.errorInvalidArgument, "The activity overlaps the activity that starts at \(overlap.start).")
        }
        try MetadataCoding.validate(activity.metadata)
        var actions = Actions()
        try record(
            .activityBegan(
                uuid: activity.uuid, configuration: ConfigurationRecord(activity.configuration),
                start: activity.start.storeValue, metadata: MetadataCoding.encode(activity.metadata)),
            into: &actions)
        if let end = activity.end {
            try record(.activityEnded(uuid: activity.uuid, end: end.storeValue), into: &actions)
        }
        activities.append(activity)
        statistics.beginActivity(activity.uuid, start: activity.start, end: activity.end)
        actions.calls = [.began(activity.uuid)]
        return actions
    }

    private mutating func endActivity(_ uuid: UUID, at end: Date) throws -> Actions {
        try lifecycle.checkCanAdd("activity changes")
        guard let index = activities.firstIndex(where: { $0.uuid == uuid }) else {
            throw HKError(.errorInvalidArgument, "No workout activity has the UUID \(uuid).")
        }
        guard end > activities[index].start else {
            throw HKError(.errorInvalidArgument, "An activity's end must be after its start.")
        }
        var actions = Actions()
        try record(.activityEnded(uuid: uuid, end: end.storeValue), into: &actions)
        activities[index].end = end
        statistics.endActivity(uuid, at: end)
        actions.calls = [.ended(uuid)]
        return actions
    }

    /// Queues a journal entry after everything buffered before it, once the journal exists.
    private mutating func record(_ entry: JournalEntry, into actions: inout Actions) throws {
        guard journalWriter != nil else { return }
        let payload = try JSONEncoder().encode(entry)
        if let batch = journal.handOver(entry: (.entry, [UInt8](payload))) { actions.writes.append(batch) }
    }
}
