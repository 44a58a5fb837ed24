import Foundation
import HealthKitModel

/// A workout builder's lifecycle as a value: not started → active → ended → finished, or discarded from any of
/// the first three. Calls out of order fail with `errorInvalidArgument`, as HealthKit's do.
///
/// HealthKit: HKWorkoutBuilder (beginCollection, endCollection, finishWorkout, discardWorkout).
package struct BuilderLifecycle: Sendable, Equatable {
    package enum Phase: Int, Sendable, Equatable {
        case notStarted = 0
        case active = 1
        case ended = 2
        case finished = 3
        case discarded = 4
    }

    package private(set) var phase: Phase = .notStarted
    package private(set) var startDate: Date?
    package private(set) var endDate: Date?

    package init() {}

    package init(phase: Phase, startDate: Date?, endDate: Date?) {
        self.phase = phase
        self.startDate = startDate
        self.endDate = endDate
    }

    package mutating func begin(at date: Date) throws {
        guard phase == .notStarted else {
            throw HKError(.errorInvalidArgument, "Collection has already begun for this workout builder.")
        }
        phase = .active
        startDate = date
    }

    package mutating func end(at date: Date) throws {
        guard phase == .active, let startDate else {
            throw HKError(
                .errorInvalidArgument,
                phase == .notStarted
                    ? "Collection cannot end before it has begun."
                    : "Collection is not active for this workout builder.")
        }
        guard date > startDate else {
            throw HKError(.errorInvalidArgument, "The end date \(date) must be after the start date \(startDate).")
        }
        phase = .ended
        endDate = date
    }

    package mutating func finish() throws {
        guard phase == .ended else {
            throw HKError(
                .errorInvalidArgument,
                phase == .finished || phase == .discarded
                    ? "The workout builder has already been \(phase == .finished ? "finished" : "discarded")."
                    : "The workout cannot be finished before collection has ended.")
        }
        phase = .finished
    }

    package mutating func discard() {
        if phase != .finished { phase = .discarded }
    }

    /// Throws unless samples, events, metadata or activities may still be added.
    package func checkCanAdd(_ what: String) throws {
        switch phase {
        case .finished: throw HKError(.errorInvalidArgument, "Cannot add \(what) to a finished workout builder.")
        case .discarded: throw HKError(.errorInvalidArgument, "Cannot add \(what) to a discarded workout builder.")
        default: return
        }
    }

    /// Running time between pause and resume events, from the start to `date` (clamped to the end).
    package func elapsedTime(at date: Date, events: [HKWorkoutEvent]) -> TimeInterval {
        guard let startDate, date > startDate else { return 0 }
        let until = endDate.map { min($0, date) } ?? date
        return WorkoutPauses.runningTime(from: startDate, to: until, events: events)
    }
}
