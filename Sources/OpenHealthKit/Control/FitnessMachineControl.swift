import FitnessSensors
import Foundation
import HealthKitModel
import Synchronization
import WorkoutEngine

/// Controls a fitness machine — a smart trainer's target power (ERG), resistance level or simulated grade — over its
/// Fitness Machine Control Point, while its readings are recorded as usual.
///
/// A thin shell over the pure `FitnessMachineController`: it writes the requests the controller asks for through
/// the sensor's `ControllableSensor.writeWithResponse(_:to:)`, hands it the control point's indications and the
/// machine's status from `ControllableSensor.watchControlLink(_:)`, and, while a request waits, sleeps on an
/// injected clock so that a request the machine never answers fails after
/// `FitnessMachineController.responseTimeout`.
///
/// ```swift
/// let control = FitnessMachineControl(sensor: trainer)
/// control.start { event in print(event) }
/// try await control.setTargetPower(200)     // asks for control first; throws the machine's refusal
/// ```
///
/// - A target asked for before the machine is connected is kept and asked for once it connects, as is the last
///   target after a reconnection (a machine forgets its client when the link drops): the call then returns at once
///   and the machine's answer arrives as an ``Event``. A kept target is asked for within the machine's Supported
///   Power Range (``State/supportedPowerRange``, read at each connection); one asked for while connected is sent as
///   it is, and a machine refuses one outside its range as an invalid parameter.
/// - A machine that refuses control is still recorded from: control only writes to its control point.
/// - The machine's result codes other than success are thrown as `FitnessMachineControlError`
///   (`.refused(.controlNotPermitted)`, …), and reported as ``Event/failed(_:)``.
///
/// OpenHealthKit: HealthKit has no control of fitness machines. Bluetooth FTMS 1.0 §4.16.
public final class FitnessMachineControl: Sendable {
    public typealias Request = FitnessMachineControlPoint.Request

    /// What happened, for a display.
    public enum Event: Sendable, Equatable {
        /// The link came up; whether the machine offers a control point.
        case connected(offersControl: Bool)
        case disconnected
        /// The machine accepted a request.
        case accepted(Request)
        /// A request failed (refused, unanswered, not sent) or the machine answered one never sent.
        case failed(FitnessMachineControlError)
        /// The machine announced a status (Fitness Machine Status, 0x2ADA).
        case status(FitnessMachineStatus)
    }

    /// Where control stands.
    public struct State: Sendable, Equatable {
        /// Whether the link is up.
        public var isConnected = false
        /// Whether the machine offers a control point; nil until it first connects.
        public var offersControl: Bool?
        /// Whether the machine granted control.
        public var hasControl = false
        /// The target power the machine accepted last, in watts (nil after a reset or stop).
        public var targetPower: Int?
        /// The target power asked for last, in watts: asked for again after a reconnection.
        public var requestedTargetPower: Int?
        /// The last failure, cleared when a request is accepted.
        public var lastError: FitnessMachineControlError?
        /// The machine's answer when it refused control (another app holds it, say); nil once control is granted.
        /// It is still recorded from.
        public var refusedControl: FitnessMachineControlPoint.ResultCode?
        /// The target powers the machine takes, in watts, from its Supported Power Range (0x2AD8) as read at its last
        /// connection; nil until read (a machine without the characteristic never says).
        public var supportedPowerRange: ClosedRange<Int>?
        /// Whether a request was written (or is queued behind one) and the machine has not answered it yet.
        public var isAwaitingAnswer = false
    }

    public let sensor: any ControllableSensor
    private let clock: any Clock<Duration>
    private let seconds: @Sendable () -> Double
    /// What changes, under one lock.
    private struct Locked {
        var controller = FitnessMachineController()
        var current = State()
        var handler: (@Sendable (Event) -> Void)?
        var waiters: [(request: Request, continuation: CheckedContinuation<Void, any Error>)] = []
        /// Fails the request written last when it is not answered in time; runs only while a request waits, so an
        /// idle control has nothing asleep on the clock.
        var timeout: Task<Void, Never>?
    }
    private let locked = Mutex(Locked())

    /// Creates a control for `sensor`; nothing happens until ``start(_:)``.
    ///
    /// - Parameters:
    ///   - sensor: The trainer's connection: writes to its control point and hears its indications and link changes.
    ///   - clock: What request timeouts are measured on.
    public init(sensor: any ControllableSensor, clock: any Clock<Duration> = ContinuousClock()) {
        self.sensor = sensor
        self.clock = clock
        seconds = Self.seconds(on: clock)
    }

    deinit { locked.withLock { $0.timeout?.cancel() } }

    /// Where control stands now.
    public var state: State { locked.withLock { $0.current } }

    /// Begins watching the sensor's link and delivering events to `handler` (the sensor itself is started by the
    /// data source, as for any sensor).
    public func start(_ handler: @escaping @Sendable (Event) -> Void = { _ in }) {
        locked.withLock { $0.handler = handler }
        sensor.watchControlLink { [weak self] event in self?.linkEvent(event) }
    }

    /// Stops watching; requests still waiting fail with `.noResponse`. The machine keeps its last target.
    public func close() {
        sensor.watchControlLink(nil)
        let (task, pending) = locked.withLock { locked in
            defer {
                locked.timeout = nil
                locked.handler = nil
                locked.waiters.removeAll()
            }
            return (locked.timeout, locked.waiters)
        }
        task?.cancel()
        for waiter in pending {
            waiter.continuation.resume(
                throwing: FitnessMachineControlError(request: waiter.request.summary, reason: .noResponse))
        }
    }

    // MARK: Requests

    /// Asks the machine for control (Request Control, 0x00).
    public func requestControl() async throws { try await send(.requestControl) }

    /// Sets the target power in watts (ERG, 0x05), asking for control first when needed.
    public func setTargetPower(_ watts: Int) async throws {
        try await send(try targetPowerRequest(watts), keptUntilConnected: true)
    }

    /// Asks for a target power in watts (ERG, 0x05) as ``setTargetPower(_:)`` does, without waiting: by the time it
    /// returns the request is written or queued (``State/isAwaitingAnswer``), or kept until the machine connects,
    /// and the machine's answer arrives as an ``Event``, as does a target that cannot be asked for.
    public func requestTargetPower(_ watts: Int) {
        do {
            let request = try targetPowerRequest(watts)
            guard try isReady(for: request, keptUntilConnected: true) else { return }
            perform { $0.controller.send(request, at: seconds()) }
        } catch {
            emit(.failed(error))
        }
    }

    /// The request for a target power of `watts`, now the target asked for (and asked for again after a
    /// reconnection); a target no request can carry is refused as an invalid parameter.
    private func targetPowerRequest(_ watts: Int) throws(FitnessMachineControlError) -> Request {
        guard let value = Int16(exactly: watts), value >= 0 else {
            throw FitnessMachineControlError(
                request: "set target power to \(watts) W", reason: .refused(.invalidParameter))
        }
        locked.withLock { $0.current.requestedTargetPower = watts }
        return .setTargetPower(value)
    }

    /// Sets the resistance level (0x04), in the machine's own unitless steps with a resolution of 0.1.
    public func setResistanceLevel(_ level: Double) async throws {
        guard let value = UInt8(exactly: (level * 10).rounded()) else {
            throw FitnessMachineControlError(
                request: "set target resistance level to \(level)", reason: .refused(.invalidParameter))
        }
        try await send(.setTargetResistanceLevel(value))
    }

    /// Simulates riding up (or down) a grade in percent (Set Indoor Bike Simulation Parameters, 0x11), with no wind,
    /// a rolling resistance coefficient of 0.004 and a wind resistance coefficient of 0.51 kg/m.
    public func setSimulatedGrade(_ percent: Double) async throws {
        guard let grade = Int16(exactly: (percent * 100).rounded()) else {
            throw FitnessMachineControlError(
                request: "set simulated grade to \(percent) %", reason: .refused(.invalidParameter))
        }
        try await send(.setIndoorBikeSimulation(windSpeed: 0, grade: grade, rollingResistance: 40, windResistance: 51))
    }

    /// Stops the machine (Stop or Pause with Stop, 0x08 01): a trainer drops its target.
    public func stop() async throws {
        locked.withLock { $0.current.requestedTargetPower = nil }
        try await send(.stopOrPause(1))
    }

    /// Sends a request and waits for the machine's answer.
    private func send(_ request: Request, keptUntilConnected: Bool = false) async throws {
        guard try isReady(for: request, keptUntilConnected: keptUntilConnected) else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            perform { locked in
                locked.waiters.append((request, continuation))
                return locked.controller.send(request, at: seconds())
            }
        }
    }

    /// Whether `request` can be written now: false when the machine is not connected and the request is kept for
    /// its connection; throws when the machine offers no control point, or is not connected and nothing is kept.
    private func isReady(
        for request: Request, keptUntilConnected: Bool
    ) throws(FitnessMachineControlError) -> Bool {
        let state = self.state
        if state.offersControl == false {
            throw FitnessMachineControlError(request: request.summary, reason: .notControllable)
        }
        if !state.isConnected {
            if keptUntilConnected { return false }
            throw FitnessMachineControlError(request: request.summary, reason: .writeFailed("it is not connected."))
        }
        return true
    }

    // MARK: The shell

    private func linkEvent(_ event: ControlLinkEvent) {
        switch event {
        case .connected(let offersControl):
            let target = locked.withLock { locked -> Int? in
                locked.current.isConnected = true
                locked.current.offersControl = offersControl
                guard offersControl, let target = locked.current.requestedTargetPower else { return nil }
                // A target kept from before the machine said its range (read just before this) is asked for within it.
                return locked.current.supportedPowerRange.map(target.clamped) ?? target
            }
            emit(.connected(offersControl: offersControl))
            if let target, let value = Int16(exactly: target) {
                perform { $0.controller.send(.setTargetPower(value), at: seconds()) }
            }
        case .disconnected:
            let pending = locked.withLock { locked in
                defer { locked.waiters.removeAll() }
                locked.controller.disconnected()
                locked.current.isConnected = false
                locked.current.hasControl = false
                locked.current.isAwaitingAnswer = false
                return locked.waiters
            }
            for waiter in pending {
                waiter.continuation.resume(
                    throwing: FitnessMachineControlError(request: waiter.request.summary, reason: .noResponse))
            }
            emit(.disconnected)
        case .value(GATTAssignedNumbers.Characteristic.fitnessMachineControlPoint, let bytes):
            // A malformed answer is counted and logged by the sensor; the request then times out.
            guard let response = try? FitnessMachineControlPoint.Response(bytes: bytes) else { return }
            perform { $0.controller.received(response, at: seconds()) }
        case .value(GATTAssignedNumbers.Characteristic.fitnessMachineStatus, let bytes):
            guard let status = try? FitnessMachineStatus(bytes: bytes) else { return }
            locked.withLock { locked in
                locked.controller.received(status)
                locked.current.hasControl = locked.controller.hasControl
                locked.current.targetPower = locked.controller.targetPower
            }
            emit(.status(status))
        case .value(GATTAssignedNumbers.Characteristic.supportedPowerRange, let bytes):
            // A range whose minimum is above its maximum is refused by the decoder: the machine's range stays unknown.
            guard let range = try? SupportedPowerRange(bytes: bytes) else { return }
            locked.withLock { $0.current.supportedPowerRange = range.minimum ... range.maximum }
        case .value: break
        }
    }

    /// Runs `change` on the controller under the lock, then carries out its step: resumes the waiters it answers,
    /// reports, and writes the next request.
    private func perform(_ change: (inout Locked) -> FitnessMachineController.Step) {
        let (step, handler, resumes) = locked.withLock {
            locked -> (
                FitnessMachineController.Step, (@Sendable (Event) -> Void)?,
                [(CheckedContinuation<Void, any Error>, (any Error)?)]
            ) in
            var resumes: [(CheckedContinuation<Void, any Error>, (any Error)?)] = []
            let step = change(&locked)
            for replaced in step.superseded {
                // A target replaced before it was sent: its caller waits for the one that replaced it.
                if let index = locked.waiters.firstIndex(where: { $0.request == replaced }),
                    let newer = locked.waiters.last(where: { $0.request.opCode == replaced.opCode })
                {
                    locked.waiters[index].request = newer.request
                }
            }
            for request in step.succeeded {
                while let index = locked.waiters.firstIndex(where: { $0.request == request }) {
                    resumes.append((locked.waiters.remove(at: index).continuation, nil))
                }
            }
            for error in step.errors {
                if let index = locked.waiters.firstIndex(where: { $0.request.summary == error.request }) {
                    resumes.append((locked.waiters.remove(at: index).continuation, error))
                }
            }
            locked.current.hasControl = locked.controller.hasControl
            locked.current.targetPower = locked.controller.targetPower
            locked.current.isAwaitingAnswer = !locked.controller.isIdle
            if locked.controller.hasControl { locked.current.refusedControl = nil }
            for error in step.errors where error.request == Request.requestControl.summary {
                if case .refused(let code) = error.reason { locked.current.refusedControl = code }
            }
            if !step.succeeded.isEmpty { locked.current.lastError = nil }
            if let last = step.errors.last { locked.current.lastError = last }
            if step.write != nil || locked.controller.pending == nil {
                locked.timeout?.cancel()
                locked.timeout = nil
            }
            if step.write != nil {
                locked.timeout = Task { [weak self, clock] in
                    do { try await clock.sleep(for: .seconds(FitnessMachineController.responseTimeout)) } catch {
                        return
                    }
                    guard let self else { return }
                    self.perform { $0.controller.tick(at: self.seconds()) }
                }
            }
            return (step, locked.handler, resumes)
        }
        for (continuation, error) in resumes {
            if let error { continuation.resume(throwing: error) } else { continuation.resume() }
        }
        for request in step.succeeded { handler?(.accepted(request)) }
        for error in step.errors { handler?(.failed(error)) }
        if let request = step.write { write(request) }
    }

    private func write(_ request: Request) {
        let sensor = self.sensor
        Task {
            do {
                try await sensor.writeWithResponse(
                    request.encode(), to: GATTAssignedNumbers.Characteristic.fitnessMachineControlPoint)
            } catch {
                perform { $0.controller.writeFailed(.writeFailed("\(error)"), at: seconds()) }
            }
        }
    }

    private func emit(_ event: Event) {
        let handler = locked.withLock { $0.handler }
        handler?(event)
    }

    private static func seconds<C: Clock>(on clock: C) -> @Sendable () -> Double where C.Duration == Duration {
        let origin = clock.now
        return {
            let elapsed = origin.duration(to: clock.now).components
            return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        }
    }
}
