import FitnessSensors
import Foundation
import HealthKitModel

/// What a recording is told: one case for each thing its journal records, and the live inputs that are not
/// journaled (a sensor's reading and connection, the flush timer's tick). ``RecordingCore/apply(_:now:)`` takes
/// them, live from the builder's shell and, after a crash, decoded from the journal (``RecordingCore/replay(_:)``).
///
/// Dates are the wall clock's, as recorded; `time` is a reading's or a tick's wall time in seconds since the
/// reference date.
package enum RecordingInput {
    /// A sensor's reading on a channel, at its wall time.
    case reading(SensorReadingValue, channel: Int, time: Double)
    /// A channel's link changed.
    case connection(SensorConnectionState, channel: Int)
    /// The session changed state: readings are taken only while it runs.
    case sessionState(from: HKWorkoutSessionState, to: HKWorkoutSessionState, date: Date)
    /// `beginCollection(at:)`: the builder is collecting from `date`.
    case began(at: Date)
    /// A zoned type's zones, fixed when collection began.
    case zoneConfiguration(HKWorkoutZoneConfiguration)
    /// `endCollection(at:)`: collection stopped at `date`; an activity still open ends with it.
    case ended(at: Date)
    /// Workout events (the app's, or the session's pause and resume); zones are checked at `checkedAt`.
    case events([HKWorkoutEvent], checkedAt: Date)
    /// An activity began (the app's `addWorkoutActivity`, or the session's new activity).
    case activityBegan(RecordingCore.Activity)
    case activityEnded(uuid: UUID, at: Date)
    /// Metadata for an activity (not journaled: the journal has no entry for it).
    case activityMetadata(uuid: UUID, [String: Any])
    /// Metadata for the workout, merged as `addEntries(from:)` does.
    case metadata([String: Any])
    /// A sample that is not a quantity sample (a heartbeat series) was saved: associate it when finishing.
    case associated(UUID)
    /// Samples already made: an app's `addSamples`, or a journaled batch on recovery.
    case samples([CollectedSample])
    /// The flush timer's tick at wall time `time`: a journal batch may be due, a zone may have gone stale.
    case tick(time: Double)
}

extension RecordingCore {
    /// What the shell does after an input. A fixed set of slots rather than an array of actions, so a reading
    /// allocates nothing for them.
    package struct Actions {
        /// Hand these batches to the journal's writer, in order (under the lock, so that batches keep their order).
        package var writes: [JournalBatch] = []
        /// Raise (true) or release (false) the producers' back-pressure, after unlocking: the journal's backlog
        /// passed its bound while the writer is busy, or came back down (``JournalBuffer/behind``).
        package var pressure: Bool?
        /// A journal write failed earlier: report it.
        package var failure: (any Error)?
        /// Queue a delivery to the delegate queue (after unlocking).
        package var delivery: Deliveries.Scheduled?
        /// Tell the delegate, after the journal has the entries (each call takes what waits for delivery first).
        package var calls: [DelegateCall] = []
        /// Zone changes the input made that wait until the calls are queued (a pause's, after its event's call).
        package var zoneChanges: [ZoneChange] = []

        package static var none: Actions { Actions() }
    }

    /// A delegate call of another kind than `didCollectDataOf`.
    package enum DelegateCall: Equatable {
        case collectedEvents
        /// An activity began: the shell makes it up to the time it reports it at.
        case began(UUID)
        case ended(UUID)
    }

    /// An activity as the recording keeps it.
    package struct Activity: Sendable {
        package var uuid: UUID
        package var configuration: HKWorkoutConfiguration
        package var start: Date
        package var end: Date?
        /// Metadata values are property-list values and quantities, never changed once made.
        package nonisolated(unsafe) var metadata: [String: Any]?

        package init(
            uuid: UUID, configuration: HKWorkoutConfiguration, start: Date, end: Date?, metadata: [String: Any]? = nil
        ) {
            self.metadata = metadata
            self.uuid = uuid
            self.configuration = configuration
            self.start = start
            self.end = end
        }
    }
}
