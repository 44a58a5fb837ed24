import FitnessSensors
import Foundation
import Synchronization

/// The trainers a live recording controls and the target power a person asked for: every sensor whose transport can
/// write, through ``FitnessMachineControl`` (those that turn out to offer no control point are left alone), a first
/// target, then steps of ``step`` watts up or down. OpenHealthKit.
///
/// A first step with no target yet starts from the 3-second power rounded to ``step`` (``defaultStart`` without
/// one); every target is kept within 0…``maximum`` W, and each trainer's within the Supported Power Range it reports
/// (a target above it would be refused as an invalid parameter).
public final class TrainerTargets: Sendable {
    /// Watts one step changes the target by.
    public static let step = 10
    /// The highest target asked for (FTMS allows more; no trainer holds it).
    public static let maximum = 2000
    /// The target a first step starts from when no power has been read.
    public static let defaultStart = 100

    /// What happened to a trainer that is worth a line of its own.
    public enum Event: Sendable, Equatable, CustomStringConvertible {
        /// A trainer took a target.
        case targetSet(sensor: String, watts: Int)
        /// A trainer refused control (another app holds it); it is recorded from all the same.
        case refusedControl(sensor: String, code: FitnessMachineControlPoint.ResultCode)
        /// A request failed for another reason.
        case failed(sensor: String, error: FitnessMachineControlError)
        /// The trainer took control away (Control Permission Lost: another app took it, or its own buttons were
        /// used); the next target asks for it again.
        case lostControl(sensor: String)
        /// A target was asked for and no sensor offers a control point (said once).
        case noControlPoint

        /// The event as one sentence.
        public var description: String {
            switch self {
            case .targetSet(let sensor, let watts): "\(sensor): target power \(watts) W"
            case .refusedControl(let sensor, let code):
                "\(sensor) refused control (\(code)); recording from it without a target"
            case .failed(let sensor, let error): "\(sensor): \(error)"
            case .lostControl(let sensor):
                "\(sensor) took control back (another app, or its own buttons); the next target asks for it again"
            case .noControlPoint: TrainerTargets.noControlPointNotice
            }
        }
    }

    static let noControlPointNotice = "No sensor offers a fitness machine control point: the target power is not set."

    /// One control per sensor that can be written to.
    public let controls: [FitnessMachineControl]

    private struct State {
        var target: Int?
        var noticed = false
        var events: (@Sendable (Event) -> Void)?
    }
    private let state = Mutex(State())

    /// Controls for every sensor among `sensors` that can be written to, on `clock` (their requests' timeouts).
    public init(sensors: [any Sensor], clock: any Clock<Duration>) {
        controls = sensors.compactMap { $0 as? any ControllableSensor }.map {
            FitnessMachineControl(sensor: $0, clock: clock)
        }
    }

    /// Starts watching every trainer and asks for `target` when given; `events` hears each ``Event`` and `changed`
    /// that a trainer's state changed (after its event, if any).
    public func start(
        target: Int?, events: @escaping @Sendable (Event) -> Void, changed: @escaping @Sendable () -> Void
    ) {
        state.withLock { $0.events = events }
        for control in controls {
            let name = control.sensor.name
            control.start { [control, self] event in
                defer { changed() }
                switch event {
                case .connected(offersControl: false): self.noteIfUncontrollable()
                case .accepted(.setTargetPower(let watts)): events(.targetSet(sensor: name, watts: Int(watts)))
                case .status(let status) where status.isControlPermissionLost: events(.lostControl(sensor: name))
                case .failed(let error) where error.reason != .notControllable:
                    if error.request == FitnessMachineControlPoint.Request.requestControl.summary,
                        case .refused(let code) = error.reason
                    {
                        events(.refusedControl(sensor: name, code: code))
                    } else if control.state.refusedControl == nil {
                        // (The targets queued behind a refused Request Control fail with it: one event says it all.)
                        events(.failed(sensor: name, error: error))
                    }
                default: break
                }
            }
        }
        if let target { set(target) }
    }

    /// The target asked for last, if any.
    public var target: Int? { state.withLock { $0.target } }

    /// Raises (positive) or lowers the target by `steps` steps, from the current target or, with none yet, from
    /// `power` (the 3-second power) rounded to ``step``.
    public func change(by steps: Int, from power: Double?) {
        let current = target ?? power.map { Int(($0 / Double(Self.step)).rounded()) * Self.step }
        set((current ?? Self.defaultStart) + steps * Self.step)
    }

    /// Holds `watts` (within 0…``maximum``) on every trainer: what a running plan asks for.
    public func hold(_ watts: Int) { set(watts) }

    private func set(_ watts: Int) {
        let watts = watts.clamped(to: 0 ... Self.maximum)
        state.withLock { $0.target = watts }
        noteIfUncontrollable()
        for control in controls where control.state.offersControl != false {
            let held = control.state.supportedPowerRange.map(watts.clamped) ?? watts
            // Written (or queued) before this returns; the outcome arrives as an event (and in the control's state).
            control.requestTargetPower(held)
        }
    }

    /// When a target was asked for and every sensor turned out to offer no control point: one sentence saying so.
    public var notice: String? {
        guard target != nil, !controls.isEmpty, controls.allSatisfy({ $0.state.offersControl == false }) else {
            return nil
        }
        return Self.noControlPointNotice
    }

    /// Sends ``Event/noControlPoint`` the first time ``notice`` holds.
    private func noteIfUncontrollable() {
        guard notice != nil else { return }
        let events = state.withLock { state -> (@Sendable (Event) -> Void)? in
            defer { state.noticed = true }
            return state.noticed ? nil : state.events
        }
        events?(.noControlPoint)
    }

    /// The target powers every trainer that offers control takes (the overlap of their Supported Power Ranges), in
    /// watts; nil until one has reported its range, or when the ranges do not overlap.
    public var supportedPowerRange: ClosedRange<Int>? {
        let ranges = controls.compactMap { control -> ClosedRange<Int>? in
            let state = control.state
            return state.offersControl == false ? nil : state.supportedPowerRange
        }
        guard let lower = ranges.map(\.lowerBound).max(), let upper = ranges.map(\.upperBound).min() else { return nil }
        return lower <= upper ? lower ... upper : nil
    }

    /// Whether a trainer has a request written or queued that it has not answered yet (the `changed` closure given to
    /// ``start(target:events:changed:)`` hears when that changes, with the answer).
    public var isAwaitingAnswers: Bool { controls.contains { $0.state.isAwaitingAnswer } }

    /// The trainers that offer control, each with its control's state.
    public var controlled: [(name: String, state: FitnessMachineControl.State)] {
        controls.compactMap { control in
            let state = control.state
            guard state.offersControl == true else { return nil }
            return (control.sensor.name, state)
        }
    }

    /// Stops watching every trainer.
    public func close() {
        for control in controls { control.close() }
    }
}
