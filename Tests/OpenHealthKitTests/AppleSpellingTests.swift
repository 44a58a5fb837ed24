import Foundation
import Testing

@testable import OpenHealthKit

/// The symbols issue 28 added or respelled as Apple's SDK declares them, each with the behaviour Apple documents
/// (or, where Linux cannot, what it does here).
@Suite(.timeLimit(.minutes(1))) struct AppleSpellingTests {
    /// `builder.seriesBuilder(for: .workoutRoute()) as? HKWorkoutRouteBuilder`, as live workouts record their route.
    @Test func aWorkoutBuilderHandsOutOneRouteBuilder() async throws {
        let store = try await authorizedStore()
        let types: Set<HKSampleType> = [.workoutType(), HKSeriesType.workoutRoute()]
        try await store.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration(.running), device: nil)
        let routeBuilder = try #require(builder.seriesBuilder(for: .workoutRoute()) as? HKWorkoutRouteBuilder)
        #expect(builder.seriesBuilder(for: .workoutRoute()) === routeBuilder)
        #expect(builder.seriesBuilder(for: .heartbeat()) == nil)
        try await builder.beginCollection(at: t0)
        let locations = (0 ..< 10).map {
            CLLocation(
                coordinate: CLLocationCoordinate2D(latitude: 47 + Double($0) * 1e-4, longitude: 8), altitude: 400,
                horizontalAccuracy: 5, verticalAccuracy: 3, course: 0, speed: 3, timestamp: t0 + Double($0))
        }
        try await routeBuilder.insertRouteData(locations)
        try await builder.endCollection(at: t0 + 10)
        let workout = try #require(try await builder.finishWorkout())
        let route = try await routeBuilder.finishRoute(with: workout, metadata: nil)
        var read: [CLLocation] = []
        for try await location in HKWorkoutRouteQueryDescriptor(route).results(for: store) { read.append(location) }
        #expect(read.map(\.timestamp) == locations.map(\.timestamp))
        let routes = try await HKSampleQueryDescriptor(
            predicates: [.workoutRoute(HKQuery.predicateForObjects(from: workout))],
            sortDescriptors: []
        ).result(for: store)
        #expect(routes.map(\.uuid) == [route.uuid])
    }

    @Test func effortSamplesAreFoundThroughTheirRelationship() async throws {
        let store = try await authorizedStore()
        let effort = HKQuantityType(.workoutEffortScore)
        try await store.requestAuthorization(toShare: [effort, .workoutType()], read: [effort, .workoutType()])
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration(.cycling), device: nil)
        try await builder.beginCollection(at: t0)
        let activity = HKWorkoutActivity(
            workoutConfiguration: configuration(.cycling), start: t0, end: t0 + 600, metadata: nil)
        try await builder.addWorkoutActivity(activity)
        try await builder.endCollection(at: t0 + 600)
        let workout = try #require(try await builder.finishWorkout())
        let score = { (value: Double) in
            HKQuantitySample(
                type: effort, quantity: HKQuantity(unit: .appleEffortScore(), doubleValue: value), start: t0 + 600,
                end: t0 + 600)
        }
        let whole = score(7), leg = score(5), unrelated = score(2)
        try await store.save([whole, leg, unrelated])
        #expect(try await store.relateWorkoutEffortSample(whole, with: workout, activity: nil))
        let savedActivity = try #require(workout.workoutActivities.first)
        #expect(try await store.relateWorkoutEffortSample(leg, with: workout, activity: savedActivity))
        let forWorkout = try await fetch(
            store, effort, HKQuery.predicateForWorkoutEffortSamplesRelated(workout: workout, activity: nil))
        #expect(forWorkout.map(\.uuid) == [whole.uuid])
        let forLeg = try await fetch(
            store, effort, HKQuery.predicateForWorkoutEffortSamplesRelated(workout: workout, activity: savedActivity))
        #expect(forLeg.map(\.uuid) == [leg.uuid])
        #expect(try await store.unrelateWorkoutEffortSample(leg, from: workout, activity: savedActivity))
        #expect(
            try await fetch(
                store, effort,
                HKQuery.predicateForWorkoutEffortSamplesRelated(workout: workout, activity: savedActivity)
            ).isEmpty)
    }

    @Test func respelledSymbolsBehaveAsBefore() async throws {
        let bpm = HKUnit.count().unitDivided(by: .minute())
        #expect(HKQuantity(unit: bpm, doubleValue: 60).is(compatibleWith: .hertz()))
        #expect(!HKQuantity(unit: bpm, doubleValue: 60).is(compatibleWith: .meter()))
        #expect(HKError.Code.unknownError.rawValue == 0 && HKError.unknownError == .unknownError)
        #expect(HKError(.unknownError).localizedDescription == "An unknown error occurred.")
        #expect(HKCyclingFunctionalThresholdPowerTestType.maxExercise60Minute.rawValue == 1)
        #expect(HKCyclingFunctionalThresholdPowerTestType.maxExercise20Minute.rawValue == 2)
        #expect(HKVO2MaxTestType.allCases.map(\.rawValue) == [1, 2, 3, 4])
        #expect(
            [HKMetadataKeyVO2MaxTestType, HKMetadataKeyVO2MaxValue, HKMetadataKeySWOLFScore] == [
                "HKVO2MaxTestType", "HKVO2MaxValue", "HKSWOLFScore",
            ])
        // Apple's subclasses answer the superclass's initializers, and are what they say.
        let power = HKDiscreteQuantitySample(
            type: HKQuantityType(.cyclingPower), quantity: HKQuantity(unit: .watt(), doubleValue: 250),
            start: t0, end: t0 + 1, device: nil, metadata: nil)
        #expect(power.minimumQuantity == power.quantity && power.maximumQuantity.doubleValue(for: .watt()) == 250)
        #expect(power.mostRecentQuantityDateInterval == DateInterval(start: t0, end: t0 + 1))
        let energy = HKCumulativeQuantitySample(
            type: HKQuantityType(.activeEnergyBurned), quantity: HKQuantity(unit: .kilocalorie(), doubleValue: 12),
            start: t0, end: t0 + 60, device: nil, metadata: nil)
        #expect(energy.sumQuantity.doubleValue(for: .kilocalorie()) == 12)
        // The series query's options default to none.
        let descriptor = HKQuantitySeriesSampleQueryDescriptor(
            predicate: .quantitySample(type: HKQuantityType(.heartRate)))
        #expect(descriptor.options == [])
    }

    /// Every descriptor Apple makes an HKAsyncSequenceQuery is one here, its sequence its own `Results`.
    @Test func asyncSequenceQueriesAreOneProtocol() async throws {
        func sequenceType<Query: HKAsyncSequenceQuery>(_ query: Query) -> ObjectIdentifier {
            ObjectIdentifier(Query.Sequence.self)
        }
        let route = HKWorkoutRouteQueryDescriptor(
            HKWorkoutRoute(
                count: 0, startDate: t0, endDate: t0, uuid: UUID(), metadata: nil,
                device: nil, sourceRevision: nil, locations: nil))
        #expect(sequenceType(route) == ObjectIdentifier(HKWorkoutRouteQueryDescriptor.Results.self))
        let beats = HKHeartbeatSeriesQueryDescriptor(
            HKHeartbeatSeriesSample(
                count: 0, startDate: t0, endDate: t0, uuid: UUID(), metadata: nil,
                device: nil, sourceRevision: nil, beats: nil))
        #expect(sequenceType(beats) == ObjectIdentifier(HKHeartbeatSeriesQueryDescriptor.Results.self))
        #expect(
            sequenceType(HKAnchoredObjectQueryDescriptor(predicates: [.workout()], anchor: nil))
                == ObjectIdentifier(HKAnchoredObjectQueryDescriptor<HKWorkout>.Results.self))
        #expect(
            sequenceType(
                HKQuantitySeriesSampleQueryDescriptor(predicate: .quantitySample(type: HKQuantityType(.heartRate))))
                == ObjectIdentifier(HKQuantitySeriesSampleQueryDescriptor.Results.self))
        // A route not in the store: the sequence fails with errorNoData, as HealthKit's does.
        let store = try await authorizedStore()
        await expectHKError(.errorNoData) { for try await _ in route.results(for: store) {} }
    }

    @Test func storeMethodsOfOtherPlatformsAndVersions() async throws {
        let store = try await authorizedStore()
        #expect(try await store.earliestAuthorizedSampleDate(for: HKQuantityType(.heartRate)) == .distantPast)
        await expectHKError(.errorInvalidArgument) {
            try await store.recalibrateEstimates(sampleType: HKQuantityType(.heartRate), date: t0)
        }
        #expect(NSNotification.Name.HKUserPreferencesDidChange.rawValue == "HKUserPreferencesDidChangeNotification")
        try await store.save(heartRate(70, at: 0))
        #expect(
            try await fetch(store, HKQuantityType(.heartRate), HKQuery.predicateForObjectsWithNoCorrelation()).count
                == 1)
    }

    @Test func formatterUnitsConvertBothWays() {
        #expect(HKUnit(from: MassFormatter.Unit.kilogram) == .gramUnit(with: .kilo))
        #expect(HKUnit(from: LengthFormatter.Unit.mile) == .mile())
        #expect(HKUnit(from: EnergyFormatter.Unit.kilocalorie) == .kilocalorie())
        #expect(HKUnit(from: EnergyFormatter.Unit.calorie) == .smallCalorie())
        #expect(HKUnit.massFormatterUnit(from: .pound()) == .pound)
        #expect(HKUnit.lengthFormatterUnit(from: .meterUnit(with: .centi)) == .centimeter)
        #expect(HKUnit.energyFormatterUnit(from: .jouleUnit(with: .kilo)) == .kilojoule)
    }
}
