// The Swift code of Apple's article "Adding samples to a workout" and of the HKWorkout reference page, run with
// only `import HealthKit` changed to `import OpenHealthKit`. The surrounding test code (the store, the dates, waiting
// for completion handlers) is ours; the article's statements are kept as Apple writes them.
import Foundation
import OpenHealthKit
import Testing

/// The article code that calls HealthKit's deprecated API (it predates HKWorkoutBuilder), kept verbatim in deprecated
/// bodies that the tests reach through this protocol, so the warnings the API carries stay out of the build (see
/// `LegacyWorkoutAPI`).
protocol DeprecatedArticleCode {
    static func addingSamplesToAWorkout() async throws
    static func workoutWithPauseEventsComputesDuration() async throws
}

var deprecatedArticleCode: any DeprecatedArticleCode.Type { AppleArticleTests.self }

@Suite(.timeLimit(.minutes(1))) struct AppleArticleTests {
    @Test func addingSamplesToAWorkout() async throws {
        try await deprecatedArticleCode.addingSamplesToAWorkout()
    }

    @Test func workoutWithPauseEventsComputesDuration() async throws {
        try await deprecatedArticleCode.workoutWithPauseEventsComputesDuration()
    }

    @Test func sortByStartDateWithHealthKitKey() async throws {
        let store = try await authorizedStore()
        try await store.save([heartRate(70, at: 10), heartRate(80, at: 30), heartRate(75, at: 20)])
        // The documented call, which swift-corelibs-foundation marks unavailable.
        let sortDescriptor = NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)
        let samples = try await fetch(store, HKQuantityType(.heartRate), nil, limit: 2, sort: [sortDescriptor])
        #expect(
            samples.compactMap { ($0 as? HKQuantitySample)?.quantity.doubleValue(for: HKUnit(from: "count/min")) } == [
                80, 75,
            ])
    }
}

extension AppleArticleTests: DeprecatedArticleCode {
    @available(*, deprecated, message: "Apple's article code, which calls HealthKit's deprecated API")
    static func addingSamplesToAWorkout() async throws {
        let healthStore = try await authorizedStore()
        let store = healthStore
        let start = t0
        let end = t0 + 30 * 60
        let intervals = [start, start + 60]
        var samples: [HKSample] = []

        // --- Apple: create and save the workout.
        let energyBurned = HKQuantity(unit: HKUnit.largeCalorie(), doubleValue: 425.0)
        let distance = HKQuantity(unit: HKUnit.mile(), doubleValue: 3.2)

        let run = HKWorkout(
            activityType: .running,
            start: start,
            end: end,
            duration: 0,
            totalEnergyBurned: energyBurned,
            totalDistance: distance,
            metadata: nil)

        let saved: Bool = await withCheckedContinuation { continuation in
            store.save(run) { (success, error) -> Void in
                guard success else {
                    // Perform proper error handling here.
                    continuation.resume(returning: false)
                    return
                }
                // Add detail samples here.
                continuation.resume(returning: true)
            }
        }
        #expect(saved)

        // --- Apple: add the detail samples.
        guard let distanceType = HKObjectType.quantityType(forIdentifier: .distanceWalkingRunning) else {
            fatalError("*** Unable to create a distance type ***")
        }
        let distancePerInterval = HKQuantity(unit: HKUnit.foot(), doubleValue: 165.0)
        let distancePerIntervalSample = HKQuantitySample(
            type: distanceType,
            quantity: distancePerInterval,
            start: intervals[0],
            end: intervals[1])
        samples.append(distancePerIntervalSample)

        guard let energyBurnedType = HKObjectType.quantityType(forIdentifier: .activeEnergyBurned) else {
            fatalError("*** Unable to create an energy burned type ***")
        }
        let energyBurnedPerInterval = HKQuantity(unit: HKUnit.kilocalorie(), doubleValue: 15.5)
        let energyBurnedPerIntervalSample = HKQuantitySample(
            type: energyBurnedType,
            quantity: energyBurnedPerInterval,
            start: intervals[0],
            end: intervals[1])
        samples.append(energyBurnedPerIntervalSample)

        guard let heartRateType = HKObjectType.quantityType(forIdentifier: .heartRate) else {
            fatalError("*** Unable to create a heart rate type ***")
        }
        let heartRateForInterval = HKQuantity(unit: HKUnit(from: "count/min"), doubleValue: 95.0)
        let heartRateForIntervalSample = HKQuantitySample(
            type: heartRateType,
            quantity: heartRateForInterval,
            start: intervals[0],
            end: intervals[1])
        samples.append(heartRateForIntervalSample)

        let added: Bool = await withCheckedContinuation { continuation in
            healthStore.add(samples, to: run) { (success, error) -> Void in
                guard success else {
                    // Perform proper error handling here.
                    continuation.resume(returning: false)
                    return
                }
                continuation.resume(returning: true)
            }
        }
        #expect(added)

        // --- Ours: the samples come back associated with the workout; the workout did not change.
        let associated = try await fetch(store, heartRateType, HKQuery.predicateForObjects(from: run))
        #expect(associated.count == 1)
        let heartRateSample = try #require(associated.first as? HKDiscreteQuantitySample)
        #expect(heartRateSample.quantity.doubleValue(for: HKUnit(from: "count/min")) == 95)
        #expect(heartRateSample.uuid == heartRateForIntervalSample.uuid)
        let feet = try await fetch(store, distanceType, HKQuery.predicateForObjects(from: run))
        let feetSample = try #require(feet.first as? HKCumulativeQuantitySample)
        #expect(feetSample.sumQuantity.doubleValue(for: .foot()) == 165)
        #expect(abs(feetSample.quantity.doubleValue(for: .meter()) - 50.292) < 1e-9)

        let workouts = try await fetch(store, .workoutType(), nil)
        let stored = try #require(workouts.first as? HKWorkout)
        #expect(workouts.count == 1)
        #expect(stored.uuid == run.uuid)
        #expect(stored.duration == 30 * 60)
        #expect(stored.startDate == start && stored.endDate == end)
        #expect(stored.totalEnergyBurned?.doubleValue(for: .kilocalorie()) == 425)
        #expect(stored.totalDistance?.doubleValue(for: .mile()) == 3.2)
        #expect(
            stored.statistics(for: HKQuantityType(.activeEnergyBurned))?.sumQuantity()?.doubleValue(
                for: .largeCalorie()) == 425)
        #expect(stored.workoutActivities.count == 1)
        #expect(stored.workoutActivities.first?.workoutConfiguration.activityType == .running)
    }

    @available(*, deprecated, message: "Apple's HKWorkout reference code, which calls the deprecated initializer")
    static func workoutWithPauseEventsComputesDuration() async throws {
        let store = try await authorizedStore()
        // HKWorkout reference: "This method calculates the workout's duration based on the total amount of active
        // time between the provided start and end dates."
        let events = [
            HKWorkoutEvent(type: .pause, dateInterval: DateInterval(start: t0 + 600, duration: 0), metadata: nil),
            HKWorkoutEvent(type: .resume, dateInterval: DateInterval(start: t0 + 900, duration: 0), metadata: nil),
            HKWorkoutEvent(type: .lap, dateInterval: DateInterval(start: t0, duration: 400), metadata: ["lap": 1]),
        ]
        let ride = HKWorkout(
            activityType: .cycling, start: t0, end: t0 + 3600, workoutEvents: events,
            totalEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 800),
            totalDistance: HKQuantity(unit: .meterUnit(with: .kilo), doubleValue: 30),
            device: HKDevice.local(), metadata: [HKMetadataKeyIndoorWorkout: true])
        #expect(ride.duration == 3300)
        try await store.save(ride)
        let stored = try #require(try await fetch(store, .workoutType(), nil).first as? HKWorkout)
        #expect(stored.duration == 3300)
        #expect(stored.workoutEvents?.map(\.type) == [.lap, .pause, .resume])
        #expect(stored.workoutEvents?.first?.metadata?["lap"] as? Int == 1)
        #expect(stored.metadata?[HKMetadataKeyIndoorWorkout] as? Bool == true)
        #expect(stored.device == HKDevice.local())
        #expect(
            stored.statistics(for: HKQuantityType(.distanceCycling))?.sumQuantity()?.doubleValue(for: .meter())
                == 30_000)
        #expect(stored.workoutActivities.first?.workoutConfiguration.locationType == .indoor)
        #expect(stored.workoutActivities.first?.duration == 3300)
        #expect(stored.sourceRevision.source.bundleIdentifier == "tests")
    }
}
