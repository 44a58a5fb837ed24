import FitnessSensors
import Foundation

/// Writes a scenario's fixture: the same bytes for the same scenario and seed, on every run.
public enum FixtureSynthesizer {
    /// The recordings start at this instant (2026-11-21 07:00 UTC) so files do not depend on today's date.
    public static let recordedStart = Date(timeIntervalSince1970: 1_795_158_000)

    /// Generates `scenario` with `seed` into `path`; `hours` sets the benchmark's length.
    ///
    /// - Returns: The number of notification lines written.
    @discardableResult
    public static func generate(_ scenario: FixtureScenario, seed: UInt64? = nil, hours: Double = 10,
                                to path: String) throws -> Int {
        let seed = seed ?? scenario.defaultSeed
        var source = ["generator": "FixtureGenerator", "scenario": scenario.rawValue, "seed": String(seed)]
        if scenario == .benchmark { source["hours"] = String(hours) }
        let sensors = scenario.sensors
        let header = FixtureHeader(start: recordedStart, session: scenario.session, sensors: sensors, source: source)
        let writer = try FixtureWriter(path: path, header: header)
        var random = SeededRandom(seed: seed)
        var state = State(scenario: scenario)
        var second = 0
        var second_events: [FixtureEvent] = []
        let segments = scenario.segments(hours: hours)
        let total = scenario == .benchmark ? Int(hours * 3600) : segments.reduce(0) { $0 + $1.seconds }
        var notifications = 0
        outer: for segment in segments {
            for offset in 0 ..< segment.seconds {
                guard second < total else { break outer }
                second_events.removeAll(keepingCapacity: true)
                if offset == 0 {
                    for action in segment.actions { second_events.append(FixtureEvent(time: Int64(second) * 1000, kind: .action(action))) }
                }
                state.second(second, segment: segment, random: &random, into: &second_events)
                second_events.sort { $0.time < $1.time }
                for event in second_events {
                    if case .notification = event.kind { notifications += 1 }
                    try writer.write(event)
                }
                second += 1
            }
        }
        try writer.write(FixtureEvent(time: Int64(second) * 1000, kind: .action(.end)))
        try writer.close()
        return notifications
    }

    /// The models' state across seconds.
    struct State {
        let scenario: FixtureScenario
        var heart = HeartModel()
        var arm = HeartModel(start: 74)
        var drivetrain = DrivetrainModel()
        var meterConnected = false
        var energy: UInt16 = 0
        var joules = 0.0

        init(scenario: FixtureScenario) { self.scenario = scenario }

        mutating func second(_ second: Int, segment: Segment, random: inout SeededRandom, into events: inout [FixtureEvent]) {
            let base = Int64(second) * 1000
            let sensors = scenario.sensors.map(\.id)
            func jitter(_ random: inout SeededRandom) -> Int64 { Int64(random.unit() * 30) }
            // The strap, once a second.
            let (bpm, rr) = heart.step(second: Double(second), effort: segment.effort, random: &random)
            var measurement = HeartRateMeasurement(heartRate: bpm, sensorContact: .detected, rrIntervals: rr)
            if second % 10 == 0 {
                energy &+= UInt16(max(1, Int(Double(bpm) / 12)))
                measurement.energyExpended = energy
            }
            var bytes = measurement.encode()
            if scenario == .malformed, second % 37 == 11 { bytes = Self.malformed(second / 37, from: bytes) }
            events.append(notification(0, base + 5 + jitter(&random), HeartRateMeasurement.characteristicUUID, bytes))
            if second % 600 == 0 {
                events.append(notification(0, base + 40, BatteryLevel.characteristicUUID, [UInt8(98 - second / 600)]))
            }
            guard scenario != .run, scenario != .malformed else { return }
            if scenario == .benchmark {
                let (armBPM, _) = arm.step(second: Double(second), effort: segment.effort, random: &random)
                events.append(notification(1, base + 20 + jitter(&random), HeartRateMeasurement.characteristicUUID,
                                           HeartRateMeasurement(heartRate: armBPM).encode()))
            }
            // The ride's 40-second power meter dropout, from 50:00.
            let dropout = scenario == .ride && (3000 ..< 3040).contains(second)
            let meterIndex = sensors.firstIndex(of: "power")!
            let wanted = segment.meterOn && !dropout
            if wanted != meterConnected {
                let state: SensorConnectionState = wanted ? .connected : .disconnected(reason: dropout ? "The sensor closed the link." : nil)
                if wanted, second > 0 { events.append(FixtureEvent(time: base, kind: .connection(sensor: meterIndex, state: .connecting))) }
                events.append(FixtureEvent(time: base + 1, kind: .connection(sensor: meterIndex, state: state)))
                meterConnected = wanted
            }
            let rate = scenario == .benchmark ? 4 : 2
            for tick in 0 ..< rate {
                let time = Double(second) + Double(tick) / Double(rate)
                let watts = segment.watts > 0 ? max(0, segment.watts * (1 + random.gaussian(0.07))) : 0
                let cadence = drivetrain.advance(time: time, dt: 1 / Double(rate), watts: watts, random: &random)
                _ = cadence
                guard meterConnected else { continue }
                joules += watts / Double(rate)
                let power = CyclingPowerMeasurement(
                    instantaneousPower: Int16(watts.rounded()), wheelRevolutions: drivetrain.wheelData,
                    crankRevolutions: drivetrain.crankData, accumulatedEnergy: UInt16(truncatingIfNeeded: Int(joules / 1000)))
                let at = Int64(time * 1000) + 250 / Int64(rate) + jitter(&random)
                events.append(notification(meterIndex, at, CyclingPowerMeasurement.characteristicUUID, power.encode()))
                if scenario == .benchmark, tick % 2 == 0 {
                    let csc = CSCMeasurement(wheelRevolutions: drivetrain.cscWheelData, crankRevolutions: drivetrain.crankData)
                    events.append(notification(3, at + 3, CSCMeasurement.characteristicUUID, csc.encode()))
                }
            }
        }

        func notification(_ sensor: Int, _ time: Int64, _ characteristic: UInt16, _ bytes: [UInt8]) -> FixtureEvent {
            FixtureEvent(time: time, kind: .notification(sensor: sensor, characteristic: characteristic, bytes: bytes))
        }

        /// Corrupts a good Heart Rate Measurement in one of the ways straps and radios do.
        static func malformed(_ n: Int, from bytes: [UInt8]) -> [UInt8] {
            switch n % 4 {
            case 0: return []                                      // an empty notification
            case 1: return [0x01, bytes[1]]                        // says uint16 rate, carries one byte
            case 2: return [0x10] + bytes[1 ... 1] + [0x33]        // RR intervals flagged, an odd trailing byte
            default: return [0x08, bytes[1]]                       // energy expended flagged, missing
            }
        }
    }
}
