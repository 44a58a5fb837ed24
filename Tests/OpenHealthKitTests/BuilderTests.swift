import FitnessSensors
import Foundation
import Testing

@testable import OpenHealthKit

/// Records what a live builder's delegate hears, in order.
final class BuilderRecorder: HKLiveWorkoutBuilderDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var storedTimeline: [Either] = []
    enum Either: Equatable {
        case data(Set<HKSampleType>)
        case call(String)
    }

    /// Every call in order: `didCollectDataOf` as the set of types it named, any other call as its `calls` entry.
    var timeline: [Either] { lock.withLock { storedTimeline } }
    /// The calls other than `didCollectDataOf`: "event", "begin(activity)", "end(activity)".
    var calls: [String] { timeline.compactMap { if case .call(let name) = $0 { name } else { nil } } }
    /// Every type `didCollectDataOf` named.
    var collectedTypes: Set<HKSampleType> {
        timeline.reduce(into: []) { if case .data(let types) = $1 { $0.formUnion(types) } }
    }
    /// How many `didCollectDataOf` calls arrived.
    var deliveries: Int { timeline.filter { if case .data = $0 { true } else { false } }.count }

    private func record(_ entry: Either) {
        lock.withLock { storedTimeline.append(entry) }
    }

    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {
        record(.data(collectedTypes))
    }

    func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {
        record(.call("event"))
    }

    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didBegin workoutActivity: HKWorkoutActivity) {
        record(.call("begin(\(workoutActivity.workoutConfiguration.activityType.name))"))
    }

    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didEnd workoutActivity: HKWorkoutActivity) {
        record(.call("end(\(workoutActivity.workoutConfiguration.activityType.name))"))
    }
}

@Suite(.timeLimit(.minutes(1))) struct BuilderTests {
    @Test func lifecycleErrorsAreInvalidArgument() async throws {
        let (store, _) = try await liveStore()
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration(.running), device: nil)
        await expectHKError(.errorInvalidArgument) { try await builder.endCollection(at: t0) }
        await expectHKError(.errorInvalidArgument) { _ = try await builder.finishWorkout() }
        try await builder.beginCollection(at: t0)
        await expectHKError(.errorInvalidArgument) { try await builder.beginCollection(at: t0) }
        await expectHKError(.errorInvalidArgument) { try await builder.endCollection(at: t0) }
        await expectHKError(.errorInvalidArgument) { try await builder.addSamples([heartRate(80, at: -5)]) }
        let first = HKWorkoutActivity(workoutConfiguration: configuration(.running), start: t0, end: nil, metadata: nil)
        try await builder.addWorkoutActivity(first)
        let second = HKWorkoutActivity(
            workoutConfiguration: configuration(.running), start: t0 + 60, end: nil, metadata: nil)
        let open = await expectHKError(.errorInvalidArgument) { try await builder.addWorkoutActivity(second) }
        #expect(open?.message == "Cannot add new activity before ending current activity.")
        try await builder.updateActivity(uuid: first.uuid, end: t0 + 50)
        try await builder.addWorkoutActivity(second)
        try await builder.endCollection(at: t0 + 600)
        await expectHKError(.errorInvalidArgument) { try await builder.endCollection(at: t0 + 700) }
        let workout = try #require(try await builder.finishWorkout())
        #expect(workout.workoutActivities.map(\.startDate) == [t0, t0 + 60])
        #expect(workout.workoutActivities.last?.endDate == t0 + 600)
        await expectHKError(.errorInvalidArgument) { try await builder.addMetadata(["k": 1]) }
        await expectHKError(.errorInvalidArgument) { try await builder.addSamples([heartRate(80, at: 5)]) }
        await expectHKError(.errorInvalidArgument) { _ = try await builder.finishWorkout() }
    }

    @Test func elapsedTimeMovesOnlyWithPauseAndResume() async throws {
        let (store, _) = try await liveStore()
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration(.cycling), device: nil)
        #expect(builder.elapsedTime(at: t0 + 100) == 0)
        try await builder.beginCollection(at: t0)
        try await builder.addWorkoutEvents([
            HKWorkoutEvent(type: .pause, dateInterval: DateInterval(start: t0 + 100, duration: 0), metadata: nil),
            HKWorkoutEvent(type: .marker, dateInterval: DateInterval(start: t0 + 120, duration: 0), metadata: nil),
            HKWorkoutEvent(
                type: .motionPaused, dateInterval: DateInterval(start: t0 + 130, duration: 0), metadata: nil),
            HKWorkoutEvent(type: .resume, dateInterval: DateInterval(start: t0 + 160, duration: 0), metadata: nil),
        ])
        #expect(builder.elapsedTime(at: t0 + 50) == 50)
        #expect(builder.elapsedTime(at: t0 + 150) == 100)
        #expect(builder.elapsedTime(at: t0 + 200) == 140)
        try await builder.endCollection(at: t0 + 300)
        #expect(builder.elapsedTime(at: t0 + 1000) == 240)
        // A pause added afterwards makes elapsed time shorter, as HealthKit documents.
        try await builder.addWorkoutEvents([
            HKWorkoutEvent(type: .pause, dateInterval: DateInterval(start: t0 + 250, duration: 0), metadata: nil)
        ])
        #expect(builder.elapsedTime(at: t0 + 1000) == 190)
        let workout = try #require(try await builder.finishWorkout())
        #expect(workout.duration == 190)
    }

    @Test func programmaticBuilderSavesSamplesAndStatistics() async throws {
        let (store, _) = try await liveStore()
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration(.running), device: nil)
        try await builder.beginCollection(at: t0)
        // 60 s at 120 bpm, then 60 s at 150 bpm, sampled every 5 s.
        let samples = (0 ..< 24).map { i in heartRate(i < 12 ? 120 : 150, at: Double(i) * 5, length: 0) }
        try await builder.addSamples(samples)
        let energy = HKQuantitySample(
            type: HKQuantityType(.activeEnergyBurned), quantity: HKQuantity(unit: .kilocalorie(), doubleValue: 20),
            start: t0, end: t0 + 120)
        try await builder.addSamples([energy])
        try await builder.addMetadata([HKMetadataKeyIndoorWorkout: true])
        try await builder.endCollection(at: t0 + 120)
        let live = try #require(builder.statistics(for: HKQuantityType(.heartRate)))
        #expect(live.averageQuantity()?.doubleValue(for: HKUnit(from: "count/min")) == 135)
        let workout = try #require(try await builder.finishWorkout())
        #expect(workout.metadata?[HKMetadataKeyIndoorWorkout] as? Bool == true)
        let heart = try #require(workout.statistics(for: HKQuantityType(.heartRate)))
        #expect(heart.averageQuantity()?.doubleValue(for: HKUnit(from: "count/min")) == 135)
        #expect(heart.maximumQuantity()?.doubleValue(for: HKUnit(from: "count/min")) == 150)
        #expect(
            workout.statistics(for: HKQuantityType(.activeEnergyBurned))?.sumQuantity()?.doubleValue(
                for: .kilocalorie()) == 20)
        let stored = try await fetch(store, HKQuantityType(.heartRate), HKQuery.predicateForObjects(from: workout))
        #expect(stored.count == 24)
        #expect(Set(stored.map(\.uuid)) == Set(samples.map(\.uuid)))
        let saved = try #require(try await fetch(store, .workoutType(), nil).first as? HKWorkout)
        #expect(
            saved.statistics(for: HKQuantityType(.heartRate))?.averageQuantity()?.doubleValue(
                for: HKUnit(from: "count/min")) == 135)
    }

    @Test func discardKeepsAppSamplesAndDropsNothingElse() async throws {
        let (store, _) = try await liveStore()
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration(.running), device: nil)
        try await builder.beginCollection(at: t0)
        try await builder.addSamples([heartRate(100, at: 1), heartRate(101, at: 2)])
        builder.discardWorkout()
        #expect(try await fetch(store, HKQuantityType(.heartRate), nil).count == 2)
        #expect(try await fetch(store, .workoutType(), nil).isEmpty)
        await expectHKError(.errorInvalidArgument) { try await builder.addSamples([heartRate(100, at: 3)]) }
    }
}
