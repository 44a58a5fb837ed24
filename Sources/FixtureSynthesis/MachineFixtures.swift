import FitnessSensors
import Foundation
import WorkoutEngine

/// The foot-pod and fitness-machine fixtures in `fixtures/`: the notifications the simulated peripherals' signals
/// (``FootPodSignal``, ``SmartTrainerSignal``, ``TreadmillSignal``, ``RowerSignal``) send, at their pace, with a
/// few milliseconds of seeded jitter, as `workout peripheral` serves them.
///
/// The trainer's fixture holds a control session: at 5:00 a central's Request Control and Set Target Power 250 W
/// are answered (control point indications, `2AD9`), the trainer announces the new target (status `2ADA`), and its
/// power follows with its lag; its Indoor Bike Data has a record split over two notifications (More Data) every
/// fifth second.
///
/// The plan ride's trainer is driven by ``PlanRunner`` through ``planSteps`` (10 min at 150 W, 5 × (4 min at 280 W,
/// 3 min at 150 W), 5 min at 120 W) as `workout record --plan` drives one: control asked for at 1 s, then each target
/// the runner asks for (ramped over its default 3 s) answered on the control point and announced on the status.
public enum MachineFixture: String, CaseIterable, Sendable {
    case footPod = "foot-pod-run-20min"
    case trainer = "smart-trainer-erg-20min"
    case treadmill = "treadmill-run-20min"
    case rower = "rower-10min"
    case planRide = "smart-trainer-plan-50min"

    public var fileName: String { rawValue + ".jsonl" }
    public var seed: UInt64 {
        switch self {
        case .footPod: 14
        case .trainer: 26
        case .treadmill: 27
        case .rower: 21
        case .planRide: 50
        }
    }

    /// The minutes it lasts.
    public var minutes: Int {
        switch self {
        case .rower: 10
        case .planRide: 50
        default: 20
        }
    }

    /// The plan the plan ride's trainer is driven through: a warm-up, five intervals with their recoveries, a
    /// cool-down; 50 minutes.
    public static let planSteps: [PlanRunner.Step] =
        [PlanRunner.Step(name: "Warm up", goal: .time(600), power: .threshold(150))]
        + (1 ... 5).flatMap { round in
            [
                PlanRunner.Step(name: "Work \(round)/5", goal: .time(240), power: .threshold(280)),
                PlanRunner.Step(name: "Recover \(round)/5", goal: .time(180), power: .threshold(150)),
            ]
        }
        + [PlanRunner.Step(name: "Cool down", goal: .time(300), power: .threshold(120))]

    var activity: String {
        switch self {
        case .footPod, .treadmill: "running"
        case .trainer, .planRide: "cycling"
        case .rower: "rowing"
        }
    }

    var sensor: FixtureHeader.SensorDescription {
        let information = { (model: String) in
            FixtureHeader.DeviceInformationFields(
                DeviceInformation(manufacturerName: "OpenHealthKit", modelNumber: model))
        }
        return switch self {
        case .footPod:
            .init(
                id: "pod", name: "OHK Pod", services: ["1814", "180F", "180A"],
                capabilities: SensorCapabilities.footPod.names,
                deviceInformation: information("Simulated foot pod"))
        case .trainer, .planRide:
            .init(
                id: "trainer", name: "OHK Trainer", services: ["1826", "180F", "180A"],
                capabilities: SensorCapabilities.fitnessMachine.names,
                deviceInformation: information("Simulated smart trainer"))
        case .treadmill:
            .init(
                id: "treadmill", name: "OHK Treadmill", services: ["1826", "180F", "180A"],
                capabilities: SensorCapabilities([.speed, .distance]).names,
                deviceInformation: information("Simulated treadmill"))
        case .rower:
            .init(
                id: "rower", name: "OHK Rower", services: ["1826", "180F", "180A"],
                capabilities: SensorCapabilities([.power, .speed, .distance]).names,
                deviceInformation: information("Simulated rower"))
        }
    }

    /// Writes the fixture into `path`, `minutes` long (its own length by default); returns the number of
    /// notifications.
    @discardableResult
    public func generate(to path: String, minutes: Int? = nil) throws -> Int {
        let header = FixtureHeader(
            start: FixtureSynthesizer.recordedStart,
            session: .init(activity: activity, location: "indoor"), sensors: [sensor],
            source: ["generator": "FixtureGenerator", "scenario": rawValue, "seed": String(seed)])
        let writer = try FixtureWriter(path: path, header: header)
        var random = SeededRandom(seed: seed)
        var count = 0
        func write(_ seconds: Double, _ characteristic: UInt16, _ bytes: [UInt8]) throws {
            let jitter = Double(random.next() % 15) / 1000
            let time = Int64(((seconds + jitter) * 1000).rounded())
            try writer.write(
                FixtureEvent(time: time, kind: .notification(sensor: 0, characteristic: characteristic, bytes: bytes)))
            count += 1
        }
        typealias C = GATTAssignedNumbers.Characteristic
        let end = Double((minutes ?? self.minutes) * 60)
        switch self {
        case .footPod:
            var signal = FootPodSignal()
            for second in 1 ... Int(end) { try write(Double(second), C.rscMeasurement, signal.next().encode()) }
        case .treadmill:
            var signal = TreadmillSignal()
            for second in 1 ... Int(end) { try write(Double(second), C.treadmillData, signal.next().encode()) }
        case .rower:
            var signal = RowerSignal()
            for second in 1 ... Int(end) { try write(Double(second), C.rowerData, signal.next().encode()) }
        case .trainer:
            // The control session at 5:00: 250 W from then on.
            try rideTrainer(until: end, write: write) { time in time >= 300 ? 250 : nil }
        case .planRide:
            try ridePlan(until: end, write: write)
        }
        try writer.close()
        return count
    }

    /// The plan ride's notifications: the trainer follows the targets a ``PlanRunner`` of ``planSteps`` asks for at
    /// each record, from 1 s (moving time is the time: no pause).
    private func ridePlan(until end: Double, write: (Double, UInt16, [UInt8]) throws -> Void) throws {
        let start = FixtureSynthesizer.recordedStart
        var runner = PlanRunner(steps: Self.planSteps)
        _ = runner.start(at: start, progress: PlanRunner.Progress(moving: 0))
        try rideTrainer(until: end, write: write) { time in
            _ = runner.update(at: start + time, progress: PlanRunner.Progress(moving: time))
            return time >= 1 ? runner.ergTarget(at: start + time) : nil
        }
    }

    /// A smart trainer's notifications until `end`: Indoor Bike Data every 0.5 s (with its More Data records), and
    /// each time `target` (asked before each record, with the time) gives a new target, a control session answered
    /// as the simulated machines answer one (``SimulatedControlPoint``): Request Control the first time, Set Target
    /// Power, the target announced on the status, the trainer's power following it from then.
    private func rideTrainer(
        until end: Double, write: (Double, UInt16, [UInt8]) throws -> Void, target: (Double) -> Int?
    ) throws {
        typealias C = GATTAssignedNumbers.Characteristic
        typealias Request = FitnessMachineControlPoint.Request
        var signal = SmartTrainerSignal()
        var controlPoint = SimulatedControlPoint()
        var held: Int?
        var time = 0.0
        while time < end {
            if let target = target(time), target != held, let watts = Int16(exactly: target) {
                if held == nil {
                    let granted = controlPoint.answer(Request.requestControl.encode(), from: 0) { signal.control($0) }
                    try write(time + 0.1, C.fitnessMachineControlPoint, granted.response)
                }
                let answer = controlPoint.answer(Request.setTargetPower(watts).encode(), from: 0) {
                    signal.control($0)
                }
                try write(time + 0.2, C.fitnessMachineControlPoint, answer.response)
                if let status = answer.status { try write(time + 0.3, C.fitnessMachineStatus, status) }
                held = target
            }
            time += signal.interval
            let record = signal.next()
            try write(time, C.indoorBikeData, record.encode())
            if record.hasMoreData { try write(time + 0.03, C.indoorBikeData, signal.next().encode()) }
        }
    }
}
