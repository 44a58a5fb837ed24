import Foundation
import HealthKitModel

/// What the recording hands to the delegate queue. Readings come far faster than a delegate needs to hear of them,
/// so the types collected and the zone changes wait here and go in one delivery: one wake of the delegate queue,
/// and one `didCollectDataOf` naming every type, for a burst.
///
/// The first item after a delivery schedules the next one: at once if the last delivery was due `spacing` or more
/// ago, else `spacing` after it (spaced from when it was due, not from when it ran, so a delegate queue that woke
/// late once does not delay the readings after it). A delegate call of another kind (an event, an activity) takes
/// what waits when it is queued and delivers it first, and the scheduled delivery's ticket is void from then on:
/// items collected after that call are delivered after it, never before.
///
/// A pure value: the time is passed in (the shell's monotonic clock), and the shell carries out the schedule.
package struct Deliveries {
    /// The codes of the types collected since the last delivery (a handful: a list beats hashing per reading).
    package private(set) var types: [UInt16] = []
    package private(set) var zoneChanges: [ZoneChange] = []
    /// The ticket of the delivery queued, if any.
    private var scheduledTicket: UInt64?
    private var lastTicket: UInt64 = 0
    /// When the last delivery was due, on the shell's monotonic clock.
    private var lastDue: Duration?
    /// The shortest time between two deliveries.
    package let spacing: Duration
    /// The subscribers to `zoneUpdates`.
    package var listeners: [UUID: AsyncStream<HKLiveWorkoutZoneUpdate>.Continuation] = [:]

    package init(spacing: Duration) {
        self.spacing = spacing
    }

    /// A delivery to run on the delegate queue once the monotonic clock reads `deadline`.
    package struct Scheduled: Equatable {
        package var ticket: UInt64
        package var deadline: Duration
    }

    package struct Due {
        package var types: [UInt16] = []
        package var zoneChanges: [ZoneChange] = []
        package var listeners: [AsyncStream<HKLiveWorkoutZoneUpdate>.Continuation] = []
        package var isEmpty: Bool { types.isEmpty && zoneChanges.isEmpty }
    }

    /// Adds a type's code unless it is there.
    package mutating func notePending(_ code: UInt16) {
        if !types.contains(code) { types.append(code) }
    }

    package mutating func noteZoneChanges(_ changes: [ZoneChange]) {
        zoneChanges.append(contentsOf: changes)
    }

    /// Schedules a delivery unless one is scheduled or nothing waits.
    package mutating func schedule(now: Duration) -> Scheduled? {
        guard scheduledTicket == nil, !types.isEmpty || !zoneChanges.isEmpty else { return nil }
        lastTicket &+= 1
        scheduledTicket = lastTicket
        let due = lastDue.map { max(now, $0 + spacing) } ?? now
        lastDue = due
        return Scheduled(ticket: lastTicket, deadline: due)
    }

    /// What a scheduled delivery delivers: everything waiting, or nothing if a call of another kind took it.
    package mutating func take(scheduled ticket: UInt64) -> Due {
        guard scheduledTicket == ticket else { return Due() }
        return takeAll()
    }

    /// Everything waiting; the scheduled delivery, if any, is void.
    package mutating func takeAll() -> Due {
        scheduledTicket = nil
        guard !types.isEmpty || !zoneChanges.isEmpty else { return Due() }
        defer {
            types.removeAll(keepingCapacity: true)
            zoneChanges.removeAll(keepingCapacity: true)
        }
        return Due(
            types: types, zoneChanges: zoneChanges, listeners: zoneChanges.isEmpty ? [] : Array(listeners.values))
    }
}
