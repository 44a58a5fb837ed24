import FitnessSensors
import Foundation
import HealthKitModel

/// Which quantity types a live data source collects for an activity. HealthKit publishes no table; this is
/// OpenHealthKit's, following the examples Apple gives (a swim leg collects swimming distance and strokes, a run
/// leg drops them and collects running distance and stride length):
///
/// | activity | collected |
/// |---|---|
/// | every activity | heart rate, active energy, basal energy |
/// | running | + walking/running distance, steps, running speed, power, stride length, vertical oscillation, ground contact time |
/// | walking, hiking | + walking/running distance, steps |
/// | cycling, hand cycling | + cycling distance; cycling power, cadence and speed when a connected sensor measures them |
/// | rowing | + rowing distance, rowing speed |
/// | swimming | + swimming distance, stroke count |
/// | wheelchair walk/run pace | + wheelchair distance, push count |
/// | swim-bike-run, before any leg | everything swimming, cycling and running collect |
/// | transition and other activities | the common three |
package enum CollectionPlan {
    package static func types(for activity: HKWorkoutActivityType, sensors: SensorCapabilities) -> Set<HKQuantityType> {
        var identifiers: [HKQuantityTypeIdentifier] = [.heartRate, .activeEnergyBurned, .basalEnergyBurned]
        switch activity {
        case .running:
            identifiers += [
                .distanceWalkingRunning, .stepCount, .runningSpeed, .runningPower, .runningStrideLength,
                .runningVerticalOscillation, .runningGroundContactTime,
            ]
        case .walking, .hiking:
            identifiers += [.distanceWalkingRunning, .stepCount]
        case .cycling, .handCycling:
            identifiers.append(.distanceCycling)
            if sensors.contains(.power) { identifiers.append(.cyclingPower) }
            if sensors.contains(.cadence) { identifiers.append(.cyclingCadence) }
            if sensors.contains(.speed) { identifiers.append(.cyclingSpeed) }
        case .rowing:
            identifiers += [.distanceRowing, .rowingSpeed]
        case .swimming:
            identifiers += [.distanceSwimming, .swimmingStrokeCount]
        case .wheelchairWalkPace, .wheelchairRunPace:
            identifiers += [.distanceWheelchair, .pushCount]
        case .swimBikeRun:
            return types(for: .swimming, sensors: sensors).union(types(for: .cycling, sensors: sensors))
                .union(types(for: .running, sensors: sensors))
        default:
            break
        }
        return Set(identifiers.map { HKQuantityType.interned($0) })
    }
}

/// Turns one sensor's readings into collected samples, remembering what it needs between readings (the previous
/// power reading, to integrate work into energy).
///
/// - Heart rate: an instantaneous sample in beats per minute; none while the strap reports no skin contact. RR
///   intervals become heartbeats (see the data source).
/// - Power: an instantaneous sample, running power in a running workout (a Stryd-style pod serves Cycling Power on
///   a foot) and cycling power otherwise, and active energy for the time the previous power reading held until this
///   one, by the one rule of ``PowerEnergy`` (the previous reading's watts, held at most 5 s; kJ of work counted as
///   kcal burned), kept for running power, whose efficiency is alike.
/// - Cadence and speed: instantaneous samples; speed is running speed in a running workout, rowing speed in a
///   rowing one, cycling speed otherwise. Distance: a sample spanning the time since the previous distance sample,
///   of the distance type that fits the activity.
/// - Step cadence (a foot pod): step count for the time since the previous step cadence by the one rule of
///   ``RunningCadence`` (steps per minute × minutes, at most 3 s), as a running total in thousandths of a step, so
///   each sample's steps ÷ its span give back the pod's cadence. Stride length: a running stride length sample (cm).
/// - Incline (a treadmill): no sample of its own; the running speed samples that follow carry it as metadata
///   (``OHKMetadataKeyTreadmillIncline``) until it changes.
/// - Battery and connection changes make no samples.
///
/// Derived values are rounded here, where they are made, to the resolutions of `DerivedResolution` (cadence
/// 0.1 rpm, speed 0.001 m/s, distance 0.01 m, energy 0.001 kcal); distance and energy as running totals, so their
/// sums never drift. An increment that rounds to 0 makes no sample: it stays in the running total until the next.
/// The totals carry over a reset (a disconnection, a change of activity), so at most half a step is ever held back.
/// Sample times are the reading's arrival time rounded to the millisecond.
package struct ReadingMapper {
    private var uuids = SampleUUIDStream()
    /// The previous power reading: its time and watts, which hold until this one (``PowerEnergy``).
    private var lastPower: (time: Double, watts: Double)?
    private var lastDistance: Double?
    /// The start of the energy held back by rounding, if any (the next energy sample starts there).
    private var heldEnergySince: Double?
    private var energy = CumulativeRounding(steps: DerivedResolution.energy)
    private var distance = CumulativeRounding(steps: DerivedResolution.distance)
    private var lastStepCadence: Double?
    private var heldStepsSince: Double?
    private var steps = CumulativeRounding(steps: DerivedResolution.steps)
    /// The treadmill's incline and its metadata, when one was reported.
    private var incline: (percent: Double, extras: CollectedSample.Extras?)?

    package init() {}

    package mutating func samples(
        for value: SensorReadingValue, at arrival: Double, activity: HKWorkoutActivityType,
        deviceCode: UInt32, into out: inout [CollectedSample]
    ) {
        // Sample times are the arrival time to the millisecond (see DerivedResolution.millisecond).
        let time = DerivedResolution.millisecond(arrival)
        switch value {
        case .heartRate(let reading):
            guard reading.contact != .notDetected, reading.bpm > 0 else { return }
            out.append(
                CollectedSample(
                    uuid: uuids.next(), typeCode: Types.heartRate, start: time, end: time, value: Double(reading.bpm),
                    deviceCode: deviceCode))
        case .power(let reading):
            let type = activity == .running ? Types.runningPower : Types.cyclingPower
            out.append(
                CollectedSample(
                    uuid: uuids.next(), typeCode: type, start: time, end: time, value: Double(reading.watts),
                    deviceCode: deviceCode))
            if let previous = lastPower,
                let stretch = PowerEnergy.energy(watts: previous.watts, at: previous.time, next: time)
            {
                if let kilocalories = energy.add(stretch.kilocalories), kilocalories > 0 {
                    out.append(
                        CollectedSample(
                            uuid: uuids.next(), typeCode: Types.activeEnergy, start: heldEnergySince ?? previous.time,
                            end: stretch.end, value: kilocalories, deviceCode: deviceCode))
                    heldEnergySince = nil
                } else if heldEnergySince == nil {
                    // Less than half a step: it waits in the running total, with its time span, for the next sample.
                    heldEnergySince = previous.time
                }
            } else {
                heldEnergySince = nil
            }
            lastPower = (time, Double(reading.watts))
        case .cadence(let reading):
            guard let rpm = DerivedResolution.rounded(reading.rpm, steps: DerivedResolution.cadence) else { return }
            out.append(
                CollectedSample(
                    uuid: uuids.next(), typeCode: Types.cyclingCadence, start: time, end: time, value: rpm,
                    deviceCode: deviceCode))
        case .speed(let reading):
            let type =
                switch activity {
                case .running: Types.runningSpeed
                case .rowing: Types.rowingSpeed
                default: Types.cyclingSpeed
                }
            guard let speed = DerivedResolution.rounded(reading.metresPerSecond, steps: DerivedResolution.speed) else {
                return
            }
            var sample = CollectedSample(
                uuid: uuids.next(), typeCode: type, start: time, end: time, value: speed, deviceCode: deviceCode)
            if type == Types.runningSpeed, let incline { sample.extras = incline.extras }
            out.append(sample)
        case .stepCadence(let reading):
            defer { lastStepCadence = time }
            guard let previous = lastStepCadence,
                let counted = RunningCadence.steps(stepsPerMinute: reading.stepsPerMinute, from: previous, to: time)
            else {
                heldStepsSince = nil
                return
            }
            if let count = steps.add(counted), count > 0 {
                out.append(
                    CollectedSample(
                        uuid: uuids.next(), typeCode: Types.stepCount, start: heldStepsSince ?? previous,
                        end: time, value: count, deviceCode: deviceCode))
                heldStepsSince = nil
            } else if heldStepsSince == nil {
                heldStepsSince = previous
            }
        case .strideLength(let reading):
            guard let metres = DerivedResolution.rounded(reading.metres, steps: 100), metres > 0 else { return }
            out.append(
                CollectedSample(
                    uuid: uuids.next(), typeCode: Types.runningStrideLength, start: time, end: time,
                    value: metres, deviceCode: deviceCode))
        case .incline(let reading):
            guard reading.percent.isFinite, incline?.percent != reading.percent else { return }
            let metadata: [String: Any] = [
                OHKMetadataKeyTreadmillIncline: HKQuantity(unit: .percent(), doubleValue: reading.percent / 100)
            ]
            incline = (
                reading.percent,
                (try? MetadataCoding.encode(metadata)).flatMap { $0 }.map {
                    CollectedSample.Extras(unitString: nil, metadataJSON: $0)
                }
            )
        case .distance(let reading):
            guard reading.metres > 0 else {
                lastDistance = time
                return
            }
            // Less than half a step: it waits in the running total, with its time span, for the next reading.
            guard let metres = distance.add(reading.metres), metres > 0 else {
                if lastDistance == nil { lastDistance = time }
                return
            }
            defer { lastDistance = time }
            let type = HKQuantityType.interned(HKWorkout.distanceType(for: activity)).code
            out.append(
                CollectedSample(
                    uuid: uuids.next(), typeCode: type, start: min(lastDistance ?? time, time), end: time,
                    value: metres,
                    deviceCode: deviceCode))
        case .battery:
            return
        }
    }

    /// Whether a sample made from `value` was generated (computed from another measure) rather than measured: active
    /// energy integrated from power, steps counted from step cadence. `collectsGeneratedTypes` off drops these.
    package static func isGenerated(_ sample: CollectedSample, from value: SensorReadingValue) -> Bool {
        switch value {
        case .power: sample.typeCode == Types.activeEnergy
        case .stepCadence: sample.typeCode == Types.stepCount
        default: false
        }
    }

    /// Forgets continuity (after a disconnection): no energy is integrated across the gap.
    package mutating func reset() {
        lastPower = nil
        lastDistance = nil
        heldEnergySince = nil
        lastStepCadence = nil
        heldStepsSince = nil
    }

    /// Type codes looked up once (finding an `HKQuantityType` costs a dictionary lookup).
    package enum Types {
        package static let heartRate = HKQuantityType.interned(.heartRate).code
        package static let cyclingPower = HKQuantityType.interned(.cyclingPower).code
        package static let cyclingCadence = HKQuantityType.interned(.cyclingCadence).code
        package static let cyclingSpeed = HKQuantityType.interned(.cyclingSpeed).code
        package static let runningSpeed = HKQuantityType.interned(.runningSpeed).code
        package static let runningPower = HKQuantityType.interned(.runningPower).code
        package static let rowingSpeed = HKQuantityType.interned(.rowingSpeed).code
        package static let stepCount = HKQuantityType.interned(.stepCount).code
        package static let runningStrideLength = HKQuantityType.interned(.runningStrideLength).code
        package static let activeEnergy = HKQuantityType.interned(.activeEnergyBurned).code
    }
}
/// The incline of the treadmill a running speed sample was measured on, as an `HKQuantity` in percent (0.05 for
/// 5 %). OpenHealthKit: HealthKit has no treadmill incline key; a live data source sets it on the running speed
/// samples of a treadmill that reports its inclination.
public let OHKMetadataKeyTreadmillIncline = "OHKTreadmillIncline"
