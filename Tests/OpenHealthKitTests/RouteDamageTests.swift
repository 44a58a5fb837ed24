import Foundation
import GRDB
import Testing

@testable import OpenHealthKit

/// A route whose stored bytes are damaged (the last of the store's faults, issue 25): reading it gives one sentence
/// naming the route and the store, through the query, its descriptor and the export's loader alike; the other route,
/// the workouts and their samples read as before, and the store still takes writes.
@Suite(.timeLimit(.minutes(1))) struct RouteDamageTests {
    /// A store file with two workouts of a route each (60 locations, one a second), and a heart rate in each.
    func twoRoutes(
        _ directory: borrowing TemporaryDirectory
    ) async throws -> (
        HKHealthStore, [HKWorkout], [HKWorkoutRoute]
    ) {
        let path = directory.file("routes.sqlite")
        let store = try HKHealthStore(databasePath: path, clientIdentifier: "routes")
        let types: Set<HKSampleType> = [.workoutType(), HKSeriesType.workoutRoute(), HKQuantityType(.heartRate)]
        try await store.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
        var workouts: [HKWorkout] = []
        var routes: [HKWorkoutRoute] = []
        for index in 0 ..< 2 {
            let start = t0 + Double(index) * 3600
            let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration(.running), device: nil)
            try await builder.beginCollection(at: start)
            try await builder.addSamples([heartRate(140, at: Double(index) * 3600 + 10)])
            try await builder.endCollection(at: start + 600)
            let workout = try #require(try await builder.finishWorkout())
            let routeBuilder = HKWorkoutRouteBuilder(healthStore: store, device: nil)
            try await routeBuilder.insertRouteData(
                (0 ..< 60).map { second in
                    CLLocation(
                        coordinate: CLLocationCoordinate2D(
                            latitude: 47 + Double(second) * 1e-4, longitude: 8 + Double(index)),
                        altitude: 400, horizontalAccuracy: 5, verticalAccuracy: 3, course: 0, speed: 3,
                        timestamp: start + Double(second))
                })
            routes.append(try await routeBuilder.finishRoute(with: workout, metadata: nil))
            workouts.append(workout)
        }
        return (store, workouts, routes)
    }

    /// How a route's stored row is damaged: its bytes (a little-endian u32 count, then ten f64 a location: time,
    /// latitude, longitude, …) and its count column.
    struct Damage: Sendable {
        let name: String
        let damage: @Sendable (inout [UInt8], inout Int) -> Void
        let reason: String

        /// Overwrites the 8 bytes of a location's field (0 time, 1 latitude, …) with a double.
        static func field(
            _ location: Int, _ field: Int, _ value: Double
        ) -> @Sendable (inout [UInt8], inout Int) -> Void {
            { bytes, _ in
                let offset = 4 + (location * WorkoutRouteCodec.fields + field) * 8
                withUnsafeBytes(of: value.bitPattern.littleEndian) {
                    bytes.replaceSubrange(offset ..< offset + 8, with: $0)
                }
            }
        }
    }

    static let damages: [Damage] = [
        Damage(
            name: "latitude", damage: Damage.field(0, 1, 254),
            reason: "location 1 of 60 has no valid coordinate (254.0, 8.0)"),
        Damage(
            name: "truncated", damage: { bytes, _ in bytes.removeLast(bytes.count - 400) },
            reason: "400 bytes for 60 locations"),
        Damage(
            name: "count", damage: { _, count in count = 61 },
            reason: "its bytes hold 60 locations where its row says 61"),
        Damage(
            name: "time", damage: Damage.field(1, 0, .nan), reason: "location 2 of 60 has a time out of order (nan)"),
        Damage(name: "shifted", damage: Damage.field(0, 0, 0), reason: "its locations lie outside its dates"),
    ]

    @Test(arguments: damages.indices) func aDamagedRouteIsOneSentenceAndTheRestOfTheStoreStays(
        _ index: Int
    )
        async throws
    {
        let damage = Self.damages[index]
        let directory = try TemporaryDirectory()
        let (store, workouts, routes) = try await twoRoutes(directory)
        let damaged = routes[0]
        try await store.database().write { db in
            let row = try #require(
                try Row.fetchOne(
                    db,
                    sql: """
                        SELECT r.sample_id, r.count, r.locations FROM workout_routes r
                        JOIN samples s ON s.id = r.sample_id WHERE s.uuid = ?
                        """, arguments: [damaged.uuid]))
            var (bytes, count) = ([UInt8](row[2] as Data), row[1] as Int)
            damage.damage(&bytes, &count)
            try db.execute(
                sql: "UPDATE workout_routes SET count = ?, locations = ? WHERE sample_id = ?",
                arguments: [count, Data(bytes), row[0] as Int64])
        }
        let sentence =
            "The workout route \(damaged.uuid) in the health store \(directory.file("routes.sqlite")) is damaged: "
            + "\(damage.reason)."
        // The query: one call, done, no locations, the sentence.
        let calls = await withCheckedContinuation { continuation in
            let calls = CallLog()
            store.execute(
                HKWorkoutRouteQuery(route: damaged) { _, locations, done, error in
                    calls.append((locations?.count, done, (error as? HKError)?.code, (error as? HKError)?.message))
                    if done { continuation.resume(returning: calls.entries) }
                })
        }
        #expect(calls.count == 1, "\(damage.name)")
        #expect(calls.first?.0 == nil)
        #expect(calls.first?.1 == true)
        #expect(calls.first?.2 == .errorDatabaseInaccessible)
        #expect(calls.first?.3 == sentence, "\(damage.name)")
        // The descriptor throws the same sentence.
        var thrown: String?
        do {
            for try await _ in HKWorkoutRouteQueryDescriptor(damaged).results(for: store) {}
        } catch let error as HKError {
            thrown = error.message
        }
        #expect(thrown == sentence)
        // The other route reads in full; the workouts and their heart rates are all there; the store takes writes.
        var other = 0
        for try await _ in HKWorkoutRouteQueryDescriptor(routes[1]).results(for: store) { other += 1 }
        #expect(other == 60)
        let storedWorkouts = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: [])
            .result(for: store)
        #expect(Set(storedWorkouts.map(\.uuid)) == Set(workouts.map(\.uuid)))
        #expect(try await fetch(store, HKQuantityType(.heartRate), nil).count == 2)
        try await store.save(heartRate(150, at: 9000))
        #expect(try await fetch(store, HKQuantityType(.heartRate), nil).count == 3)
        #expect(
            try await HKSampleQueryDescriptor(predicates: [.workoutRoute()], sortDescriptors: []).result(for: store)
                .count == 2, "the damaged route is still listed: only its locations cannot be read")
    }

    final class CallLog: @unchecked Sendable {
        private let lock = NSLock()
        private var calls: [(Int?, Bool, HKError.Code?, String?)] = []
        func append(_ call: (Int?, Bool, HKError.Code?, String?)) { lock.withLock { calls.append(call) } }
        var entries: [(Int?, Bool, HKError.Code?, String?)] { lock.withLock { calls } }
    }
}
