import Foundation
import Testing

@testable import OpenHealthKit

/// Activity summaries computed per day from the store: move = active energy, exercise = workout time, stand = 0.
@Suite(.timeLimit(.minutes(1))) struct ActivitySummaryTests {
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// 2026-03-`day` at `hour`:`minute` UTC.
    static func at(_ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
        utc.date(from: DateComponents(year: 2026, month: 3, day: day, hour: hour, minute: minute))!
    }

    static func day(_ day: Int) -> DateComponents {
        var components = DateComponents(year: 2026, month: 3, day: day)
        components.calendar = utc
        return components
    }

    static func energy(_ kcal: Double, from start: Date, to end: Date) -> HKQuantitySample {
        HKQuantitySample(
            type: HKQuantityType(.activeEnergyBurned), quantity: HKQuantity(unit: .kilocalorie(), doubleValue: kcal),
            start: start, end: end)
    }

    static func workout(_ store: HKHealthStore, from start: Date, to end: Date, pause: (Date, Date)? = nil) async throws
    {
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration(.running), device: nil)
        try await builder.beginCollection(at: start)
        if let (paused, resumed) = pause {
            try await builder.addWorkoutEvents([
                HKWorkoutEvent(type: .pause, dateInterval: DateInterval(start: paused, duration: 0), metadata: nil),
                HKWorkoutEvent(type: .resume, dateInterval: DateInterval(start: resumed, duration: 0), metadata: nil),
            ])
        }
        try await builder.endCollection(at: end)
        _ = try await builder.finishWorkout()
    }

    /// The store of the scenario every test reads (all times UTC, March 2026):
    /// - day 10: 100 kcal 08:00–09:00, and 50 kcal 23:30–00:30 across midnight (prorated: 25 + 25);
    /// - day 11: a run 10:00–11:00 paused 10:20–10:30 (50 min), and another app's ride 10:40–11:10 overlapping it
    ///   (together 10:00–10:20 and 10:30–11:10: 60 min);
    /// - day 12: nothing;
    /// - day 13–14: a run 23:50–00:20 (10 min on day 13, 20 on day 14).
    func scenario() async throws -> HKHealthStore {
        let store = try await authorizedStore()
        try await store.requestAuthorization(toShare: [], read: [HKObjectType.activitySummaryType()])
        try await store.save([
            Self.energy(100, from: Self.at(10, 8), to: Self.at(10, 9)),
            Self.energy(50, from: Self.at(10, 23, 30), to: Self.at(11, 0, 30)),
        ])
        try await Self.workout(
            store, from: Self.at(11, 10), to: Self.at(11, 11), pause: (Self.at(11, 10, 20), Self.at(11, 10, 30)))
        let other = store.asClient("other")
        try await other.requestAuthorization(toShare: [HKObjectType.workoutType()], read: [])
        try await Self.workout(other, from: Self.at(11, 10, 40), to: Self.at(11, 11, 10))
        try await Self.workout(store, from: Self.at(13, 23, 50), to: Self.at(14, 0, 20))
        return store
    }

    func figures(_ summaries: [HKActivitySummary]) -> [[Double]] {
        summaries.map { summary in
            [
                Double(summary.dateComponents(for: Self.utc).day ?? 0),
                summary.activeEnergyBurned.doubleValue(for: .kilocalorie()),
                summary.appleExerciseTime.doubleValue(for: .minute()),
                summary.appleStandHours.doubleValue(for: .count()),
            ]
        }
    }

    @Test func everyDayWithDataIsSummarised() async throws {
        let store = try await scenario()
        let all = try await HKActivitySummaryQueryDescriptor(
            predicate: HKQuery.predicate(forActivitySummariesBetweenStart: Self.day(1), end: Self.day(31))
        ).result(for: store)
        // [day, kcal, exercise minutes, stand hours]; day 12 has no data and no summary.
        #expect(figures(all) == [[10, 125, 0, 0], [11, 25, 60, 0], [13, 0, 10, 0], [14, 0, 20, 0]])
        // Goals: the documented defaults until the profile sets them.
        #expect(all[0].activeEnergyBurnedGoal.doubleValue(for: .kilocalorie()) == 400)
        #expect(all[0].exerciseTimeGoal?.doubleValue(for: .minute()) == 30)
        #expect(all[0].standHoursGoal?.doubleValue(for: .count()) == 12)
        #expect(all[0].activityMoveMode == .activeEnergy)
        var profile = try await store.workoutProfile()
        profile.moveGoal = 550
        profile.exerciseGoal = 45
        profile.standGoal = 10
        try await store.setWorkoutProfile(profile)
        let again = try await HKActivitySummaryQueryDescriptor(
            predicate: HKQuery.predicateForActivitySummary(with: Self.day(10))
        )
        .result(for: store)
        #expect(again.map { $0.activeEnergyBurnedGoal.doubleValue(for: .kilocalorie()) } == [550])
        #expect(again.map { $0.exerciseTimeGoal?.doubleValue(for: .minute()) } == [45])
        #expect(again.map { $0.standHoursGoal?.doubleValue(for: .count()) } == [10])
    }

    @Test func predicatesSelectDays() async throws {
        let store = try await scenario()
        func days(_ predicate: NSPredicate?) async throws -> [Int] {
            try await HKActivitySummaryQueryDescriptor(predicate: predicate).result(for: store)
                .map { $0.dateComponents(for: Self.utc).day ?? 0 }
        }
        #expect(try await days(HKQuery.predicateForActivitySummary(with: Self.day(11))) == [11])
        #expect(try await days(HKQuery.predicateForActivitySummary(with: Self.day(12))) == [])
        #expect(
            try await days(HKQuery.predicate(forActivitySummariesBetweenStart: Self.day(11), end: Self.day(13))) == [
                11, 13,
            ])
        #expect(
            try await days(
                NSCompoundPredicate(orPredicateWithSubpredicates: [
                    HKQuery.predicateForActivitySummary(with: Self.day(10)),
                    HKQuery.predicateForActivitySummary(with: Self.day(14)),
                ])) == [10, 14])
        #expect(
            try await days(
                NSCompoundPredicate(
                    notPredicateWithSubpredicate: HKQuery.predicateForActivitySummary(with: Self.day(10))))
                == [11, 13, 14])
        #expect(try await days(nil) == [10, 11, 13, 14])
        await expectHKError(.errorInvalidArgument) {
            _ = try await days(HKQuery.predicateForSamples(withStart: nil, end: nil))
        }
    }

    @Test func withoutReadAuthorizationThereAreNone() async throws {
        let store = try await scenario()
        let stranger = store.asClient("stranger")
        try await stranger.requestAuthorization(toShare: [], read: [HKQuantityType(.activeEnergyBurned)])
        #expect(try await HKActivitySummaryQueryDescriptor(predicate: nil).result(for: stranger).isEmpty)
    }

    @Test func theQueryReportsChangedDays() async throws {
        let store = try await scenario()
        let results = HKActivitySummaryQueryDescriptor(predicate: nil).results(for: store)
        var iterator = results.makeAsyncIterator()
        #expect(try await iterator.next().map(figures)?.count == 4)
        // 40 kcal more on day 11: only day 11 is reported again.
        try await store.save(Self.energy(40, from: Self.at(11, 12), to: Self.at(11, 13)))
        #expect(try await iterator.next().map(figures) == [[11, 65, 60, 0]])
    }

    @Test func exerciseTimeFollowsPausesAndMergesOverlaps() {
        let spans = ExerciseTime.runningSpans(
            start: 0, end: 3600, pauses: [(true, 600), (true, 900), (false, 1200), (false, 1500)])
        // The second pause and the second resume are ignored: running 0–600 and 1200–3600.
        #expect(spans == [.init(start: 0, end: 600), .init(start: 1200, end: 3600)])
        let merged = ExerciseTime.union(spans + [.init(start: 500, end: 1300), .init(start: 5000, end: 5000)])
        #expect(merged == [.init(start: 0, end: 3600)])
        // 59.5 minutes inside [0, 3570): whole minutes only.
        #expect(ExerciseTime.minutes(of: merged, from: 0, to: 3570) == 59)
    }
}
