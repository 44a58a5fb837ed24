import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit

/// Activity summaries computed per day from the store: move = active energy, exercise = workout time, stand = 0. On
/// both backends.
@Suite(.postgresCluster, .timeLimit(.minutes(1))) struct ActivitySummaryTests {
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
    func scenario(_ kind: StoreKind, _ directory: borrowing TemporaryDirectory) async throws -> HKHealthStore {
        let store = try await authorizedStore(databasePath: try await kind.freshStoreName(directory))
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

    @Test(arguments: StoreKind.available) func everyDayWithDataIsSummarised(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await scenario(kind, directory)
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

    @Test(arguments: StoreKind.available) func predicatesSelectDays(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await scenario(kind, directory)
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

    @Test(arguments: StoreKind.available) func withoutReadAuthorizationThereAreNone(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await scenario(kind, directory)
        let stranger = store.asClient("stranger")
        try await stranger.requestAuthorization(toShare: [], read: [HKQuantityType(.activeEnergyBurned)])
        #expect(try await HKActivitySummaryQueryDescriptor(predicate: nil).result(for: stranger).isEmpty)
    }

    @Test(arguments: StoreKind.available) func theQueryReportsChangedDays(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await scenario(kind, directory)
        let results = HKActivitySummaryQueryDescriptor(predicate: nil).results(for: store)
        var iterator = results.makeAsyncIterator()
        #expect(try await iterator.next().map(figures)?.count == 4)
        // 40 kcal more on day 11: only day 11 is reported again.
        try await store.save(Self.energy(40, from: Self.at(11, 12), to: Self.at(11, 13)))
        let again = try await iterator.next().map(figures)
        #expect(again == [[11, 65, 60, 0]])
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

/// Days are the calendar's, daylight saving time included (issue 37): in Europe/Berlin 2026-03-29 is 23 hours long
/// and 2026-10-25 is 25, and each day's figures are what falls between its own midnights.
@Suite(.timeLimit(.minutes(1))) struct ActivitySummaryDaylightSavingTests {
    static let berlin: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        return calendar
    }()

    /// `month`-`day` 2026 at `hour`:`minute` in Berlin (a time that exists once).
    static func at(_ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
        berlin.date(from: DateComponents(year: 2026, month: month, day: day, hour: hour, minute: minute))!
    }

    /// `month`-`day` 2026 at `hour`:`minute` UTC: the repeated hour of 2026-10-25 is 00:00–01:00 UTC in summer time
    /// (CEST, +2) and 01:00–02:00 UTC in winter time (CET, +1).
    static func utc(_ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
        ActivitySummaryTests.utc.date(
            from: DateComponents(year: 2026, month: month, day: day, hour: hour, minute: minute))!
    }

    static func day(_ month: Int, _ day: Int) -> DateComponents {
        var components = DateComponents(year: 2026, month: month, day: day)
        components.calendar = berlin
        return components
    }

    /// [day, kcal, exercise minutes] of each summary between `from` and `to`.
    func figures(_ store: HKHealthStore, from: DateComponents, to: DateComponents) async throws -> [[Double]] {
        try await HKActivitySummaryQueryDescriptor(
            predicate: HKQuery.predicate(forActivitySummariesBetweenStart: from, end: to)
        ).result(for: store).map { summary in
            [
                Double(summary.dateComponents(for: Self.berlin).day ?? 0),
                summary.activeEnergyBurned.doubleValue(for: .kilocalorie()),
                summary.appleExerciseTime.doubleValue(for: .minute()),
            ]
        }
    }

    @Test func theShortAndTheLongDayEachKeepWhatFellWithinThem() async throws {
        // 00:30 and 01:30 UTC on 2026-10-25 are both 02:30 in Berlin; the 29th of March has 23 hours, the 25th of
        // October 25.
        let firstPass = Self.utc(10, 25, 0, 30), secondPass = Self.utc(10, 25, 1, 30)
        for date in [firstPass, secondPass] {
            #expect(
                Self.berlin.dateComponents([.day, .hour, .minute], from: date)
                    == DateComponents(day: 25, hour: 2, minute: 30))
        }
        #expect(Self.berlin.dateInterval(of: .day, for: Self.at(3, 29, 12))?.duration == TimeInterval(23 * 3600))
        #expect(Self.berlin.dateInterval(of: .day, for: Self.at(10, 25, 12))?.duration == TimeInterval(25 * 3600))

        let store = try await authorizedStore()
        try await store.requestAuthorization(toShare: [], read: [HKObjectType.activitySummaryType()])
        try await store.save([
            // Spring: 60 kcal over the midnight before the short day (30 + 30); 100 kcal 01:30–03:30 local, one real
            // hour across the skipped one, all on the 29th; 40 kcal over the next midnight (20 + 20).
            ActivitySummaryTests.energy(60, from: Self.at(3, 28, 23, 30), to: Self.at(3, 29, 0, 30)),
            ActivitySummaryTests.energy(100, from: Self.at(3, 29, 1, 30), to: Self.at(3, 29, 3, 30)),
            ActivitySummaryTests.energy(40, from: Self.at(3, 29, 23, 30), to: Self.at(3, 30, 0, 30)),
            // Autumn: 80 kcal over the midnight before the long day (40 + 40); 50 kcal over the repeated hour, from
            // its first 02:30 to its second; 60 kcal over the next midnight (30 + 30).
            ActivitySummaryTests.energy(80, from: Self.at(10, 24, 23), to: Self.at(10, 25, 1)),
            ActivitySummaryTests.energy(50, from: firstPass, to: secondPass),
            ActivitySummaryTests.energy(60, from: Self.at(10, 25, 23), to: Self.at(10, 26, 1)),
        ])
        // A run from 01:50 (CEST) to the second 02:20 (CET) of the long day: 90 minutes, though the clock moved 30.
        try await ActivitySummaryTests.workout(store, from: Self.at(10, 25, 1, 50), to: Self.utc(10, 25, 1, 20))

        #expect(
            try await figures(store, from: Self.day(3, 27), to: Self.day(3, 31))
                == [[28, 30, 0], [29, 150, 0], [30, 20, 0]])
        #expect(
            try await figures(store, from: Self.day(10, 23), to: Self.day(10, 27))
                == [[24, 40, 0], [25, 120, 90], [26, 30, 0]])
    }
}
