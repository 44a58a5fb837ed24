import Foundation
import OpenHealthKit
import OpenHealthKitTesting
import OpenWorkoutKit
import Testing

/// WorkoutKit's schedule and a workout's plan, kept in a real SQLite store (the v14 migration's tables).
@Suite(.timeLimit(.minutes(1))) struct SchedulerAndStoreTests {
    func plan(_ minutes: Double) -> WorkoutPlan {
        WorkoutPlan(
            .custom(
                CustomWorkout(
                    activity: .cycling, location: .indoor, displayName: "\(minutes) min",
                    blocks: [
                        IntervalBlock(
                            steps: [
                                IntervalStep(.work, goal: .time(minutes, .minutes), alert: .power(250, unit: .watts))
                            ],
                            iterations: 3)
                    ])))
    }

    func day(_ day: Int, hour: Int = 7) -> DateComponents {
        DateComponents(timeZone: TimeZone(identifier: "Europe/Zurich"), year: 2026, month: 12, day: day, hour: hour)
    }

    @Test func theScheduleIsKeptInTheStoreAndReadByAnotherScheduler() async throws {
        let temporary = try TemporaryHealthStore(clock: TestClock())
        let scheduler = WorkoutScheduler(healthStore: temporary.store)
        #expect(await scheduler.authorizationState == .authorized)
        #expect(WorkoutScheduler.isSupported)
        let first = plan(4)
        let second = plan(5)
        await scheduler.schedule(second, at: day(3))
        await scheduler.schedule(first, at: day(2))
        await scheduler.schedule(first, at: day(2))  // the same plan at the same date: replaced, not doubled
        // Another store object on the same file sees the same schedule, by date.
        let other = try HKHealthStore(databasePath: temporary.path, clientIdentifier: "other")
        var scheduled = await WorkoutScheduler(healthStore: other).scheduledWorkouts
        #expect(scheduled.map(\.plan) == [first, second])
        #expect(scheduled.map(\.date) == [day(2), day(3)])
        #expect(scheduled.allSatisfy { !$0.complete })
        await scheduler.markComplete(first, at: day(2))
        await scheduler.remove(second, at: day(3))
        scheduled = await scheduler.scheduledWorkouts
        #expect(scheduled.count == 1 && scheduled[0].complete)
        await scheduler.removeAllWorkouts()
        #expect(await scheduler.scheduledWorkouts.isEmpty)
    }

    @Test func atMostFiftyPlansAreScheduled() async throws {
        let temporary = try TemporaryHealthStore(clock: TestClock())
        let scheduler = WorkoutScheduler(healthStore: temporary.store)
        let plans = (1 ... 51).map { plan(Double($0)) }
        for (index, plan) in plans.enumerated() { await scheduler.schedule(plan, at: day(1, hour: index % 24)) }
        let scheduled = await scheduler.scheduledWorkouts
        #expect(scheduled.count == WorkoutScheduler.maxAllowedScheduledWorkoutCount)
        #expect(!scheduled.map(\.plan).contains(plans[50]))
        // Rescheduling one already scheduled still replaces it at the limit.
        await scheduler.markComplete(plans[0], at: day(1, hour: 0))
        await scheduler.schedule(plans[0], at: day(1, hour: 0))
        #expect(await scheduler.scheduledWorkouts.count == 50)
    }

    @Test func aWorkoutGivesBackThePlanItWasRecordedWith() async throws {
        let clock = TestClock()
        let temporary = try TemporaryHealthStore(clock: clock)
        let store = temporary.store
        try await store.authorizeWorkoutTypes()
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .cycling
        let start = Date(timeIntervalSinceReferenceDate: 780_000_000)
        let planned = plan(4)
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: nil)
        try builder.setWorkoutPlan(planned)
        try await builder.beginCollection(at: start)
        try await builder.endCollection(at: start + 720)
        let workout = try #require(try await builder.finishWorkout())
        #expect(try await store.workoutPlan(for: workout) == planned)

        // A workout recorded without a plan has none; one can be set afterwards.
        let plain = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: nil)
        try await plain.beginCollection(at: start + 1000)
        try await plain.endCollection(at: start + 1600)
        let unplanned = try #require(try await plain.finishWorkout())
        #expect(try await store.workoutPlan(for: unplanned) == nil)
        try await store.setWorkoutPlan(planned, for: unplanned)
        #expect(try await store.workoutPlan(for: unplanned) == planned)

        // A workout that is not stored cannot be given a plan.
        let elsewhere = HKHealthStore.testing(clock: clock)
        try await elsewhere.authorizeWorkoutTypes()
        let otherBuilder = HKWorkoutBuilder(healthStore: elsewhere, configuration: configuration, device: nil)
        try await otherBuilder.beginCollection(at: start)
        try await otherBuilder.endCollection(at: start + 60)
        let stranger = try #require(try await otherBuilder.finishWorkout())
        await #expect(throws: HKError.self) { try await store.setWorkoutPlan(planned, for: stranger) }
    }
}
