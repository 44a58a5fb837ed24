import FitnessSensors
import Foundation

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
/// | swimming | + swimming distance, stroke count |
/// | wheelchair walk/run pace | + wheelchair distance, push count |
/// | swim-bike-run, before any leg | everything swimming, cycling and running collect |
/// | transition and other activities | the common three |
enum CollectionPlan {
    static func types(for activity: HKWorkoutActivityType, sensors: SensorCapabilities) -> Set<HKQuantityType> {
        var identifiers: [HKQuantityTypeIdentifier] = [.heartRate, .activeEnergyBurned, .basalEnergyBurned]
        switch activity {
        case .running:
            identifiers += [.distanceWalkingRunning, .stepCount, .runningSpeed, .runningPower, .runningStrideLength,
                            .runningVerticalOscillation, .runningGroundContactTime]
        case .walking, .hiking:
            identifiers += [.distanceWalkingRunning, .stepCount]
        case .cycling, .handCycling:
            identifiers.append(.distanceCycling)
            if sensors.contains(.power) { identifiers.append(.cyclingPower) }
            if sensors.contains(.cadence) { identifiers.append(.cyclingCadence) }
            if sensors.contains(.speed) { identifiers.append(.cyclingSpeed) }
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

/// Turns one sensor's readings into collected samples, remembering what it needs between readings (the time of
/// the previous power reading, to integrate work into energy).
///
/// - Heart rate: an instantaneous sample in beats per minute; none while the strap reports no skin contact. RR
///   intervals become heartbeats (see the data source).
/// - Power: an instantaneous cycling-power sample, and active energy for the time since the previous power reading
///   (at most 3 s): mechanical work in kJ counted as kcal burned, the usual rule for cycling (gross efficiency
///   about 24 % cancels the 4.184 kJ/kcal).
/// - Cadence and speed: instantaneous samples. Distance: a sample spanning the time since the previous distance
///   reading, of the distance type that fits the activity.
/// - Battery and connection changes make no samples.
struct ReadingMapper {
    private var uuids = FastUUID.Xoshiro256()
    private var lastPower: Double?
    private var lastDistance: Double?
    static let maximumEnergyGap: Double = 3

    mutating func samples(for value: SensorReadingValue, at time: Double, activity: HKWorkoutActivityType,
                          deviceCode: UInt32, into out: inout [CollectedSample]) {
        switch value {
        case .heartRate(let reading):
            guard reading.contact != .notDetected, reading.bpm > 0 else { return }
            out.append(CollectedSample(uuid: FastUUID.next(using: &uuids), typeCode: Types.heartRate, start: time, end: time, value: Double(reading.bpm), deviceCode: deviceCode))
        case .power(let reading):
            out.append(CollectedSample(uuid: FastUUID.next(using: &uuids), typeCode: Types.cyclingPower, start: time, end: time, value: Double(reading.watts), deviceCode: deviceCode))
            if let previous = lastPower, time > previous, time - previous <= Self.maximumEnergyGap, reading.watts > 0 {
                let kilojoules = Double(reading.watts) * (time - previous) / 1000
                out.append(CollectedSample(uuid: FastUUID.next(using: &uuids), typeCode: Types.activeEnergy, start: previous, end: time, value: kilojoules, deviceCode: deviceCode))
            }
            lastPower = time
        case .cadence(let reading):
            out.append(CollectedSample(uuid: FastUUID.next(using: &uuids), typeCode: Types.cyclingCadence, start: time, end: time, value: reading.rpm, deviceCode: deviceCode))
        case .speed(let reading):
            let type = activity == .running ? Types.runningSpeed : Types.cyclingSpeed
            out.append(CollectedSample(uuid: FastUUID.next(using: &uuids), typeCode: type, start: time, end: time, value: reading.metresPerSecond, deviceCode: deviceCode))
        case .distance(let reading):
            defer { lastDistance = time }
            guard reading.metres > 0 else { return }
            let type = HKQuantityType.interned(HKWorkout.distanceType(for: activity)).code
            out.append(CollectedSample(uuid: FastUUID.next(using: &uuids), typeCode: type, start: min(lastDistance ?? time, time), end: time, value: reading.metres,
                                       deviceCode: deviceCode))
        case .battery:
            return
        }
    }

    /// Forgets continuity (after a disconnection): no energy is integrated across the gap.
    mutating func reset() {
        lastPower = nil
        lastDistance = nil
    }

    /// Type codes looked up once (finding an `HKQuantityType` costs a dictionary lookup).
    enum Types {
        static let heartRate = HKQuantityType.interned(.heartRate).code
        static let cyclingPower = HKQuantityType.interned(.cyclingPower).code
        static let cyclingCadence = HKQuantityType.interned(.cyclingCadence).code
        static let cyclingSpeed = HKQuantityType.interned(.cyclingSpeed).code
        static let runningSpeed = HKQuantityType.interned(.runningSpeed).code
        static let activeEnergy = HKQuantityType.interned(.activeEnergyBurned).code
    }
}

extension HKLiveWorkoutDataSource {
    /// Every type a live workout may save, whatever the activity and sensors: the quantity types of the table in
    /// ``CollectionPlan`` for every activity, the workout type and the heartbeat series. What an app asks to share
    /// (and read) before recording or replaying a workout of any kind. OpenHealthKit extension.
    public static var collectableTypes: Set<HKSampleType> {
        let every: SensorCapabilities = [.heartRate, .rrIntervals, .power, .cadence, .speed, .distance, .energy, .battery]
        let activities: [HKWorkoutActivityType] = [.swimBikeRun, .walking, .wheelchairWalkPace, .handCycling]
        var types: Set<HKSampleType> = [.workoutType(), HKSeriesType.heartbeat()]
        for activity in activities {
            for type in CollectionPlan.types(for: activity, sensors: every) { types.insert(type) }
        }
        return types
    }
}
