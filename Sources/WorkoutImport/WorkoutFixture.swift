import FitnessSensors
import Foundation
import OpenHealthKit

/// Turns an imported workout into a fixture of raw BLE notifications (fixtures/FORMAT.md), so a real ride drives
/// the live pipeline — the same decoders, builder and zone callbacks a strap's bytes go through.
///
/// - Heart rate becomes Heart Rate Measurements (0x2A37, HRS 1.0) at each reading's time, carrying the RR intervals
///   (in 1/1024 s) of the beats that fell since the previous one; beats are placed from the workout's start, as the
///   import's heartbeat series places them.
/// - Power becomes Cycling Power Measurements (0x2A63, CPS 1.1) at each reading's time, with crank revolutions and
///   last crank event time (1/1024 s) synthesized from cadence, and wheel revolutions and last wheel event time
///   (1/2048 s) from speed on a 2.105 m wheel (the replay's default); counters wrap as a meter's do. A gap longer
///   than 10 s adds no revolutions (the meter was not turning).
/// - On foot (running, walking, hiking), speed and cadence become a foot pod's RSC Measurements (0x2A53, RSCS 1.0)
///   instead: see ``footPodMeasurement(metresPerSecond:strideCadence:totalDistance:isRunning:)``; power, a running
///   power meter's, becomes Cycling Power Measurements with power alone (a Stryd serves CPS on a foot).
/// - Pauses, laps and a multisport file's legs become session actions; the fixture ends at the workout's end.
public enum WorkoutFixture {
    /// Whether an activity is one a foot pod measures.
    public static func isOnFoot(_ activity: HKWorkoutActivityType) -> Bool {
        [.running, .walking, .hiking].contains(activity)
    }

    /// The RSC Measurement a foot pod sends for one of a run's records.
    ///
    /// - Parameters:
    ///   - metresPerSecond: The record's speed (enhanced_speed, else speed); sent in 1/256 m/s.
    ///   - strideCadence: The record's cadence with its fractional part, in strides (cycles of both feet) a minute,
    ///     as FIT keeps a run's cadence; a foot pod sends steps a minute, twice that, rounded to a whole step.
    ///   - totalDistance: The record's cumulative distance in metres, sent in 1/10 m, if the file has it (the
    ///     replay then takes distance from its differences, as from a pod that counts; otherwise it integrates
    ///     speed).
    ///   - isRunning: The walking-or-running bit: set for a run.
    /// - Returns: Stride length from speed and cadence (a stride is one step here, as RSCS counts it: speed × 60 /
    ///   steps a minute), in 1/100 m, when the cadence is above zero.
    public static func footPodMeasurement(
        metresPerSecond: Double, strideCadence: Double?, totalDistance: Double?, isRunning: Bool
    ) -> RSCMeasurement {
        let steps =
            strideCadence.map { min(255, max(0, RunningCadence.stepsPerMinute(stridesPerMinute: $0).rounded())) } ?? 0
        let stride = steps > 0 ? metresPerSecond * 60 / steps : nil
        return RSCMeasurement(
            speed: UInt16(clamping: Int((metresPerSecond * 256).rounded())), cadence: UInt8(steps),
            strideLength: stride.map { UInt16(clamping: Int(($0 * 100).rounded())) },
            totalDistance: totalDistance.map { UInt32(clamping: Int64(($0 * 10).rounded())) }, isRunning: isRunning)
    }

    /// What was written.
    public struct Summary: Sendable, Hashable {
        public var notifications: Int
        public var duration: TimeInterval
    }

    public static func write(
        _ workout: ImportedWorkout, to path: String, source: String,
        wheelCircumference: Double = WheelSpeedCalculator.defaultWheelCircumference
    ) throws -> Summary {
        let start = workout.start
        func ms(_ date: Date) -> Int64 { Int64((date.timeIntervalSince(start) * 1000).rounded()) }
        var sensors: [FixtureHeader.SensorDescription] = []
        var strap: Int?
        var meter: Int?
        let deviceName = workout.device?.name ?? workout.format
        if !workout.heartRate.isEmpty {
            strap = sensors.count
            sensors.append(
                .init(
                    id: "strap", name: "\(deviceName) heart rate", services: ["180D"],
                    capabilities: workout.rrIntervals.isEmpty ? ["heartRate"] : ["heartRate", "rrIntervals"]))
        }
        let onFoot = isOnFoot(workout.activityType)
        var pod: Int?
        if onFoot, !workout.speed.isEmpty {
            pod = sensors.count
            sensors.append(
                .init(
                    id: "pod", name: "\(deviceName) foot pod", services: ["1814"],
                    capabilities: ["speed", "steps", "distance"]))
        }
        if !workout.power.isEmpty {
            meter = sensors.count
            var capabilities = ["power", "energy"]
            if !workout.cadence.isEmpty, !onFoot { capabilities.append("cadence") }
            if !workout.speed.isEmpty, !onFoot { capabilities += ["speed", "distance"] }
            sensors.append(
                .init(id: "power", name: "\(deviceName) power", services: ["1818"], capabilities: capabilities))
        }
        let location = workout.locationType == .indoor ? "indoor" : workout.locationType == .outdoor ? "outdoor" : nil
        let header = FixtureHeader(
            start: start, session: .init(activity: workout.activityType.name, location: location),
            sensors: sensors, source: ["convertedFrom": source, "by": "workout fixture"])

        // (time, order, event): actions that open (resume, a leg) come before a notification at the same
        // millisecond, actions that close (pause, lap, end) after it.
        var events: [(Int64, Int, FixtureEvent.Kind)] = []
        for leg in workout.legs {
            let legLocation = leg.locationType == .indoor ? "indoor" : leg.locationType == .outdoor ? "outdoor" : nil
            events.append(
                (
                    ms(leg.interval.start), 0,
                    .action(.beginActivity(activity: leg.activityType.name, location: legLocation))
                ))
        }
        for pause in workout.pauses {
            events.append((ms(pause.start), 2, .action(.pause)))
            events.append((ms(pause.end), 0, .action(.resume)))
        }
        for lap in workout.markedLaps where lap.end < workout.end { events.append((ms(lap.end), 2, .action(.lap))) }
        events.append((ms(workout.end), 3, .action(.end)))

        if let strap {
            var beats: [Double] = []  // seconds since start
            var gapBefore: [Bool] = []
            var elapsed = 0.0
            var gap = false
            for interval in workout.rrIntervals {
                guard interval.isFinite, interval > 0 else {
                    gap = true
                    continue
                }
                elapsed += interval
                beats.append(elapsed)
                gapBefore.append(gap)
                gap = false
            }
            var next = 0
            var previous = -Double.infinity
            for reading in workout.heartRate {
                let t = reading.date.timeIntervalSince(start)
                var rr: [UInt16] = []
                while next < beats.count, beats[next] <= t {
                    if beats[next] > previous, !gapBefore[next], next > 0 || beats[next] > 0 {
                        let interval = next == 0 ? beats[0] : beats[next] - beats[next - 1]
                        if rr.count < 8 { rr.append(UInt16(clamping: Int((interval * 1024).rounded()))) }
                    }
                    next += 1
                }
                previous = t
                let value = HeartRateMeasurement(
                    heartRate: UInt16(clamping: Int(reading.value.rounded())), rrIntervals: rr)
                events.append(
                    (ms(reading.date), 1, .notification(sensor: strap, characteristic: 0x2A37, bytes: value.encode())))
            }
        }
        let cadence = Dictionary(workout.cadence.map { ($0.date, $0.value) }, uniquingKeysWith: { a, _ in a })
        let speed = Dictionary(workout.speed.map { ($0.date, $0.value) }, uniquingKeysWith: { a, _ in a })
        if let pod {
            let distance = Dictionary(workout.distance.map { ($0.date, $0.value) }, uniquingKeysWith: { a, _ in a })
            for reading in workout.speed {
                let value = footPodMeasurement(
                    metresPerSecond: reading.value, strideCadence: cadence[reading.date],
                    totalDistance: distance[reading.date], isRunning: workout.activityType == .running)
                events.append(
                    (ms(reading.date), 1, .notification(sensor: pod, characteristic: 0x2A53, bytes: value.encode())))
            }
        }
        if let meter {
            var crank = Revolutions(ticksPerSecond: 1024)
            var wheel = Revolutions(ticksPerSecond: 2048)
            var previous: Date?
            for reading in workout.power {
                let t = reading.date.timeIntervalSince(start)
                let dt = previous.map { reading.date.timeIntervalSince($0) } ?? 0
                previous = reading.date
                var measurement = CyclingPowerMeasurement(
                    instantaneousPower: Int16(clamping: Int(reading.value.rounded())))
                if let rpm = cadence[reading.date], !onFoot {
                    crank.advance(rate: rpm / 60, over: dt, to: t)
                    measurement.crankRevolutions = CrankRevolutionData(
                        cumulativeRevolutions: UInt16(truncatingIfNeeded: crank.whole),
                        lastEventTime: UInt16(truncatingIfNeeded: crank.lastEventTicks))
                }
                if let metresPerSecond = speed[reading.date], !onFoot {
                    wheel.advance(rate: metresPerSecond / wheelCircumference, over: dt, to: t)
                    measurement.wheelRevolutions = WheelRevolutionData(
                        cumulativeRevolutions: UInt32(truncatingIfNeeded: wheel.whole),
                        lastEventTime: UInt16(truncatingIfNeeded: wheel.lastEventTicks))
                }
                events.append(
                    (
                        ms(reading.date), 1,
                        .notification(sensor: meter, characteristic: 0x2A63, bytes: measurement.encode())
                    ))
            }
        }
        events.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        let writer: FixtureWriter
        do { writer = try FixtureWriter(path: path, header: header) } catch {
            throw ImportError("\(path): \(error.description)")
        }
        var notifications = 0
        do {
            for (time, _, kind) in events {
                if case .notification = kind { notifications += 1 }
                try writer.write(FixtureEvent(time: time, kind: kind))
            }
            try writer.close()
        } catch {
            throw ImportError("\(path): \(error.description)")
        }
        return Summary(notifications: notifications, duration: workout.end.timeIntervalSince(start))
    }

    /// A revolution counter driven by a rate: whole revolutions and the time (in ticks) of the last one.
    struct Revolutions {
        let ticksPerSecond: Double
        var revolutions = 0.0
        var lastEvent = 0.0

        var whole: Int64 { Int64(revolutions.rounded(.down)) }
        var lastEventTicks: Int64 { Int64((lastEvent * ticksPerSecond).rounded()) }

        /// Turns at `rate` revolutions per second for the `seconds` before `time` (nothing over a gap above 10 s).
        mutating func advance(rate: Double, over seconds: Double, to time: Double) {
            guard rate > 0, rate.isFinite, seconds > 0, seconds <= 10 else { return }
            let before = revolutions.rounded(.down)
            revolutions += rate * seconds
            let after = revolutions.rounded(.down)
            if after > before {
                // The last whole revolution was crossed (after − (revolutions before)) / rate seconds into the span.
                lastEvent = time - seconds + (after - (revolutions - rate * seconds)) / rate
            }
        }
    }
}
