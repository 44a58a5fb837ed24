import Foundation
import OpenHealthKit

/// Saves an ``ImportedWorkout`` as an app would: through `HKWorkoutBuilder`, samples at their own times, events,
/// activities, a heartbeat series, and `HKMetadataKeyExternalUUID`, so the same activity is not saved twice.
///
/// What becomes what (OpenHealthKit's choices; HealthKit documents no import):
/// - heart rate, power, cadence and speed become zero-length samples at each record's time (the live builder's
///   readings are the same), of the leg's types: power is cycling or running power, cadence cycling cadence,
///   speed cycling or running speed; on foot (running, walking, hiking) the cadence (strides a minute) becomes
///   step count samples between records by the live rule (`RunningCadence`); a run's stride length, vertical
///   oscillation and ground contact time (standard fields or a pod's developer fields, `RunningDynamics`) become
///   running samples too; other activities keep heart rate and distance only;
/// - cumulative distance becomes one distance sample per record interval (the leg's distance type);
/// - energy is integrated from power by the live data source's rule (`PowerEnergy`); without power,
///   the file's total calories become one sample over the workout;
/// - RR intervals become one `HKHeartbeatSeriesSample` from the workout's start, a missing interval a gap;
/// - timer stops and starts become pause and resume events, marked laps (``ImportedWorkout/markedLaps``) lap
///   events, and a multisport file's sessions workout activities (transitions included);
/// - positions become the workout's route, through `HKWorkoutRouteBuilder` once the workout is saved.
public enum WorkoutImporter {
    /// Every type an import may save.
    public static let shareTypes: Set<HKSampleType> = [
        .workoutType(), HKQuantityType(.heartRate), HKQuantityType(.cyclingPower), HKQuantityType(.cyclingCadence),
        HKQuantityType(.cyclingSpeed), HKQuantityType(.runningPower), HKQuantityType(.runningSpeed),
        HKQuantityType(.distanceCycling), HKQuantityType(.distanceWalkingRunning), HKQuantityType(.distanceSwimming),
        HKQuantityType(.activeEnergyBurned), HKSeriesType.heartbeat(), HKSeriesType.workoutRoute(),
        HKQuantityType(.runningStrideLength), HKQuantityType(.runningVerticalOscillation),
        HKQuantityType(.runningGroundContactTime), HKQuantityType(.stepCount),
    ]

    /// Reads a FIT, TCX or GPX file (by its content: FIT files carry ".FIT" at byte 8, TCX and GPX files are XML).
    public static func read(path: String, salvage: Bool = false) throws -> ImportedWorkout {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ImportError("\(path): cannot be read (no such file, or no permission).")
        }
        let head = (try? handle.read(upToCount: 512)) ?? Data()
        try? handle.close()
        if head.count >= 12, head[head.startIndex + 8 ..< head.startIndex + 12].elementsEqual(Array(".FIT".utf8)) {
            return try FITActivityReader.read(path: path, salvage: salvage)
        }
        let text = String(decoding: head, as: UTF8.self)
        if text.contains("<TrainingCenterDatabase") || path.lowercased().hasSuffix(".tcx") {
            return try TCXActivityReader.read(path: path)
        }
        if text.contains("<gpx") || path.lowercased().hasSuffix(".gpx") {
            return try GPXActivityReader.read(path: path)
        }
        return try FITActivityReader.read(path: path, salvage: salvage)  // says why it is not FIT
    }

    /// The workout already saved from the same activity (same `HKMetadataKeyExternalUUID`), if any.
    public static func existingWorkout(
        for imported: ImportedWorkout, in store: HKHealthStore
    ) async throws -> HKWorkout? {
        let predicate = HKQuery.predicateForSamples(
            withStart: imported.start.addingTimeInterval(-1),
            end: imported.end.addingTimeInterval(1), options: [])
        let workouts = try await HKSampleQueryDescriptor(predicates: [.workout(predicate)], sortDescriptors: []).result(
            for: store)
        return workouts.first { $0.metadata?[HKMetadataKeyExternalUUID] as? String == imported.externalIdentifier }
    }

    /// Saves the workout, or returns the one already imported from the same activity (`saved` false).
    public static func save(
        _ imported: ImportedWorkout, to store: HKHealthStore
    ) async throws -> (workout: HKWorkout, saved: Bool) {
        if let existing = try await existingWorkout(for: imported, in: store) { return (existing, false) }
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = imported.activityType
        configuration.locationType = imported.locationType
        let device = imported.device?.hkDevice
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: device)
        try await builder.beginCollection(at: imported.start)
        do {
            var metadata: [String: Any] = [HKMetadataKeyExternalUUID: imported.externalIdentifier]
            if imported.locationType != .unknown {
                metadata[HKMetadataKeyIndoorWorkout] = imported.locationType == .indoor
            }
            try await builder.addMetadata(metadata)
            for leg in imported.legs {
                let legConfiguration = HKWorkoutConfiguration()
                legConfiguration.activityType = leg.activityType
                legConfiguration.locationType = leg.locationType
                try await builder.addWorkoutActivity(
                    HKWorkoutActivity(
                        workoutConfiguration: legConfiguration,
                        start: leg.interval.start, end: leg.interval.end, metadata: nil))
            }
            var events: [HKWorkoutEvent] = []
            for pause in imported.pauses {
                events.append(
                    HKWorkoutEvent(
                        type: .pause, dateInterval: DateInterval(start: pause.start, duration: 0), metadata: nil))
                events.append(
                    HKWorkoutEvent(
                        type: .resume, dateInterval: DateInterval(start: pause.end, duration: 0), metadata: nil))
            }
            for lap in imported.markedLaps {
                events.append(HKWorkoutEvent(type: .lap, dateInterval: lap, metadata: nil))
            }
            if !events.isEmpty { try await builder.addWorkoutEvents(events) }
            let samples = Self.samples(imported, device: device)
            var index = 0
            while index < samples.count {
                let batch = Array(samples[index ..< min(index + 2048, samples.count)])
                try await builder.addSamples(batch)
                index += batch.count
            }
            if let series = try await heartbeatSeries(imported, device: device, store: store) {
                try await builder.addSamples([series])
            }
            try await builder.endCollection(at: imported.end)
            guard let workout = try await builder.finishWorkout() else {
                throw ImportError("The workout could not be saved.")
            }
            if !imported.route.isEmpty {
                let routeBuilder = HKWorkoutRouteBuilder(healthStore: store, device: device)
                try await routeBuilder.insertRouteData(imported.route.map(\.location))
                _ = try await routeBuilder.finishRoute(with: workout, metadata: nil)
            }
            return (workout, true)
        } catch {
            builder.discardWorkout()
            throw error
        }
    }

    /// The leg (activity type) at a date.
    static func activityType(at date: Date, in imported: ImportedWorkout) -> HKWorkoutActivityType {
        imported.legs.last { $0.interval.start <= date }?.activityType ?? imported.activityType
    }

    static func samples(_ imported: ImportedWorkout, device: HKDevice?) -> [HKQuantitySample] {
        var samples: [HKQuantitySample] = []
        func add(_ identifier: HKQuantityTypeIdentifier?, _ unit: HKUnit, _ value: Double, _ start: Date, _ end: Date) {
            guard let identifier, value.isFinite, start >= imported.start, end <= imported.end else { return }
            samples.append(
                HKQuantitySample(
                    type: HKQuantityType(identifier), quantity: HKQuantity(unit: unit, doubleValue: value),
                    start: start, end: end, device: device, metadata: nil))
        }
        let bpm = HKUnit.count().unitDivided(by: .minute())
        let metresPerSecond = HKUnit.meter().unitDivided(by: .second())
        for reading in imported.heartRate { add(.heartRate, bpm, reading.value, reading.date, reading.date) }
        for reading in imported.power {
            let type = activityType(at: reading.date, in: imported)
            add(
                type == .cycling ? .cyclingPower : type == .running ? .runningPower : nil, .watt(), reading.value,
                reading.date, reading.date)
        }
        for reading in imported.cadence where activityType(at: reading.date, in: imported) == .cycling {
            add(.cyclingCadence, bpm, reading.value, reading.date, reading.date)
        }
        // On foot, the file's cadence (strides a minute) counts steps from the previous record by the live data
        // source's rule (RunningCadence: each reading over the time since the previous one, at most 3 s; nothing
        // across a pause), so the step samples give the file's cadence back.
        for (previous, reading) in zip(imported.cadence, imported.cadence.dropFirst())
        where WorkoutFixture.isOnFoot(activityType(at: reading.date, in: imported))
            && !imported.pauses.contains(where: { previous.date < $0.start && $0.start <= reading.date })
        {
            guard
                let steps = RunningCadence.steps(
                    stepsPerMinute: RunningCadence.stepsPerMinute(stridesPerMinute: reading.value),
                    from: previous.date.timeIntervalSinceReferenceDate, to: reading.date.timeIntervalSinceReferenceDate)
            else { continue }
            add(.stepCount, .count(), steps, previous.date, reading.date)
        }
        for reading in imported.speed {
            let type = activityType(at: reading.date, in: imported)
            add(
                type == .cycling ? .cyclingSpeed : type == .running ? .runningSpeed : nil, metresPerSecond,
                reading.value,
                reading.date, reading.date)
        }
        let dynamics: [(HKQuantityTypeIdentifier, HKUnit, [ImportedWorkout.Reading])] = [
            (.runningStrideLength, .meter(), imported.strideLength),
            (.runningVerticalOscillation, .meterUnit(with: .centi), imported.verticalOscillation),
            (.runningGroundContactTime, .secondUnit(with: .milli), imported.groundContactTime),
        ]
        for (identifier, unit, readings) in dynamics {
            for reading in readings where activityType(at: reading.date, in: imported) == .running {
                add(identifier, unit, reading.value, reading.date, reading.date)
            }
        }
        for (previous, reading) in zip(imported.distance, imported.distance.dropFirst())
        where reading.date > previous.date {
            let delta = reading.value - previous.value
            guard delta > 0 else { continue }
            add(
                HKWorkout.distanceType(for: activityType(at: reading.date, in: imported)), .meter(), delta,
                previous.date, reading.date)
        }
        // Energy: work from power by the live data source's rule (PowerEnergy: each reading holding until the next,
        // at most its hold; nothing across a pause, as a live recording forgets its last reading when it pauses).
        if !imported.power.isEmpty {
            for (previous, reading) in zip(imported.power, imported.power.dropFirst())
            where !imported.pauses.contains(where: { previous.date < $0.start && $0.start <= reading.date }) {
                let start = previous.date.timeIntervalSinceReferenceDate
                guard
                    let stretch = PowerEnergy.energy(
                        watts: previous.value, at: start,
                        next: reading.date.timeIntervalSinceReferenceDate)
                else { continue }
                add(
                    .activeEnergyBurned, .kilocalorie(), stretch.kilocalories, previous.date,
                    Date(timeIntervalSinceReferenceDate: stretch.end))
            }
        } else if let total = imported.totalEnergy, total > 0, imported.end > imported.start {
            add(.activeEnergyBurned, .kilocalorie(), total, imported.start, imported.end)
        }
        return samples
    }

    static func heartbeatSeries(
        _ imported: ImportedWorkout, device: HKDevice?, store: HKHealthStore
    ) async throws -> HKHeartbeatSeriesSample? {
        guard imported.rrIntervals.contains(where: { $0.isFinite && $0 > 0 }) else { return nil }
        let builder = HKHeartbeatSeriesBuilder(healthStore: store, device: device, start: imported.start)
        var offset = 0.0
        var gap = false
        var count = 0
        for interval in imported.rrIntervals {
            guard interval.isFinite, interval > 0 else {
                gap = true
                continue
            }
            offset += interval
            guard imported.start + offset <= imported.end, count < HKHeartbeatSeriesBuilder.maximumCount else { break }
            try await builder.addHeartbeat(at: offset, precededByGap: gap)
            gap = false
            count += 1
        }
        return try await builder.finishSeries()
    }
}
