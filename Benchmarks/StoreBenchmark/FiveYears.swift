import Foundation
import GRDB
import OpenHealthKit

/// The third part: a store of five years of rides, as someone who trains four times a week has after five years, and
/// the queries people and apps run on it, timed.
///
/// Each ride is an hour of cycling saved as a recording leaves it and then condensed (`condenseWorkout`), as
/// `workout condense --all` leaves a store: heart rate and power every second, distance and active energy every
/// 10 s, from one strap and one power meter. Four rides a week (Monday, Wednesday, Saturday and Sunday at 18:00 UTC)
/// from 2021-01-04; `rides` of them, 1,040 by default (five years).
enum FiveYearStore {
    static let heartRate = HKQuantityType(.heartRate)
    static let power = HKQuantityType(.cyclingPower)
    static let distance = HKQuantityType(.distanceCycling)
    static let energy = HKQuantityType(.activeEnergyBurned)
    static let bpm = HKUnit.count().unitDivided(by: .minute())
    /// Monday 2021-01-04 00:00 UTC.
    static let origin = Date(timeIntervalSince1970: 1_609_718_400)

    static func run(rides: Int, directory: String) async throws {
        let path = directory + "/five-years.sqlite"
        let store = try HKHealthStore(databasePath: path, clientIdentifier: "benchmark")
        let types: Set<HKSampleType> = [heartRate, power, distance, energy, .workoutType()]
        try await store.requestAuthorization(
            toShare: types, read: Set(types.map { $0 as HKObjectType }).union([HKObjectType.activitySummaryType()]))
        let strap = HKDevice(
            name: "Strap", manufacturer: "Polar", model: "H10", hardwareVersion: nil, firmwareVersion: nil,
            softwareVersion: nil, localIdentifier: "strap", udiDeviceIdentifier: nil)
        let meter = HKDevice(
            name: "Meter", manufacturer: "Favero", model: "Assioma", hardwareVersion: nil, firmwareVersion: nil,
            softwareVersion: nil, localIdentifier: "meter", udiDeviceIdentifier: nil)

        let legacy: any LegacyWorkoutAPI.Type = Legacy.self
        let built = DispatchTime.now().uptimeNanoseconds
        var workouts: [HKWorkout] = []
        var readings = 0
        var samplesRemoved = 0
        for ride in 0 ..< rides {
            let week = ride / 4
            let day = [0, 2, 5, 6][ride % 4]
            let start = origin + Double((week * 7 + day) * 86_400 + 18 * 3_600)
            let workout = legacy.workout(activityType: .cycling, start: start, end: start + 3_600)
            try await store.save(workout)
            var samples: [HKSample] = []
            var heart = 110.0 + Double(ride % 20)
            for second in 0 ..< 3_600 {
                let time = start + Double(second)
                // A random walk from a fixed seed: the ride's number and the second.
                heart = min(185, max(95, heart + Double((ride &* 31 &+ second &* 17) % 5) - 2))
                samples.append(
                    HKQuantitySample(
                        type: heartRate, quantity: HKQuantity(unit: bpm, doubleValue: heart.rounded()), start: time,
                        end: time, device: strap, metadata: nil))
                samples.append(
                    HKQuantitySample(
                        type: power,
                        quantity: HKQuantity(unit: .watt(), doubleValue: Double(150 + (second * 7 + ride) % 120)),
                        start: time, end: time, device: meter, metadata: nil))
                if second % 10 == 9 {
                    samples.append(
                        HKQuantitySample(
                            type: distance,
                            quantity: HKQuantity(unit: .meter(), doubleValue: 80 + Double(second % 7)),
                            start: time - 9, end: time + 1, device: meter, metadata: nil))
                    samples.append(
                        HKQuantitySample(
                            type: energy,
                            quantity: HKQuantity(unit: .kilocalorie(), doubleValue: 2 + Double(second % 3) / 10),
                            start: time - 9, end: time + 1, device: meter, metadata: nil))
                }
            }
            readings += samples.count
            try await legacy.add(samples, to: workout, in: store)
            samplesRemoved += try await store.condenseWorkout(workout).samplesRemoved
            workouts.append(workout)
        }
        // The condensing's deletion records go after 30 days (`condenseWorkouts(olderThan:)` purges them); five years
        // on, all but the last month's are gone.
        let purged = try await store.purgeDeletedObjects(deletedBefore: .distantFuture)
        let buildSeconds = Double(DispatchTime.now().uptimeNanoseconds - built) / 1e9
        let bytes = try await DatabaseQueue(path: path).read { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT (page_count - freelist_count) * page_size
                    FROM pragma_page_count(), pragma_freelist_count(), pragma_page_size()
                    """) ?? 0
        }

        say()
        say(
            "five years: \(rides) rides of an hour (heart rate and power every second, distance and energy every 10 s)")
        say(
            String(
                format: "  built      %.1f s: %d readings saved, associated and condensed (%d folded into series)",
                buildSeconds, readings, samplesRemoved))
        say(
            String(
                format:
                    "  store      %.1f MB in use, %.2f bytes a reading (the %d deletion records purged, as after 30 days)",
                Double(bytes) / 1e6, Double(bytes) / Double(readings), purged))
        say("  queries, median of 5:")

        let last = workouts[workouts.count - 1]
        let middle = workouts[workouts.count / 2]
        let end = last.endDate
        let yearAgo = end - 365 * 86_400
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!

        try await time("every workout, newest first (workout list)", expect: rides) {
            try await HKSampleQueryDescriptor(
                predicates: [.workout()], sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)]
            ).result(for: store).count
        }
        try await time("the 20 newest workouts", expect: min(20, rides)) {
            try await HKSampleQueryDescriptor(
                predicates: [.workout()], sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)], limit: 20
            ).result(for: store).count
        }
        try await time("a new app's first sync: every workout from no anchor", expect: rides) {
            try await HKAnchoredObjectQueryDescriptor(predicates: [.workout()], anchor: nil).result(for: store)
                .addedSamples.count
        }
        try await time("one ride's heart rate, every point (series query)", expect: nil) {
            var points = 0
            for try await _ in HKQuantitySeriesSampleQueryDescriptor(
                predicate: .quantitySample(type: heartRate, predicate: HKQuery.predicateForObjects(from: middle)),
                options: []
            ).results(for: store) {
                points += 1
            }
            return points
        }
        try await time("one ride's average and maximum heart rate", expect: 1) {
            let statistics = try await HKStatisticsQueryDescriptor(
                predicate: .quantitySample(type: heartRate, predicate: HKQuery.predicateForObjects(from: middle)),
                options: [.discreteAverage, .discreteMax]
            ).result(for: store)
            return statistics?.averageQuantity() == nil ? 0 : 1
        }
        try await time("a year of daily average heart rate (collection)", expect: nil) {
            let days = try await HKStatisticsCollectionQueryDescriptor(
                predicate: .quantitySample(
                    type: heartRate, predicate: HKQuery.predicateForSamples(withStart: yearAgo, end: end)),
                options: .discreteAverage, anchorDate: calendar.startOfDay(for: yearAgo),
                intervalComponents: DateComponents(day: 1)
            ).result(for: store).statistics()
            return days.count
        }
        let weeks = (rides + 3) / 4
        try await time("five years of weekly distance (collection)", expect: weeks) {
            try await HKStatisticsCollectionQueryDescriptor(
                predicate: .quantitySample(type: distance), options: .cumulativeSum, anchorDate: origin,
                intervalComponents: DateComponents(day: 7)
            ).result(for: store).statistics().count
        }
        try await time("a year of activity summaries", expect: nil) {
            var start = calendar.dateComponents([.year, .month, .day], from: yearAgo)
            start.calendar = calendar
            var finish = calendar.dateComponents([.year, .month, .day], from: end)
            finish.calendar = calendar
            return try await HKActivitySummaryQueryDescriptor(
                predicate: HKQuery.predicate(forActivitySummariesBetweenStart: start, end: finish)
            ).result(for: store).count
        }
    }

    /// Prints a line at once (standard output unbuffered), so what was measured survives whatever comes after.
    static func say(_ line: String = "") {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Runs a query five times and prints the median and what it found, saying so when that is not `expect`.
    static func time(_ name: String, expect: Int?, _ body: () async throws -> Int) async throws {
        var seconds: [Double] = []
        var found = 0
        for _ in 0 ..< 5 {
            let start = DispatchTime.now().uptimeNanoseconds
            found = try await body()
            seconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        let padded = name.padding(toLength: 56, withPad: " ", startingAt: 0)
        let wrong = expect.map { $0 == found ? "" : ", NOT the \($0) expected" } ?? ""
        say(String(format: "    %@ %9.1f ms   (%d found%@)", padded, seconds.sorted()[2] * 1000, found, wrong))
    }
}
