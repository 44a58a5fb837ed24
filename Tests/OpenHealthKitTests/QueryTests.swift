import Foundation
import OpenHealthKit
import TestSupport
import Testing

@Suite(.postgresCluster, .timeLimit(.minutes(1))) struct QueryTests {
    /// Three workouts: a 30-minute run, a 60-minute ride with a power activity and a 45-minute walk.
    private func seed(_ store: HKHealthStore) async throws -> (run: HKWorkout, ride: HKWorkout, walk: HKWorkout) {
        let run = legacy.workout(
            activityType: .running, start: t0, end: t0 + 1800, duration: 0,
            totalEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 300),
            totalDistance: HKQuantity(unit: .meter(), doubleValue: 5000), metadata: nil)
        let ride = legacy.workout(
            activityType: .cycling, start: t0 + 7200, end: t0 + 10800, duration: 0,
            totalEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 700),
            totalDistance: HKQuantity(unit: .meter(), doubleValue: 30000), metadata: nil)
        let walk = legacy.workout(
            activityType: .walking, start: t0 + 86400, end: t0 + 86400 + 2700, duration: 0,
            totalEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 150),
            totalDistance: nil, metadata: nil)
        try await store.save([run, ride, walk])
        try await legacy.add([heartRate(140, at: 60), heartRate(150, at: 120)], to: run, in: store)
        try await legacy.add([heartRate(130, at: 7300)], to: ride, in: store)
        try await store.save(heartRate(60, at: 50_000))  // not in any workout
        return (run, ride, walk)
    }

    private func workouts(_ store: HKHealthStore, _ predicate: NSPredicate?) async throws -> [HKWorkoutActivityType] {
        try await fetch(
            store, .workoutType(), predicate,
            sort: [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: true)]
        )
        .map { ($0 as! HKWorkout).workoutActivityType }
    }

    @Test(arguments: StoreKind.available) func objectsFromWorkoutAndByUUID(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        let (run, ride, _) = try await seed(store)
        #expect(try await fetch(store, HKQuantityType(.heartRate), HKQuery.predicateForObjects(from: run)).count == 2)
        #expect(try await fetch(store, HKQuantityType(.heartRate), HKQuery.predicateForObjects(from: ride)).count == 1)
        #expect(try await fetch(store, HKQuantityType(.heartRate), nil).count == 4)
        #expect(
            try await fetch(store, .workoutType(), HKQuery.predicateForObject(with: ride.uuid)).map(\.uuid) == [
                ride.uuid
            ])
        #expect(
            try await fetch(store, .workoutType(), HKQuery.predicateForObjects(with: [run.uuid, ride.uuid])).count == 2)
        #expect(try await fetch(store, .workoutType(), HKQuery.predicateForObjects(with: [])).isEmpty)
    }

    @Test(arguments: StoreKind.available) func sampleDatePredicateOptions(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        _ = try await seed(store)
        // Workouts overlapping [t0 + 1000, t0 + 8000): the run (ends 1800) and the ride (starts 7200).
        #expect(
            try await workouts(store, HKQuery.predicateForSamples(withStart: t0 + 1000, end: t0 + 8000)) == [
                .running, .cycling,
            ])
        #expect(
            try await workouts(
                store, HKQuery.predicateForSamples(withStart: t0 + 1000, end: t0 + 8000, options: .strictStartDate))
                == [.cycling])
        #expect(
            try await workouts(
                store, HKQuery.predicateForSamples(withStart: t0 + 1000, end: t0 + 8000, options: .strictEndDate)) == [
                    .running
                ])
        #expect(
            try await workouts(
                store,
                HKQuery.predicateForSamples(
                    withStart: t0 + 1000, end: t0 + 8000,
                    options: [.strictStartDate, .strictEndDate])) == [])
        #expect(try await workouts(store, HKQuery.predicateForSamples(withStart: nil, end: t0 + 1)) == [.running])
        #expect(try await workouts(store, HKQuery.predicateForSamples(withStart: t0 + 20000, end: nil)) == [.walking])
    }

    @Test(arguments: StoreKind.available) func workoutPredicates(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        _ = try await seed(store)
        #expect(try await workouts(store, HKQuery.predicateForWorkouts(with: .cycling)) == [.cycling])
        #expect(
            try await workouts(store, HKQuery.predicateForWorkouts(with: .greaterThan, duration: 1800)) == [
                .cycling, .walking,
            ])
        #expect(
            try await workouts(store, HKQuery.predicateForWorkouts(with: .lessThanOrEqualTo, duration: 1800)) == [
                .running
            ])
        let energy = HKQuantityType(.activeEnergyBurned)
        #expect(
            try await workouts(
                store,
                HKQuery.predicateForWorkouts(
                    operatorType: .greaterThanOrEqualTo, quantityType: energy,
                    sumQuantity: HKQuantity(unit: .kilocalorie(), doubleValue: 300))) == [.running, .cycling])
        #expect(
            try await workouts(
                store,
                legacy.predicateForWorkouts(
                    with: .greaterThan,
                    totalDistance: HKQuantity(unit: .mile(), doubleValue: 10))) == [.cycling])
        #expect(
            try await workouts(
                store,
                legacy.predicateForWorkouts(
                    with: .lessThan,
                    totalEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 200))) == [.walking])
    }

    @Test(arguments: StoreKind.available) func activityPredicatesMustBeWrapped(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        _ = try await seed(store)
        let cyclingActivity = HKQuery.predicateForWorkoutActivities(workoutActivityType: .cycling)
        #expect(
            try await workouts(store, HKQuery.predicateForWorkouts(activityPredicate: cyclingActivity)) == [.cycling])
        let long = HKQuery.predicateForWorkoutActivities(operatorType: .greaterThanOrEqualTo, duration: 2700)
        #expect(
            try await workouts(store, HKQuery.predicateForWorkouts(activityPredicate: long)) == [.cycling, .walking])
        let energy = HKQuery.predicateForWorkoutActivities(
            operatorType: .greaterThan, quantityType: HKQuantityType(.activeEnergyBurned),
            sumQuantity: HKQuantity(unit: .kilocalorie(), doubleValue: 500))
        #expect(try await workouts(store, HKQuery.predicateForWorkouts(activityPredicate: energy)) == [.cycling])
        let dates = HKQuery.predicateForWorkoutActivities(start: t0 + 80000, end: nil, options: .strictStartDate)
        #expect(try await workouts(store, HKQuery.predicateForWorkouts(activityPredicate: dates)) == [.walking])
        let both = NSCompoundPredicate(andPredicateWithSubpredicates: [cyclingActivity, long])
        #expect(try await workouts(store, HKQuery.predicateForWorkouts(activityPredicate: both)) == [.cycling])
        // Unwrapped: HealthKit requires the wrapper, so the query fails with a clear error.
        await expectHKError(.errorInvalidArgument) { _ = try await self.workouts(store, cyclingActivity) }
    }

    @Test(arguments: StoreKind.available) func compoundPredicates(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        _ = try await seed(store)
        let cycling = HKQuery.predicateForWorkouts(with: .cycling)
        let walking = HKQuery.predicateForWorkouts(with: .walking)
        let short = HKQuery.predicateForWorkouts(with: .lessThan, duration: 3000)
        #expect(
            try await workouts(store, NSCompoundPredicate(orPredicateWithSubpredicates: [cycling, walking])) == [
                .cycling, .walking,
            ])
        #expect(
            try await workouts(
                store,
                NSCompoundPredicate(andPredicateWithSubpredicates: [
                    NSCompoundPredicate(orPredicateWithSubpredicates: [cycling, walking]), short,
                ])) == [.walking])
        #expect(
            try await workouts(store, NSCompoundPredicate(notPredicateWithSubpredicate: cycling)) == [
                .running, .walking,
            ])
        #expect(try await workouts(store, NSPredicate(value: false)).isEmpty)
        #expect(
            try await workouts(
                store, NSCompoundPredicate(andPredicateWithSubpredicates: [NSPredicate(value: true), cycling])) == [
                    .cycling
                ])
        // Predicates also answer for objects in memory.
        let rideObject = legacy.workout(activityType: .cycling, start: t0, end: t0 + 100)
        #expect(NSCompoundPredicate(andPredicateWithSubpredicates: [cycling, short]).evaluate(with: rideObject))
        #expect(!walking.evaluate(with: rideObject))
    }

    @Test(arguments: StoreKind.available) func sortingAndLimits(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        _ = try await seed(store)
        let byDuration = try await fetch(
            store, .workoutType(), nil, sort: [NSSortDescriptor(key: HKWorkoutSortIdentifierDuration, ascending: false)]
        )
        #expect(byDuration.map { ($0 as! HKWorkout).workoutActivityType } == [.cycling, .walking, .running])
        let byEnergy = try await fetch(
            store, .workoutType(), nil, limit: 1,
            sort: [NSSortDescriptor(key: HKWorkoutSortIdentifierTotalEnergyBurned, ascending: true)])
        #expect(byEnergy.map { ($0 as! HKWorkout).workoutActivityType } == [.walking])
        let byDistance = try await fetch(
            store, .workoutType(), nil, limit: 2,
            sort: [NSSortDescriptor(key: HKWorkoutSortIdentifierTotalDistance, ascending: false)])
        #expect(byDistance.map { ($0 as! HKWorkout).workoutActivityType } == [.cycling, .running])
    }

    @Test(arguments: StoreKind.available) func queryDescriptorsAndAsyncDescriptor(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        let (run, _, _) = try await seed(store)
        let descriptors = [
            HKQueryDescriptor(sampleType: .workoutType(), predicate: HKQuery.predicateForWorkouts(with: .running)),
            HKQueryDescriptor(
                sampleType: HKQuantityType(.heartRate), predicate: HKQuery.predicateForObjects(from: run)),
        ]
        let mixed: [HKSample] = try await withCheckedThrowingContinuation { continuation in
            store.execute(
                HKSampleQuery(queryDescriptors: descriptors, limit: HKObjectQueryNoLimit) { _, samples, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else {
                        continuation.resume(returning: samples ?? [])
                    }
                })
        }
        #expect(mixed.count == 3)

        let descriptor = HKSampleQueryDescriptor(
            predicates: [.workout()], sortDescriptors: [SortDescriptor(\.endDate, order: .reverse)], limit: 2)
        let latest = try await descriptor.result(for: store)
        #expect(latest.map(\.workoutActivityType) == [.walking, .cycling])
        let heart = HKSampleQueryDescriptor(
            predicates: [
                .quantitySample(type: HKQuantityType(.heartRate), predicate: HKQuery.predicateForObjects(from: run))
            ],
            sortDescriptors: [SortDescriptor(\.startDate)])
        #expect(
            try await heart.result(for: store).map { $0.quantity.doubleValue(for: HKUnit(from: "count/min")) } == [
                140, 150,
            ])
    }

    @Test func readDenialLooksLikeNoData() async throws {
        let writer = try await authorizedStore(client: "writer")
        _ = try await seed(writer)
        let reader = writer.asClient("reader")
        reader.authorizationPolicy = HKAuthorizationPolicy { share, read in
            (share, read.subtracting([HKQuantityTypeIdentifier.heartRate.rawValue]))
        }
        try await reader.requestAuthorization(
            toShare: [HKQuantityType(.heartRate)], read: [HKObjectType.workoutType(), HKQuantityType(.heartRate)])
        #expect(try await fetch(reader, .workoutType(), nil).count == 3)
        #expect(try await fetch(reader, HKQuantityType(.heartRate), nil).isEmpty)
        // A client always sees what it saved itself.
        try await reader.save(heartRate(99, at: 99))
        #expect(try await fetch(reader, HKQuantityType(.heartRate), nil).count == 1)
        // Sharing says nothing about reading, as in HealthKit.
        #expect(reader.authorizationStatus(for: HKQuantityType(.heartRate)) == .sharingAuthorized)
    }

    @Test func sharingNeedsAuthorization() async throws {
        let store = HKHealthStore.inMemory(clientIdentifier: "new")
        await expectHKError(.errorAuthorizationNotDetermined) { try await store.save(heartRate(60, at: 0)) }
        #expect(
            try await store.statusForAuthorizationRequest(toShare: [HKQuantityType(.heartRate)], read: [])
                == .shouldRequest)
        store.authorizationPolicy = .denyAll
        try await store.requestAuthorization(toShare: [HKQuantityType(.heartRate)], read: [])
        #expect(store.authorizationStatus(for: HKQuantityType(.heartRate)) == .sharingDenied)
        #expect(
            try await store.statusForAuthorizationRequest(toShare: [HKQuantityType(.heartRate)], read: [])
                == .unnecessary)
        await expectHKError(.errorAuthorizationDenied) { try await store.save(heartRate(60, at: 0)) }
        // A decision once made is not asked again.
        store.authorizationPolicy = .grantAll
        try await store.requestAuthorization(toShare: [HKQuantityType(.heartRate)], read: [])
        #expect(store.authorizationStatus(for: HKQuantityType(.heartRate)) == .sharingDenied)
        try store.setAuthorizationStatus(.sharingAuthorized, forSharing: HKQuantityType(.heartRate))
        try await store.save(heartRate(60, at: 0))
    }

    @Test(arguments: StoreKind.available) func anchoredQueryReportsAdditionsDeletionsAndUpdates(
        kind: StoreKind
    ) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        let first = heartRate(60, at: 0)
        let second = heartRate(61, at: 1)
        try await store.save([first, second])

        let initial = HKAnchoredObjectQueryDescriptor(
            predicates: [.quantitySample(type: HKQuantityType(.heartRate))], anchor: nil, limit: 1)
        let page1 = try await initial.result(for: store)
        #expect(page1.addedSamples.map(\.uuid) == [first.uuid])
        let page2 = try await HKAnchoredObjectQueryDescriptor(
            predicates: [.quantitySample(type: HKQuantityType(.heartRate))],
            anchor: page1.newAnchor
        ).result(for: store)
        #expect(page2.addedSamples.map(\.uuid) == [second.uuid])
        try await store.delete(first)
        let third = heartRate(62, at: 2)
        try await store.save(third)
        let page3 = try await HKAnchoredObjectQueryDescriptor(
            predicates: [.quantitySample(type: HKQuantityType(.heartRate))],
            anchor: page2.newAnchor
        ).result(for: store)
        #expect(page3.deletedObjects.map(\.uuid) == [first.uuid])
        #expect(page3.addedSamples.map(\.uuid) == [third.uuid])

        // The update handler hears about a later save.
        let (stream, continuation) = AsyncStream.makeStream(of: [UUID].self)
        let query = HKAnchoredObjectQuery(
            type: HKQuantityType(.heartRate), predicate: nil, anchor: page3.newAnchor,
            limit: HKObjectQueryNoLimit
        ) { _, samples, _, _, _ in
            continuation.yield(samples?.map(\.uuid) ?? [])
        }
        query.updateHandler = { _, samples, _, _, _ in continuation.yield(samples?.map(\.uuid) ?? []) }
        store.execute(query)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == [])
        let fourth = heartRate(63, at: 3)
        try await store.save(fourth)
        #expect(await iterator.next() == [fourth.uuid])
        store.stop(query)
    }
}
