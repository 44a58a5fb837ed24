import FITFile
import Foundation
import OpenHealthKit

extension WorkoutExportData {
    /// Every type ``load(_:from:)`` reads: ask for them before loading (a type not readable reads as absent).
    public static let readTypes: Set<HKObjectType> = [
        .workoutType(), HKQuantityType(.heartRate), HKQuantityType(.cyclingPower), HKQuantityType(.runningPower),
        HKQuantityType(.cyclingCadence), HKQuantityType(.cyclingSpeed), HKQuantityType(.runningSpeed),
        HKQuantityType(.distanceCycling), HKQuantityType(.distanceWalkingRunning), HKQuantityType(.distanceSwimming),
        HKQuantityType(.activeEnergyBurned), HKSeriesType.heartbeat(), HKSeriesType.workoutRoute(),
        HKQuantityType(.runningStrideLength), HKQuantityType(.runningVerticalOscillation),
        HKQuantityType(.runningGroundContactTime), HKQuantityType(.stepCount),
    ]

    private static let bpm = HKUnit.count().unitDivided(by: .minute())
    private static let metresPerSecond = HKUnit.meter().unitDivided(by: .second())

    /// Reads a saved workout and what belongs to it, through the queries an app would run:
    /// `HKQuantitySeriesSampleQueryDescriptor` for every reading of the workout's samples (condensed series
    /// included), `HKHeartbeatSeriesQueryDescriptor` for its beats, its events for pauses and laps, its activities
    /// for the legs, `HKHealthStore.workoutSensors(for:)` for the sensors' Device Information and battery levels,
    /// `allStatistics`, `zoneGroup(for:)` and `HKHealthStore.normalizedPower(for:during:)` for each session's
    /// figures, `WorkoutLaps` and `HKHealthStore.statistics(for:during:)` for each lap's, and
    /// `HKWorkoutRouteQueryDescriptor` for its route's positions, and a run's step samples for its cadence
    /// (`RunningCadence`, `HKHealthStore.stepSamples(for:)`). Readings are placed at the whole second of their
    /// start (distance at its end, summed; a step sample's cadence at its end, the reading that counted it); pauses
    /// are `WorkoutPauses`'.
    public static func load(_ workout: HKWorkout, from store: HKHealthStore) async throws -> WorkoutExportData {
        let indoor = workout.metadata?[HKMetadataKeyIndoorWorkout] as? Bool
        var data = WorkoutExportData(
            uuid: workout.uuid, activityType: workout.workoutActivityType,
            locationType: indoor == nil ? .unknown : indoor == true ? .indoor : .outdoor,
            start: workout.startDate, end: workout.endDate)
        var devices: [HKDevice] = workout.device.map { [$0] } ?? []
        var bySecond: [Int64: Record] = [:]
        func second(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
        func update(_ date: Date, _ body: (inout Record) -> Void) {
            let key = second(date)
            var record = bySecond[key] ?? Record(date: Date(timeIntervalSince1970: TimeInterval(key)))
            body(&record)
            bySecond[key] = record
        }
        func readings(_ identifiers: [HKQuantityTypeIdentifier], unit: HKUnit) async throws -> [(DateInterval, Double)]
        {
            var out: [(DateInterval, Double)] = []
            for identifier in identifiers {
                let predicate = HKSamplePredicate.quantitySample(
                    type: HKQuantityType(identifier),
                    predicate: HKQuery.predicateForObjects(from: workout))
                for try await result in HKQuantitySeriesSampleQueryDescriptor(
                    predicate: predicate, options: .includeSample
                )
                .results(for: store) {
                    out.append((result.dateInterval, result.quantity.doubleValue(for: unit)))
                    if let device = result.sample?.device, !devices.contains(device) { devices.append(device) }
                }
            }
            return out.sorted { $0.0.start < $1.0.start }
        }
        for (interval, value) in try await readings([.heartRate], unit: bpm) {
            update(interval.start) { $0.heartRate = value }
        }
        for (interval, value) in try await readings([.cyclingPower, .runningPower], unit: .watt()) {
            update(interval.start) { $0.power = value }
        }
        for (interval, value) in try await readings([.cyclingCadence], unit: bpm) {
            update(interval.start) { $0.cadence = value }
        }
        // A run's cadence: each step sample's (RunningCadence), in strides a minute at the second of its end, the
        // reading that counted it.
        let steps = try await store.stepSamples(for: workout)
        for sample in steps {
            guard let cadence = RunningCadence.stepsPerMinute(steps: sample.steps, over: sample.interval) else {
                continue
            }
            update(sample.interval.end) {
                $0.cadence = $0.cadence ?? RunningCadence.stridesPerMinute(stepsPerMinute: cadence)
            }
        }
        for (interval, value) in try await readings([.cyclingSpeed, .runningSpeed], unit: metresPerSecond) {
            update(interval.start) { $0.speed = value }
        }
        for (interval, value) in try await readings([.runningStrideLength], unit: .meter()) {
            update(interval.start) { $0.strideLength = value }
        }
        for (interval, value) in try await readings([.runningVerticalOscillation], unit: .meterUnit(with: .centi)) {
            update(interval.start) { $0.verticalOscillation = value }
        }
        for (interval, value) in try await readings([.runningGroundContactTime], unit: .secondUnit(with: .milli)) {
            update(interval.start) { $0.groundContactTime = value }
        }
        // Cumulative distance at each sample's end; the first sample's start holds 0, so a reader that counts
        // from its first record's distance (as FIT readers and the import do) gets the whole of it.
        var total = 0.0
        let distances = try await readings(
            [.distanceCycling, .distanceWalkingRunning, .distanceSwimming], unit: .meter())
        if let first = distances.first?.0.start { update(first) { $0.distance = $0.distance ?? 0 } }
        for (interval, value) in distances.sorted(by: { $0.0.end < $1.0.end }) {
            total += value
            let sum = total
            update(interval.end) { $0.distance = sum }
        }
        for location in try await routeLocations(of: workout, from: store) {
            update(location.timestamp) { record in
                record.latitude = location.coordinate.latitude
                record.longitude = location.coordinate.longitude
                record.altitude = location.verticalAccuracy >= 0 ? location.altitude : nil
            }
        }
        data.records = bySecond.values.sorted { $0.date < $1.date }
        // The sensors a live recording kept: their device as known at the end (with its Device Information) stands
        // for every device of the samples with the same identifier, and brings its battery levels.
        let sensors = try await store.workoutSensors(for: workout)
        for sensor in sensors {
            let same = { (device: HKDevice) in
                device == sensor.device
                    || (sensor.device.localIdentifier != nil && device.localIdentifier == sensor.device.localIdentifier)
            }
            let index = devices.firstIndex(where: same) ?? devices.endIndex
            devices.removeAll { same($0) }
            devices.insert(sensor.device, at: min(index, devices.endIndex))
        }
        for sensor in sensors
        where sensor.batteryPercentAtStart != nil || sensor.batteryPercentAtEnd != nil {
            if let index = devices.firstIndex(of: sensor.device) {
                data.batteries[index] = Battery(
                    atStart: sensor.batteryPercentAtStart, atEnd: sensor.batteryPercentAtEnd)
            }
        }
        data.devices = devices
        data.rrIntervals = try await heartbeatIntervals(of: workout, from: store)

        // Pauses and laps by the library's rules (WorkoutPauses, WorkoutLaps): the file's timer time is the
        // workout's duration, and its laps are the ones `workout replay` prints, with the same figures.
        let events = workout.workoutEvents ?? []
        data.pauses = WorkoutPauses.intervals(in: events, from: workout.startDate, to: workout.endDate)

        let activities = workout.workoutActivities.filter { $0.endDate != nil }
        if activities.count > 1 {
            for activity in activities {
                let configuration = activity.workoutConfiguration
                let interval = DateInterval(start: activity.startDate, end: activity.endDate ?? activity.startDate)
                var summary = data.summary(
                    of: interval, activityType: configuration.activityType,
                    locationType: configuration.locationType)
                summary.apply(
                    activity.allStatistics, zones: activity.zoneGroup(for: HKQuantityType(.heartRate)),
                    powerZones: activity.zoneGroup(for: HKQuantityType(.cyclingPower)))
                summary.normalizedPower = try await store.normalizedPower(for: workout, during: interval)?
                    .doubleValue(for: .watt())
                summary.applyRunningCadence(RunningCadence.statistics(steps, within: interval))
                data.sessions.append(summary)
            }
        } else {
            var summary = data.summary(
                of: DateInterval(start: workout.startDate, end: workout.endDate),
                activityType: workout.workoutActivityType, locationType: data.locationType)
            summary.apply(
                workout.allStatistics, zones: workout.zoneGroup(for: HKQuantityType(.heartRate)),
                powerZones: workout.zoneGroup(for: HKQuantityType(.cyclingPower)))
            summary.normalizedPower = try await store.normalizedPower(for: workout)?.doubleValue(for: .watt())
            summary.applyRunningCadence(RunningCadence.statistics(steps))
            data.sessions.append(summary)
        }
        for session in data.sessions {
            let interval = session.interval
            for lap in WorkoutLaps.intervals(in: events, from: interval.start, to: interval.end) {
                var summary = data.summary(
                    of: lap, activityType: session.activityType, locationType: session.locationType)
                summary.apply(try await store.statistics(for: workout, during: lap), zones: nil)
                summary.normalizedPower = try await store.normalizedPower(for: workout, during: lap)?
                    .doubleValue(for: .watt())
                summary.applyRunningCadence(RunningCadence.statistics(steps, within: lap))
                data.laps.append(summary)
            }
        }
        return data
    }

    /// The locations of the workout's routes (`HKWorkoutRouteQueryDescriptor`), in time order.
    static func routeLocations(of workout: HKWorkout, from store: HKHealthStore) async throws -> [CLLocation] {
        let routes = try await HKSampleQueryDescriptor(
            predicates: [
                .sample(type: HKSeriesType.workoutRoute(), predicate: HKQuery.predicateForObjects(from: workout))
            ],
            sortDescriptors: [SortDescriptor(\.startDate)]
        ).result(for: store).compactMap { $0 as? HKWorkoutRoute }
        var locations: [CLLocation] = []
        for route in routes {
            for try await location in HKWorkoutRouteQueryDescriptor(route).results(for: store) {
                locations.append(location)
            }
        }
        return locations.sorted { $0.timestamp < $1.timestamp }
    }

    /// The intervals between the beats of the workout's heartbeat series, the first from the workout's start.
    static func heartbeatIntervals(of workout: HKWorkout, from store: HKHealthStore) async throws -> [Double] {
        let series = try await HKSampleQueryDescriptor(
            predicates: [
                .sample(type: HKSeriesType.heartbeat(), predicate: HKQuery.predicateForObjects(from: workout))
            ],
            sortDescriptors: [SortDescriptor(\.startDate)]
        ).result(for: store).compactMap { $0 as? HKHeartbeatSeriesSample }
        var intervals: [Double] = []
        var previous = workout.startDate
        for sample in series {
            for try await beat in HKHeartbeatSeriesQueryDescriptor(sample).results(for: store) {
                let date = sample.startDate + beat.timeIntervalSinceStart
                if beat.precededByGap { intervals.append(.nan) }
                intervals.append(date.timeIntervalSince(previous))
                previous = date
            }
        }
        return intervals
    }
}

extension WorkoutExportData.Summary {
    /// Takes the totals, averages and maxima HealthKit keeps for the workout or activity (`allStatistics`), or the
    /// library's statistics of a lap (`HKHealthStore.statistics(for:during:)`), and the time in heart-rate and power
    /// zones (`zoneGroup(for:)`).
    mutating func apply(
        _ statistics: [HKQuantityType: HKStatistics], zones: HKWorkoutZoneGroup?, powerZones: HKWorkoutZoneGroup? = nil
    ) {
        let bpm = HKUnit.count().unitDivided(by: .minute())
        let metresPerSecond = HKUnit.meter().unitDivided(by: .second())
        func get(_ identifier: HKQuantityTypeIdentifier) -> HKStatistics? { statistics[HKQuantityType(identifier)] }
        if let sum = get(HKWorkout.distanceType(for: activityType))?.sumQuantity() {
            distance = sum.doubleValue(for: .meter())
        }
        if let sum = get(.activeEnergyBurned)?.sumQuantity() { energy = sum.doubleValue(for: .kilocalorie()) }
        if let heart = get(.heartRate) {
            averageHeartRate = heart.averageQuantity()?.doubleValue(for: bpm) ?? averageHeartRate
            maximumHeartRate = heart.maximumQuantity()?.doubleValue(for: bpm) ?? maximumHeartRate
        }
        if let cadence = get(.cyclingCadence) {
            averageCadence = cadence.averageQuantity()?.doubleValue(for: bpm) ?? averageCadence
            maximumCadence = cadence.maximumQuantity()?.doubleValue(for: bpm) ?? maximumCadence
        }
        if let power = get(.cyclingPower) ?? get(.runningPower) {
            averagePower = power.averageQuantity()?.doubleValue(for: .watt()) ?? averagePower
            maximumPower = power.maximumQuantity()?.doubleValue(for: .watt()) ?? maximumPower
        }
        if let speed = get(.cyclingSpeed) ?? get(.runningSpeed) {
            averageSpeed = speed.averageQuantity()?.doubleValue(for: metresPerSecond) ?? averageSpeed
            maximumSpeed = speed.maximumQuantity()?.doubleValue(for: metresPerSecond) ?? maximumSpeed
        }
        if let zones { timeInHeartRateZones = zones.zoneDurations.map(\.duration) }
        if let steps = get(.stepCount)?.sumQuantity() { self.steps = steps.doubleValue(for: .count()) }
        // A leg with no time in a power zone (a swim, a run) has none to write.
        if let powerZones, powerZones.zoneDurations.contains(where: { $0.duration > 0 }) {
            timeInPowerZones = powerZones.zoneDurations.map(\.duration)
        }
    }
}

extension WorkoutExportData.Summary {
    /// A run's cadence (`RunningCadence`, from its step samples) in strides a minute, FIT's and TCX's running
    /// cadence, when the span has no cycling cadence.
    mutating func applyRunningCadence(_ cadence: RunningCadence.Statistics?) {
        guard let cadence, averageCadence == nil else { return }
        averageCadence = RunningCadence.stridesPerMinute(stepsPerMinute: cadence.averageStepsPerMinute)
        maximumCadence = RunningCadence.stridesPerMinute(stepsPerMinute: cadence.maximumStepsPerMinute)
        isRunningCadence = true
    }
}
