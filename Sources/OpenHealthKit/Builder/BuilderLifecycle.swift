import Foundation

/// A workout builder's lifecycle as a value: not started → active → ended → finished, or discarded from any of
/// the first three. Calls out of order fail with `errorInvalidArgument`, as HealthKit's do.
///
/// HealthKit: HKWorkoutBuilder (beginCollection, endCollection, finishWorkout, discardWorkout).
struct BuilderLifecycle: Sendable, Equatable {
    enum Phase: Int, Sendable, Equatable {
        case notStarted = 0
        case active = 1
        case ended = 2
        case finished = 3
        case discarded = 4
    }

    private(set) var phase: Phase = .notStarted
    private(set) var startDate: Date?
    private(set) var endDate: Date?

    init() {}

    init(phase: Phase, startDate: Date?, endDate: Date?) {
        self.phase = phase
        self.startDate = startDate
        self.endDate = endDate
    }

    mutating func begin(at date: Date) throws {
        guard phase == .notStarted else {
            throw HKError(.errorInvalidArgument, "Collection has already begun for this workout builder.")
        }
        phase = .active
        startDate = date
    }

    mutating func end(at date: Date) throws {
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

    mutating func finish() throws {
        guard phase == .ended else {
            throw HKError(
                .errorInvalidArgument,
                phase == .finished || phase == .discarded
                    ? "The workout builder has already been \(phase == .finished ? "finished" : "discarded")."
                    : "The workout cannot be finished before collection has ended.")
        }
        phase = .finished
    }

    mutating func discard() {
        if phase != .finished { phase = .discarded }
    }

    /// Throws unless samples, events, metadata or activities may still be added.
    func checkCanAdd(_ what: String) throws {
        switch phase {
        case .finished: throw HKError(.errorInvalidArgument, "Cannot add \(what) to a finished workout builder.")
        case .discarded: throw HKError(.errorInvalidArgument, "Cannot add \(what) to a discarded workout builder.")
        default: return
        }
    }

    /// Running time between pause and resume events, from the start to `date` (clamped to the end).
    func elapsedTime(at date: Date, events: [HKWorkoutEvent]) -> TimeInterval {
        guard let startDate, date > startDate else { return 0 }
        let until = endDate.map { min($0, date) } ?? date
        return WorkoutPauses.runningTime(from: startDate, to: until, events: events)
    }
}
