// The Swift code of Apple's articles "Creating a workout route" and "Reading route data" (HKWorkoutRouteBuilder,
// HKWorkoutRouteQuery, CLLocation), run with only `import HealthKit` and `import CoreLocation` changed to
// `import OpenHealthKit` (where CLLocation lives here). The surrounding test code (the store, the workout, the
// locations the location manager would deliver, waiting for completion handlers) is ours.
import Foundation
import OpenHealthKit
import Testing

@Suite(.timeLimit(.minutes(1))) struct AppleRouteArticleTests {
    /// A saved workout and a store (a SQLite file, so the route goes through the v9 migration's table).
    func workoutInStore(_ directory: borrowing TemporaryDirectory) async throws -> (HKHealthStore, HKWorkout) {
        let store = try HKHealthStore(databasePath: directory.file("routes.sqlite"), clientIdentifier: "routes")
        let types: Set<HKSampleType> = [.workoutType(), HKSeriesType.workoutRoute()]
        try await store.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .running
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: nil)
        try await builder.beginCollection(at: t0)
        try await builder.endCollection(at: t0 + 600)
        let workout = try #require(try await builder.finishWorkout())
        return (store, workout)
    }

    /// What a location manager would deliver: one location a second going north-east, every third one too
    /// inaccurate (80 m) for Apple's filter.
    func delivered(_ second: Int) -> CLLocation {
        CLLocation(
            coordinate: CLLocationCoordinate2D(
                latitude: 47.0 + Double(second) * 1e-4, longitude: 8.0 + Double(second) * 2e-4),
            altitude: 400 + Double(second) / 10, horizontalAccuracy: second % 3 == 0 ? 80 : 5, verticalAccuracy: 3,
            course: 45, speed: 3.2, timestamp: t0 + TimeInterval(second))
    }

    @Test func creatingAndReadingAWorkoutRoute() async throws {
        let directory = try TemporaryDirectory()
        let (store, myWorkout) = try await workoutInStore(directory)
        let myMetadata: [String: Any] = [HKMetadataKeyExternalUUID: "route-article"]

        // --- Apple: create the route builder.
        let routeBuilder = HKWorkoutRouteBuilder(healthStore: store, device: nil)

        // --- Apple: locationManager(_:didUpdateLocations:), called here with batches of 60 locations.
        for batch in stride(from: 0, to: 600, by: 60) {
            let locations = (batch ..< batch + 60).map(delivered)
            let inserted: Bool = await withCheckedContinuation { continuation in
                // Filter the raw data.
                let filteredLocations = locations.filter { (location: CLLocation) -> Bool in
                    location.horizontalAccuracy <= 50.0
                }

                guard !filteredLocations.isEmpty else {
                    continuation.resume(returning: false)
                    return
                }

                // Add the filtered data to the route.
                routeBuilder.insertRouteData(filteredLocations) { (success, error) in
                    if !success {
                        // Handle any errors here.
                    }
                    continuation.resume(returning: success)
                }
            }
            #expect(inserted)
        }

        // --- Apple: create, save, and associate the route with the provided workout.
        let finished: HKWorkoutRoute? = await withCheckedContinuation { continuation in
            routeBuilder.finishRoute(with: myWorkout, metadata: myMetadata) { (newRoute, error) in
                guard newRoute != nil else {
                    // Handle any errors here.
                    continuation.resume(returning: nil)
                    return
                }
                // Optional: Do something with the route here.
                continuation.resume(returning: newRoute)
            }
        }
        #expect(finished?.count == 400)  // 600 locations less every third (inaccurate)

        // --- Apple: reading route data. The anchored query finds the workout's routes.
        let routes: [HKWorkoutRoute] = await withCheckedContinuation { continuation in
            let runningObjectQuery = HKQuery.predicateForObjects(from: myWorkout)

            let routeQuery = HKAnchoredObjectQuery(
                type: HKSeriesType.workoutRoute(), predicate: runningObjectQuery, anchor: nil,
                limit: HKObjectQueryNoLimit
            ) { (query, samples, deletedObjects, anchor, error) in
                guard error == nil else {
                    // Handle any errors here.
                    fatalError("The initial query failed.")
                }
                // Process the initial route data here.
                continuation.resume(returning: (samples ?? []).compactMap { $0 as? HKWorkoutRoute })
            }
            store.execute(routeQuery)
        }
        let myRoute = try #require(routes.first)
        #expect(routes.count == 1 && myRoute.count == 400)
        #expect(myRoute.startDate == t0 + 1 && myRoute.endDate == t0 + 599)
        #expect(myRoute.metadata?[HKMetadataKeyExternalUUID] as? String == "route-article")

        // --- Apple: create the route query; the block may be called multiple times.
        let all: [CLLocation] = await withCheckedContinuation { continuation in
            nonisolated(unsafe) var collected: [CLLocation] = []
            let query = HKWorkoutRouteQuery(route: myRoute) { (query, locationsOrNil, done, errorOrNil) in
                // This block may be called multiple times.
                if errorOrNil != nil {
                    // Handle any errors here.
                    continuation.resume(returning: [])
                    return
                }
                guard let locations = locationsOrNil else {
                    fatalError("*** Invalid State: This can only fail if there was an error. ***")
                }
                // Do something with this batch of location data.
                collected += locations
                if done {
                    // The query returned all the location data associated with the route.
                    // Do something with the complete data set.
                    continuation.resume(returning: collected)
                }
            }
            store.execute(query)
        }
        // Ours: every accurate location, in time order, exactly as delivered.
        let expected = (0 ..< 600).filter { $0 % 3 != 0 }.map(delivered)
        #expect(all.count == 400)
        #expect(all == expected)
        #expect(all.first?.coordinate.latitude == 47.0001 && all.first?.speed == 3.2 && all.first?.course == 45)

        // Ours: the async descriptor and a date interval (t0+100 … t0+110 holds the seconds not divisible by 3: 100, 101, 103, 104, 106, 107, 109, 110).
        var inside: [CLLocation] = []
        for try await location in HKWorkoutRouteQueryDescriptor(
            myRoute, dateInterval: DateInterval(start: t0 + 100, end: t0 + 110)
        )
        .results(for: store) { inside.append(location) }
        #expect(inside.map(\.timestamp) == [100, 101, 103, 104, 106, 107, 109, 110].map { t0 + TimeInterval($0) })
        // The route is a new table in the file: a second store on the same file reads it.
        let again = try HKHealthStore(databasePath: directory.file("routes.sqlite"), clientIdentifier: "routes")
        var reread = 0
        for try await _ in HKWorkoutRouteQueryDescriptor(myRoute).results(for: again) { reread += 1 }
        #expect(reread == 400)
    }

    @Test func routeBuilderRefusesBadInput() async throws {
        let directory = try TemporaryDirectory()
        let (store, workout) = try await workoutInStore(directory)
        let builder = HKWorkoutRouteBuilder(healthStore: store, device: nil)
        await expectHKError(.errorInvalidArgument) {
            try await builder.insertRouteData([CLLocation(latitude: 91, longitude: 0)])
        }
        await expectHKError(.errorInvalidArgument) { _ = try await builder.finishRoute(with: workout, metadata: nil) }
        try await builder.insertRouteData([delivered(1)])
        _ = try await builder.finishRoute(with: workout, metadata: nil)
        await expectHKError(.errorInvalidArgument) { try await builder.insertRouteData([delivered(2)]) }
        // CoreLocation's great-circle distance: 0.001° of latitude is 111.195 m on a 6 371 008.8 m sphere
        // (2π × 6 371 008.8 / 360 000).
        let a = CLLocation(latitude: 47, longitude: 8), b = CLLocation(latitude: 47.001, longitude: 8)
        #expect(abs(a.distance(from: b) - 2 * .pi * 6_371_008.8 / 360_000) < 1e-6)
    }

    /// A route archives as apps archive samples (NSSecureCoding), with its locations when it holds them.
    @Test func aRouteArchivesWithItsLocations() async throws {
        let directory = try TemporaryDirectory()
        let (store, workout) = try await workoutInStore(directory)
        let builder = HKWorkoutRouteBuilder(healthStore: store, device: nil)
        try await builder.insertRouteData((0 ..< 5).map(delivered))
        let route = try await builder.finishRoute(with: workout, metadata: nil)
        let data = try NSKeyedArchiver.archivedData(withRootObject: route, requiringSecureCoding: true)
        let back = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: HKWorkoutRoute.self, from: data))
        #expect(back.uuid == route.uuid && back.count == 5 && back.startDate == t0 && back.endDate == t0 + 4)
        #expect(back.sampleType == HKSeriesType.workoutRoute())
    }
}
