import Foundation
import Testing

@testable import OpenHealthKit

/// Model classes round-trip through NSKeyedArchiver/NSKeyedUnarchiver with secure coding, as apps use them: an
/// anchor kept between launches, statistics and quantities sent to a companion (Apple's multidevice sample).
@Suite(.timeLimit(.minutes(1))) struct SecureCodingTests {
    func archive(_ object: some NSObject & NSSecureCoding) throws -> Data {
        try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
    }

    func roundTrip<T: NSObject & NSSecureCoding>(_ object: T) throws -> T {
        try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: T.self, from: try archive(object)))
    }

    @Test func anchorUnitAndQuantity() throws {
        let anchor = HKQueryAnchor(fromValue: 4711)
        #expect(try roundTrip(anchor) == anchor)
        #expect(try roundTrip(anchor) != HKQueryAnchor(fromValue: 4712))
        let unit = HKUnit(from: "kcal/(kg*hr)")
        #expect(try roundTrip(unit) == unit)
        let quantity = HKQuantity(unit: HKUnit(from: "count/min"), doubleValue: 72.5)
        #expect(try roundTrip(quantity).doubleValue(for: HKUnit(from: "count/min")) == 72.5)
    }

    @Test func typesDevicesSourcesAndConfigurations() throws {
        let heartRate = try roundTrip(HKQuantityType(.heartRate))
        #expect(heartRate == HKQuantityType(.heartRate))
        #expect(heartRate.aggregationStyle == .discreteTemporallyWeighted)
        #expect(try roundTrip(HKObjectType.workoutType()) == HKObjectType.workoutType())
        #expect(try roundTrip(HKObjectType.activitySummaryType()) == HKObjectType.activitySummaryType())
        #expect(try roundTrip(HKSeriesType.heartbeat()) == HKSeriesType.heartbeat())
        let device = HKDevice(
            name: "Polar H10", manufacturer: "Polar", model: "H10", hardwareVersion: nil, firmwareVersion: "3.1",
            softwareVersion: nil, localIdentifier: "A0:9E:1A:00:00:01", udiDeviceIdentifier: nil)
        #expect(try roundTrip(device) == device)
        let revision = HKSourceRevision(
            source: HKSource(name: "Rides", bundleIdentifier: "org.example.rides"), version: "2.1",
            productType: "Linux",
            operatingSystemVersion: OperatingSystemVersion(majorVersion: 6, minorVersion: 8, patchVersion: 1))
        #expect(try roundTrip(revision) == revision)
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .swimming
        configuration.swimmingLocationType = .pool
        configuration.lapLength = HKQuantity(unit: .meter(), doubleValue: 25)
        let back = try roundTrip(configuration)
        #expect(back.activityType == .swimming && back.swimmingLocationType == .pool && back.locationType == .unknown)
        #expect(back.lapLength == HKQuantity(unit: .meter(), doubleValue: 25))
    }

    @Test func samplesAndWorkoutsFromTheStore() async throws {
        let store = try await authorizedStore()
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration(.running), device: nil)
        try await builder.beginCollection(at: t0)
        try await builder.addSamples([
            heartRate(120, at: 10), heartRate(150, at: 70),
            HKQuantitySample(
                type: HKQuantityType(.activeEnergyBurned),
                quantity: HKQuantity(unit: .kilocalorie(), doubleValue: 12),
                start: t0 + 10, end: t0 + 70, metadata: ["note": "steady"]),
        ])
        try await builder.addWorkoutEvents([
            HKWorkoutEvent(type: .pause, dateInterval: DateInterval(start: t0 + 100, duration: 0), metadata: nil),
            HKWorkoutEvent(type: .resume, dateInterval: DateInterval(start: t0 + 130, duration: 0), metadata: nil),
        ])
        try await builder.endCollection(at: t0 + 300)
        let workout = try #require(try await builder.finishWorkout())
        let stored = try #require(try await fetch(store, HKObjectType.workoutType(), nil).first as? HKWorkout)

        let back = try roundTrip(stored)
        #expect(back.uuid == workout.uuid && back.startDate == t0 && back.endDate == t0 + 300)
        // 300 s minus the 30 s pause.
        #expect(back.duration == 270)
        #expect(back.workoutEvents?.map(\.type) == [.pause, .resume])
        #expect(
            back.workoutActivities.count == 1
                && back.workoutActivities.first?.workoutConfiguration.activityType == .running)
        #expect(
            back.statistics(for: HKQuantityType(.activeEnergyBurned))?.sumQuantity()?.doubleValue(for: .kilocalorie())
                == 12)
        #expect(
            back.statistics(for: HKQuantityType(.heartRate))?.maximumQuantity()?.doubleValue(
                for: HKUnit(from: "count/min")) == 150)
        #expect(back.sourceRevision == stored.sourceRevision)

        let samples = try await fetch(store, HKQuantityType(.heartRate), nil)
        let discrete = try #require(samples.first as? HKDiscreteQuantitySample)
        let discreteBack = try roundTrip(discrete)
        #expect(discreteBack.uuid == discrete.uuid && discreteBack.quantity == discrete.quantity)
        #expect(discreteBack.maximumQuantity == discrete.maximumQuantity)
        let energy = try #require(
            try await fetch(store, HKQuantityType(.activeEnergyBurned), nil).first as? HKCumulativeQuantitySample)
        let energyBack = try #require(
            try NSKeyedUnarchiver.unarchivedObject(ofClass: HKSample.self, from: try archive(energy))
                as? HKCumulativeQuantitySample)
        #expect(energyBack.sumQuantity == HKQuantity(unit: .kilocalorie(), doubleValue: 12))
        #expect(energyBack.metadata?["note"] as? String == "steady")
    }

    @Test func statisticsAsTheMultideviceSampleSendsThem() async throws {
        let store = try await authorizedStore()
        let other = store.asClient("watch")
        try await other.requestAuthorization(toShare: [HKQuantityType(.heartRate)], read: [])
        try await store.save([heartRate(100, at: 0, length: 60)])
        try await other.save([heartRate(140, at: 0, length: 60)])
        let statistics = try #require(
            try await HKStatisticsQueryDescriptor(
                predicate: .quantitySample(type: HKQuantityType(.heartRate)),
                options: [.discreteAverage, .discreteMax, .separateBySource]
            ).result(for: store))
        let back = try roundTrip(statistics)
        let bpm = HKUnit(from: "count/min")
        // Equal weights: (100 + 140) / 2 = 120.
        #expect(back.averageQuantity()?.doubleValue(for: bpm) == 120)
        #expect(back.maximumQuantity()?.doubleValue(for: bpm) == 140)
        #expect(back.startDate == statistics.startDate && back.endDate == statistics.endDate)
        let watch = try #require(back.sources?.first { $0.bundleIdentifier == "watch" })
        #expect(back.averageQuantity(for: watch)?.doubleValue(for: bpm) == 140)
    }

    @Test func activitySummaryAndHeartbeats() throws {
        let summary = HKActivitySummary()
        summary.activeEnergyBurned = HKQuantity(unit: .kilocalorie(), doubleValue: 321)
        summary.exerciseTimeGoal = HKQuantity(unit: .minute(), doubleValue: 30)
        let back = try roundTrip(summary)
        #expect(back == summary)
        let series = HKHeartbeatSeriesSample(
            count: 2, startDate: t0, endDate: t0 + 1, uuid: UUID(), metadata: nil, device: nil,
            sourceRevision: nil,
            beats: [
                .init(offset: 0, precededByGap: false),
                .init(offset: 1, precededByGap: true),
            ])
        let seriesBack = try roundTrip(series)
        #expect(seriesBack.count == 2 && seriesBack.beats == series.beats && seriesBack.endDate == t0 + 1)
    }

    @Test func aDamagedArchiveIsAnErrorNotACrash() throws {
        var data = try archive(HKQuantity(unit: HKUnit(from: "mmHg"), doubleValue: 120))
        // The unit string, spelled once in the archive, made into one no parser accepts (same length).
        let range = try #require(data.range(of: Data("mmHg".utf8)))
        data.replaceSubrange(range, with: Data("mmQg".utf8))
        #expect(throws: (any Error).self) {
            _ = try NSKeyedUnarchiver.unarchivedObject(ofClass: HKQuantity.self, from: data)
        }
        // A workout archive whose UUID is not a UUID and which lacks everything else: HKWorkout's decoder refuses it.
        let keyed = NSKeyedArchiver(requiringSecureCoding: true)
        keyed.encode("not a uuid" as NSString, forKey: "uuid")
        keyed.finishEncoding()
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: keyed.encodedData)
        // The default policy raises, which swift-corelibs-foundation turns into a trap; apps set this one.
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        #expect(HKWorkout(coder: unarchiver) == nil)
        #expect(throws: (any Error).self) {
            _ = try NSKeyedUnarchiver.unarchivedObject(ofClass: HKQueryAnchor.self, from: Data([1, 2, 3]))
        }
    }
}

/// `HKAnchoredObjectQueryDescriptor.results(for:)`: the changes since the anchor, then each later change.
@Suite(.timeLimit(.minutes(1))) struct AnchoredResultsTests {
    @Test func resultsDeliverTheBacklogThenEachChange() async throws {
        let store = try await authorizedStore()
        try await store.save([heartRate(60, at: 0), heartRate(61, at: 1)])
        let descriptor = HKAnchoredObjectQueryDescriptor(
            predicates: [.quantitySample(type: HKQuantityType(.heartRate))], anchor: nil)
        var updates = descriptor.results(for: store).makeAsyncIterator()
        let first = try #require(try await updates.next())
        #expect(first.addedSamples.count == 2 && first.deletedObjects.isEmpty)
        let third = heartRate(62, at: 2)
        try await store.save(third)
        let second = try #require(try await updates.next())
        #expect(second.addedSamples.map(\.uuid) == [third.uuid])
        try await store.delete(third)
        let deletion = try #require(try await updates.next())
        #expect(deletion.addedSamples.isEmpty && deletion.deletedObjects.map(\.uuid) == [third.uuid])
        // The anchor, archived and restored as an app keeps it between launches, continues after the deletion.
        let kept = try NSKeyedArchiver.archivedData(withRootObject: deletion.newAnchor, requiringSecureCoding: true)
        let anchor = try NSKeyedUnarchiver.unarchivedObject(ofClass: HKQueryAnchor.self, from: kept)
        let later = try await HKAnchoredObjectQueryDescriptor(
            predicates: [.quantitySample(type: HKQuantityType(.heartRate))],
            anchor: anchor
        ).result(for: store)
        #expect(later.addedSamples.isEmpty && later.deletedObjects.isEmpty)
    }
}
