import FitnessSensors
import Foundation
import OpenHealthKit

/// The trainers a recording controls (every sensor whose transport can write, through OpenHealthKit's
/// ``FitnessMachineControl``; those that turn out to offer no control point are left alone) and the target power a
/// person asked for: `--target-power` at the start, then `+` and `-`, ``step`` watts a press.
final class TrainerControls: @unchecked Sendable {
    /// Watts a press of `+` or `-` changes the target by.
    static let step = 10
    /// The highest target asked for (FTMS allows more; no trainer holds it).
    static let maximum = 2000
    /// The target a first press of `+` or `-` starts from when no power has been read.
    static let defaultStart = 100

    let controls: [FitnessMachineControl]
    private let lock = NSLock()
    private var target: Int?
    private var noticed = false
    private var note: (@Sendable (String) -> Void)?

    init(sensors: [any Sensor], clock: any Clock<Duration>) {
        controls = sensors.compactMap { $0 as? any ControllableSensor }.map {
            FitnessMachineControl(sensor: $0, clock: clock)
        }
    }

    /// Starts watching every trainer; `note` hears a line per event worth printing (a target taken, a refusal),
    /// `changed` that one of them changed (after `note`).
    func start(
        target: Int?, note: @escaping @Sendable (String) -> Void, changed: @escaping @Sendable () -> Void
    ) {
        lock.withLock { self.note = note }
        for control in controls {
            let name = control.sensor.name
            control.start { [control, self] event in
                defer { changed() }
                switch event {
                case .connected(offersControl: false): self.noteIfUncontrollable()
                case .accepted(.setTargetPower(let watts)): note("\(name): target power \(watts) W")
                case .failed(let error) where error.reason != .notControllable:
                    if error.request == FitnessMachineControlPoint.Request.requestControl.summary,
                        case .refused(let code) = error.reason
                    {
                        note("\(name) refused control (\(code)); recording from it without a target")
                    } else if control.state.refusedControl == nil {
                        // (The targets queued behind a refused Request Control fail with it: one line says it all.)
                        note("\(name): \(error)")
                    }
                default: break
                }
            }
        }
        if let target { set(target) }
    }

    /// Raises (positive) or lowers the target by `steps` presses, from the current target or, with none yet, from
    /// `power` (the 3-second power) rounded to ``step``.
    func change(by steps: Int, from power: Double?) {
        let current = lock.withLock { target } ?? power.map { Int(($0 / Double(Self.step)).rounded()) * Self.step }
        set((current ?? Self.defaultStart) + steps * Self.step)
    }

    private func set(_ watts: Int) {
        let watts = min(max(watts, 0), Self.maximum)
        lock.withLock { target = watts }
        noteIfUncontrollable()
        for control in controls where control.state.offersControl != false {
            // The outcome arrives as an event (and in the control's state, which the view shows).
            Task { try? await control.setTargetPower(watts) }
        }
    }

    /// When a target was asked for and every sensor turned out to offer no control point: one sentence saying so.
    var notice: String? {
        guard lock.withLock({ target }) != nil, !controls.isEmpty,
            controls.allSatisfy({ $0.state.offersControl == false })
        else { return nil }
        return "No sensor offers a fitness machine control point: the target power is not set."
    }

    /// Notes ``notice`` the first time it holds.
    private func noteIfUncontrollable() {
        guard let notice else { return }
        let note = lock.withLock { () -> (@Sendable (String) -> Void)? in
            defer { noticed = true }
            return noticed ? nil : self.note
        }
        note?(notice)
    }

    /// What the live view shows of each trainer that offers control.
    func lines() -> [LiveSnapshot.MachineLine] {
        controls.compactMap { control in
            let state = control.state
            guard state.offersControl == true else { return nil }
            return LiveSnapshot.MachineLine(name: control.sensor.name, state: state)
        }
    }

    func close() {
        for control in controls { control.close() }
    }
}
