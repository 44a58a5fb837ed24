import FitnessSensors
import Foundation
import OpenHealthKit
import Synchronization

/// A smart trainer in the test's own process: a sensor a live recording records from and controls, as it does a
/// Bluetooth trainer, driven by the test one record at a time. OpenHealthKitTesting.
///
/// It is the trainer `workout peripheral --profile smart-trainer` simulates, without a socket: power follows the ERG
/// target with the lag of `SmartTrainerSignal`; its Indoor Bike Data goes through the decoders the Bluetooth paths use
/// (`SensorReadingInterpreter`, More Data records joined); its control point answers as that peripheral's does
/// (`SimulatedControlPoint`), the answer indicated and a new target announced on Fitness Machine Status.
///
/// ```swift
/// let trainer = SimulatedSmartTrainer(clock: clock)
/// store.sensorConnector = SensorConnector(schemes: ["simulated"]) { _ in trainer }
/// try await store.pairSensor(trainer.pairedSensor)
/// // … start a LiveRecording with a plan, then, every half second of the test's clock:
/// clock.advance(by: .milliseconds(500))
/// trainer.ride()
/// ```
public final class SimulatedSmartTrainer: ControllableSensor {
    public typealias Request = FitnessMachineControlPoint.Request
    public typealias ResultCode = FitnessMachineControlPoint.ResultCode

    public let identifier: String
    public let name: String
    public var capabilities: SensorCapabilities { .fitnessMachine }
    public let deviceInformation = DeviceInformation(
        manufacturerName: "OpenHealthKit", modelNumber: "Simulated smart trainer")
    /// Seconds between two records (``ride()`` sends one).
    public let interval: Double
    private let date: @Sendable () -> Date
    private let outlet = SensorOutlet()

    private struct State {
        var signal: SmartTrainerSignal
        var controlPoint = SimulatedControlPoint()
        var interpreter = SensorReadingInterpreter()
        var link: (@Sendable (ControlLinkEvent) -> Void)?
        var isConnected = true
        var requests: [(Request, ResultCode)] = []
        var readingsSent = 0
    }
    private let state: Mutex<State>

    /// A trainer whose events are stamped with `clock`'s wall time.
    ///
    /// - Parameters:
    ///   - identifier: Its identifier; a store's connector for the `simulated` scheme hands it out.
    ///   - name: Its name for people.
    ///   - clock: The test's clock, whose wall time stamps what the trainer sends.
    ///   - powerRange: The targets it takes, in watts (its Supported Power Range, 0x2AD8); others it refuses.
    ///   - interval: Seconds between its records (half a second, as trainers send Indoor Bike Data).
    public init(
        identifier: String = "simulated:trainer", name: String = "Simulated trainer", clock: TestClock,
        powerRange: ClosedRange<Int> = 0 ... 2000, interval: Double = 0.5
    ) {
        self.identifier = identifier
        self.name = name
        self.interval = interval
        date = { clock.date }
        var signal = SmartTrainerSignal(interval: interval)
        signal.powerRange = powerRange
        state = Mutex(State(signal: signal))
    }

    /// The trainer as a store pairs it (its identifier's scheme is `simulated`).
    public var pairedSensor: PairedSensor {
        PairedSensor(identifier: identifier, name: name, capabilities: capabilities)
    }

    public func start(_ handler: @escaping @Sendable (SensorEvent) -> Void) { outlet.start(handler) }

    public func start(_ handler: @escaping @Sendable (SensorEvent) -> Void, backPressure: SensorBackPressure) {
        outlet.start(handler, backPressure: backPressure)
    }

    public func stop() { outlet.stop() }

    /// Returns once the recording has caught up with what the trainer sent (a ride run as fast as the machine goes
    /// awaits it between records).
    nonisolated(nonsending) public func waitForDemand() async { await outlet.waitForDemand() }

    /// The power the trainer holds now, in watts (before its pedalling ripple).
    public var power: Double { state.withLock { $0.signal.power } }
    /// The target it follows, in watts.
    public var targetPower: Double { state.withLock { $0.signal.targetPower } }
    /// How many readings its records gave the recording (power, cadence, speed and distance each count one).
    public var readingsSent: Int { state.withLock { $0.readingsSent } }
    /// The control point requests it received, in order, with its answers.
    public var controlRequests: [(request: Request, result: ResultCode)] {
        state.withLock { $0.requests.map { (request: $0.0, result: $0.1) } }
    }

    /// One record of riding, stamped with the clock's time now: the next Indoor Bike Data (and, every tenth record,
    /// the rest of it in a second notification), decoded as a Bluetooth path decodes it. Returns false when the
    /// recording has not started the trainer, or its link is down.
    @discardableResult
    public func ride() -> Bool {
        let now = date()
        let readings = state.withLock { state -> [SensorReadingValue]? in
            guard state.isConnected else { return nil }
            var parts = [state.signal.next()]
            if parts[0].hasMoreData { parts.append(state.signal.next()) }
            let seconds = now.timeIntervalSinceReferenceDate
            return parts.flatMap { state.interpreter.readings(from: .indoorBikeData($0), at: seconds) }
        }
        guard let readings, outlet.isStarted else { return false }
        for reading in readings { outlet.send(.reading(reading, at: now)) }
        state.withLock { $0.readingsSent += readings.count }
        return true
    }

    /// The link drops now: the recording hears it, the control link goes down, and the trainer forgets who held
    /// control (as a machine does).
    public func drop(reason: String = "The trainer went out of range.") {
        let link = state.withLock { state in
            state.isConnected = false
            _ = state.controlPoint.revokeControl()
            state.interpreter = SensorReadingInterpreter()
            return state.link
        }
        outlet.send(.connection(.disconnected(reason: reason), at: date()))
        link?(.disconnected)
    }

    /// The link is back now: the recording hears it, and the control link comes up with its power range.
    public func reconnect() {
        let (link, range) = state.withLock { state in
            state.isConnected = true
            return (state.link, state.signal.powerRange)
        }
        outlet.send(.connection(.connected, at: date()))
        link.map { Self.announceConnection(range, to: $0) }
    }

    /// Takes control away, as a machine does when a person presses its buttons (status 0xFF): the controller must
    /// ask for control again.
    public func revokeControl() {
        let (status, link) = state.withLock { state in (state.controlPoint.revokeControl(), state.link) }
        link?(.value(characteristic: GATTAssignedNumbers.Characteristic.fitnessMachineStatus, bytes: status))
    }

    // MARK: ControllableSensor

    public func writeWithResponse(_ bytes: [UInt8], to characteristic: UInt16) async throws {
        typealias C = GATTAssignedNumbers.Characteristic
        guard characteristic == C.fitnessMachineControlPoint else {
            throw SimulatedTrainerError(
                "The simulated trainer takes writes to its control point (2AD9) only, not "
                    + String(format: "%04X.", characteristic))
        }
        let answered = state.withLock {
            state -> (SimulatedControlPoint.Answer, (@Sendable (ControlLinkEvent) -> Void)?)? in
            guard state.isConnected else { return nil }
            var controlPoint = state.controlPoint
            let answer = controlPoint.answer(bytes, from: 0) { state.signal.control($0) }
            state.controlPoint = controlPoint
            if let request = answer.request { state.requests.append((request, answer.result)) }
            return (answer, state.link)
        }
        guard let (answer, link) = answered else {
            throw SimulatedTrainerError("The simulated trainer is not connected.")
        }
        link?(.value(characteristic: C.fitnessMachineControlPoint, bytes: answer.response))
        if let status = answer.status { link?(.value(characteristic: C.fitnessMachineStatus, bytes: status)) }
    }

    public func watchControlLink(_ handler: (@Sendable (ControlLinkEvent) -> Void)?) {
        let (connected, range) = state.withLock { state in
            state.link = handler
            return (state.isConnected, state.signal.powerRange)
        }
        if let handler, connected { Self.announceConnection(range, to: handler) }
    }

    /// A connection as the Bluetooth paths report it: the Supported Power Range read, then the link up with its
    /// control point.
    private static func announceConnection(
        _ range: ClosedRange<Int>, to handler: @Sendable (ControlLinkEvent) -> Void
    ) {
        let bytes = SupportedPowerRange(uncheckedMinimum: range.lowerBound, maximum: range.upperBound, increment: 1)
            .encode()
        handler(.value(characteristic: GATTAssignedNumbers.Characteristic.supportedPowerRange, bytes: bytes))
        handler(.connected(controlPoint: true))
    }
}

/// A write the simulated trainer cannot take, in one sentence. OpenHealthKitTesting.
public struct SimulatedTrainerError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
