import Foundation
import HealthKitModel

/// The states of a workout session, with HealthKit's raw values. HealthKit: HKWorkoutSessionState.
public enum HKWorkoutSessionState: Int, Sendable, Hashable, CaseIterable {
    case notStarted = 1
    case running = 2
    case ended = 3
    case paused = 4
    case prepared = 5
    case stopped = 6

    /// The state's name, as a person reads it.
    public var name: String {
        switch self {
        case .notStarted: "not started"
        case .running: "running"
        case .ended: "ended"
        case .paused: "paused"
        case .prepared: "prepared"
        case .stopped: "stopped"
        }
    }
}

/// Whether a session is the primary one or mirrored from another device. HealthKit: HKWorkoutSessionType.
public enum HKWorkoutSessionType: Int, Sendable, Hashable {
    case primary = 0
    case mirrored = 1
}

/// The session's state machine, as a value: each request returns what the session must do.
///
/// Transitions follow HealthKit's table (prepare, start, pause, resume, stop, end, and a failure, which ends the
/// session from any state); a request the table does not allow is ignored and reported as such, never an error.
/// Stopped and ended are terminal for the running states: a stopped session can only end.
package struct SessionStateMachine: Sendable, Equatable {
    package enum Request: String, Sendable {
        case prepare, start, pause, resume, stop, end, fail
    }

    package enum Action: Equatable, Sendable {
        /// The state changed at `date`.
        case transition(from: HKWorkoutSessionState, to: HKWorkoutSessionState, date: Date)
        /// The session generates a workout event (pause or resume) at `date`.
        case generate(HKWorkoutEventType, date: Date)
        /// The request is not allowed in the current state and changes nothing.
        case ignored(Request, HKWorkoutSessionState)
    }

    package private(set) var state: HKWorkoutSessionState = .notStarted
    package private(set) var startDate: Date?
    package private(set) var endDate: Date?

    package init() {}

    /// Restores a machine in a known state (crash recovery).
    package init(state: HKWorkoutSessionState, startDate: Date?, endDate: Date?) {
        self.state = state
        self.startDate = startDate
        self.endDate = endDate
    }

    /// Follows a change the session made and the journal recorded: the state, when it first ran, when it ended.
    package mutating func record(_ state: HKWorkoutSessionState, at date: Date) {
        self.state = state
        if state == .running && startDate == nil { startDate = date }
        if state == .ended { endDate = date }
    }

    package static func target(of request: Request, from state: HKWorkoutSessionState) -> HKWorkoutSessionState? {
        switch (state, request) {
        case (.notStarted, .prepare): .prepared
        case (.notStarted, .start), (.prepared, .start): .running
        case (.running, .pause): .paused
        case (.paused, .resume): .running
        case (.running, .stop), (.paused, .stop): .stopped
        case (.prepared, .end), (.running, .end), (.paused, .end), (.stopped, .end): .ended
        case (.notStarted, .fail), (.prepared, .fail), (.running, .fail), (.paused, .fail), (.stopped, .fail): .ended
        default: nil
        }
    }

    /// Handles a request made at `date`.
    package mutating func handle(_ request: Request, at date: Date) -> [Action] {
        guard let target = Self.target(of: request, from: state) else { return [.ignored(request, state)] }
        let from = state
        state = target
        var actions: [Action] = []
        switch request {
        case .pause: actions.append(.generate(.pause, date: date))
        case .resume: actions.append(.generate(.resume, date: date))
        default: break
        }
        if target == .running && startDate == nil { startDate = date }
        if target == .ended { endDate = date }
        actions.insert(.transition(from: from, to: target, date: date), at: 0)
        return actions
    }

    /// Takes the state another machine reached (a mirrored session following its primary, whose machine already
    /// applied HealthKit's table): no check, one transition unless the state is already `target`.
    package mutating func follow(to target: HKWorkoutSessionState, at date: Date) -> [Action] {
        guard target != state else { return [] }
        let from = state
        state = target
        if target == .running && startDate == nil { startDate = date }
        if target == .ended { endDate = date }
        return [.transition(from: from, to: target, date: date)]
    }

    /// Whether the session has started and not yet stopped or ended: activities may begin and sensors deliver.
    package var isActive: Bool { state == .running || state == .paused }
}
