import FitnessSensors
import Foundation

/// Writes a scenario's fixture: the same bytes for the same scenario and seed, on every run.
public enum FixtureSynthesizer {
    /// The recordings start at this instant (2026-11-21 07:00 UTC) so files do not depend on today's date.
    public static let recordedStart = Date(timeIntervalSince1970: 1_795_158_000)

    /// Generates a committed scenario (or the benchmark's) with `seed` into `path`; `hours` sets the benchmark's
    /// length.
    ///
    /// - Returns: The number of notification lines written.
    @discardableResult
    public static func generate(
        _ scenario: FixtureScenario, seed: UInt64? = nil, hours: Double = 10,
        to path: String
    ) throws -> Int {
        let workout = scenario.scenario(seed: seed, hours: hours)
        return try generate(workout, extraSource: scenario == .benchmark ? ["hours": String(hours)] : [:], to: path)
    }

    /// Generates a scenario into `path`.
    ///
    /// - Returns: The number of notification lines written.
    @discardableResult
    public static func generate(_ scenario: WorkoutScenario, to path: String) throws -> Int {
        try generate(scenario, extraSource: [:], to: path)
    }

    static func generate(_ scenario: WorkoutScenario, extraSource: [String: String], to path: String) throws -> Int {
        var source = ["generator": "FixtureGenerator", "scenario": scenario.name, "seed": String(scenario.seed)]
        source.merge(extraSource) { $1 }
        let header = FixtureHeader(
            start: recordedStart, session: .init(activity: scenario.activity, location: scenario.location),
            sensors: scenario.sensors.map(\.description), source: source)
        let writer = try FixtureWriter(path: path, header: header)
        var random = SeededRandom(seed: scenario.seed)
        var state = State(scenario: scenario)
        var second = 0
        var secondEvents: [FixtureEvent] = []
        let total = scenario.seconds
        var notifications = 0
        // Actions of a step with no time of their own (a resume after a pause) start the next one.
        var carried: [FixtureAction] = []
        outer: for segment in scenario.steps.flatMap(\.segments) {
            if segment.seconds == 0 {
                carried += segment.actions
                continue
            }
            for offset in 0 ..< segment.seconds {
                guard second < total else { break outer }
                secondEvents.removeAll(keepingCapacity: true)
                if offset == 0 {
                    for action in carried + segment.actions {
                        secondEvents.append(FixtureEvent(time: Int64(second) * 1000, kind: .action(action)))
                    }
                    carried = []
                }
                state.second(
                    second, segment: segment, effort: segment.effort(at: offset), random: &random, into: &secondEvents)
                secondEvents.sort { $0.time < $1.time }
                for event in secondEvents {
                    if case .notification = event.kind { notifications += 1 }
                    try writer.write(event)
                }
                second += 1
            }
        }
        for action in carried { try writer.write(FixtureEvent(time: Int64(second) * 1000, kind: .action(action))) }
        try writer.write(FixtureEvent(time: Int64(second) * 1000, kind: .action(.end)))
        try writer.close()
        return notifications
    }

    /// The models' state across seconds.
    struct State {
        let scenario: WorkoutScenario
        let strap: Int?
        let arm: Int?
        let meter: Int?
        let csc: Int?
        let meterRate: Int
        var heart = HeartModel()
        var armHeart = HeartModel(start: 74)
        var drivetrain = DrivetrainModel()
        var meterConnected = false
        var strapConnected = true
        var energy: UInt16 = 0
        var joules = 0.0

        init(scenario: WorkoutScenario) {
            self.scenario = scenario
            strap = scenario.sensors.firstIndex(of: .strap)
            arm = scenario.sensors.firstIndex(of: .armband)
            meter = scenario.sensors.firstIndex { $0 == .powerMeter || $0 == .fastPowerMeter }
            csc = scenario.sensors.firstIndex(of: .speedCadence)
            meterRate = scenario.sensors.contains(.fastPowerMeter) ? 4 : 2
        }

        func inDropout(_ sensor: Int?, _ second: Int) -> Bool {
            guard let sensor else { return false }
            let kind = scenario.sensors[sensor]
            return scenario.dropouts.contains { $0.sensor == kind && $0.contains(second) }
        }

        mutating func second(
            _ second: Int, segment: Segment, effort: Double, random: inout SeededRandom,
            into events: inout [FixtureEvent]
        ) {
            let base = Int64(second) * 1000
            func jitter(_ random: inout SeededRandom) -> Int64 { Int64(random.unit() * 30) }
            // The strap, once a second.
            let (bpm, rr) = heart.step(second: Double(second), effort: effort, random: &random)
            if let strap {
                let wanted = !inDropout(strap, second)
                if wanted != strapConnected {
                    if wanted {
                        events.append(FixtureEvent(time: base, kind: .connection(sensor: strap, state: .connecting)))
                    }
                    events.append(
                        FixtureEvent(
                            time: base + 1,
                            kind: .connection(
                                sensor: strap,
                                state: wanted ? .connected : .disconnected(reason: "The sensor closed the link."))))
                    strapConnected = wanted
                }
                var measurement = HeartRateMeasurement(heartRate: bpm, sensorContact: .detected, rrIntervals: rr)
                if second % 10 == 0 {
                    energy &+= UInt16(max(1, Int(Double(bpm) / 12)))
                    measurement.energyExpended = energy
                }
                var bytes = measurement.encode()
                if let rule = scenario.malformedHeartRate, second % rule.every == rule.offset {
                    bytes = Self.malformed(second / rule.every, from: bytes)
                }
                let at = base + 5 + jitter(&random)
                if strapConnected {
                    events.append(notification(strap, at, HeartRateMeasurement.characteristicUUID, bytes))
                    if second % 600 == 0 {
                        events.append(
                            notification(
                                strap, base + 40, BatteryLevel.characteristicUUID, [UInt8(max(0, 98 - second / 600))]))
                    }
                }
            }
            if let arm {
                let (armBPM, _) = armHeart.step(second: Double(second), effort: effort, random: &random)
                events.append(
                    notification(
                        arm, base + 20 + jitter(&random), HeartRateMeasurement.characteristicUUID,
                        HeartRateMeasurement(heartRate: armBPM).encode()))
            }
            guard let meter else { return }
            let dropout = inDropout(meter, second)
            let wanted = segment.meterOn && !dropout
            if wanted != meterConnected {
                let state: SensorConnectionState =
                    wanted ? .connected : .disconnected(reason: dropout ? "The sensor closed the link." : nil)
                if wanted, second > 0 {
                    events.append(FixtureEvent(time: base, kind: .connection(sensor: meter, state: .connecting)))
                }
                events.append(FixtureEvent(time: base + 1, kind: .connection(sensor: meter, state: state)))
                meterConnected = wanted
            }
            let rate = meterRate
            for tick in 0 ..< rate {
                let time = Double(second) + Double(tick) / Double(rate)
                let watts = segment.watts > 0 ? max(0, segment.watts * (1 + random.gaussian(0.07))) : 0
                _ = drivetrain.advance(time: time, dt: 1 / Double(rate), watts: watts, random: &random)
                guard meterConnected else { continue }
                joules += watts / Double(rate)
                let power = CyclingPowerMeasurement(
                    instantaneousPower: Int16(watts.rounded()), wheelRevolutions: drivetrain.wheelData,
                    crankRevolutions: drivetrain.crankData,
                    accumulatedEnergy: UInt16(truncatingIfNeeded: Int(joules / 1000)))
                let at = Int64(time * 1000) + 250 / Int64(rate) + jitter(&random)
                events.append(notification(meter, at, CyclingPowerMeasurement.characteristicUUID, power.encode()))
                if let csc, tick % 2 == 0 {
                    let measurement = CSCMeasurement(
                        wheelRevolutions: drivetrain.cscWheelData, crankRevolutions: drivetrain.crankData)
                    events.append(notification(csc, at + 3, CSCMeasurement.characteristicUUID, measurement.encode()))
                }
            }
        }

        func notification(_ sensor: Int, _ time: Int64, _ characteristic: UInt16, _ bytes: [UInt8]) -> FixtureEvent {
            FixtureEvent(time: time, kind: .notification(sensor: sensor, characteristic: characteristic, bytes: bytes))
        }

        /// Corrupts a good Heart Rate Measurement in one of the ways straps and radios do.
        static func malformed(_ n: Int, from bytes: [UInt8]) -> [UInt8] {
            switch n % 4 {
            case 0: return []  // an empty notification
            case 1: return [0x01, bytes[1]]  // says uint16 rate, carries one byte
            case 2: return [0x10] + bytes[1 ... 1] + [0x33]  // RR intervals flagged, an odd trailing byte
            default: return [0x08, bytes[1]]  // energy expended flagged, missing
            }
        }
    }
}
