import Foundation
import HealthKitModel
import WorkoutEngine

extension HKHealthStore {
    /// The activity summaries of the days a predicate matches, oldest first: one per calendar day that has active
    /// energy or workout time, computed from every source's samples (see ``HKActivitySummary``).
    ///
    /// Reading them needs read authorization for ``HKObjectType/activitySummaryType()``; without it there are
    /// none, as if there were no data (HealthKit's privacy rule). Days are those of the predicate's calendar (its
    /// date components' `calendar`), else `Calendar.current`.
    func activitySummaries(matching predicate: NSPredicate?) async throws -> [HKActivitySummary] {
        let access = try await readAccess()
        guard access.canRead(HKActivitySummaryTypeIdentifier) else { return [] }
        let bounds = HKActivitySummaryPredicate.bounds(of: predicate)
        if case .invalid = bounds {
            throw HKError(
                .errorInvalidArgument,
                """
                An activity summary query takes predicates made by predicateForActivitySummary(with:) or \
                predicate(forActivitySummariesBetweenStart:end:) (with year, month and day), or compounds of them.
                """)
        }
        let calendar = Self.calendar(of: predicate) ?? Calendar.current
        let backend = try backend()
        let summaries = try await { () async throws -> [HKActivitySummary] in
            guard let span = try await backend.activityDataSpan() else { return [] }
            var start = Date(storeValue: span.start)
            var end = Date(storeValue: max(span.end, span.start + 1))
            if case let .days(first, last) = bounds {
                start = max(start, first)
                end = min(end, last)
            }
            guard start < end else { return [] }
            let firstDay = calendar.startOfDay(for: start)
            let tiling = DateTiling(anchor: firstDay, components: DateComponents(day: 1), calendar: calendar)
            let energyType = HKQuantityType(.activeEnergyBurned)
            let partials = try await backend.statisticsCollection(
                energyType,
                fetch: HKQueryDescriptor(
                    sampleType: energyType, predicate: HKQuery.predicateForSamples(withStart: firstDay, end: end)),
                tiling: tiling, client: access.clientIdentifier, everySource: true)
            var energy: [Int: Double] = [:]
            for (index, values) in partials where index >= 0 {
                energy[index] = values.merged?.sum
            }
            let running = ExerciseTime.union(
                try await backend.workoutRunningSpans(from: firstDay.storeValue, to: end.storeValue))
            let profile = try await backend.workoutProfile()
            var result: [HKActivitySummary] = []
            var index = 0
            while tiling.start(of: index) < end {
                let dayStart = tiling.start(of: index)
                let dayEnd = tiling.start(of: index + 1)
                let worked = running.contains { $0.end > dayStart.storeValue && $0.start < dayEnd.storeValue }
                if energy[index] != nil || worked {
                    let minutes = ExerciseTime.minutes(of: running, from: dayStart.storeValue, to: dayEnd.storeValue)
                    result.append(
                        Self.summary(
                            day: dayStart, calendar: calendar, energy: energy[index] ?? 0,
                            exerciseMinutes: minutes, profile: profile))
                }
                index += 1
            }
            return result
        }()
        guard let predicate else { return summaries }
        return summaries.filter { Self.matches(predicate, $0) }
    }

    /// Evaluates a day predicate or a compound of them (swift-corelibs-foundation's `NSCompoundPredicate` does not
    /// evaluate subclasses' subpredicates).
    private static func matches(_ predicate: NSPredicate, _ summary: HKActivitySummary) -> Bool {
        guard let compound = predicate as? NSCompoundPredicate else { return predicate.evaluate(with: summary) }
        let parts = compound.subpredicates
        switch compound.compoundPredicateType {
        case .and: return parts.allSatisfy { matches($0, summary) }
        case .or: return parts.contains { matches($0, summary) }
        case .not: return !(parts.first.map { matches($0, summary) } ?? false)
        @unknown default: return false
        }
    }

    private static func summary(
        day: Date, calendar: Calendar, energy: Double, exerciseMinutes: Int,
        profile: WorkoutProfile
    ) -> HKActivitySummary {
        let summary = HKActivitySummary()
        var components = calendar.dateComponents([.era, .year, .month, .day], from: day)
        components.calendar = calendar
        summary.day = components
        summary.dayStart = day
        summary.activeEnergyBurned = HKQuantity(unit: .kilocalorie(), doubleValue: energy)
        summary.activeEnergyBurnedGoal = HKQuantity(
            unit: .kilocalorie(), doubleValue: profile.moveGoal ?? WorkoutProfile.defaultMoveGoal)
        summary.appleExerciseTime = HKQuantity(unit: .minute(), doubleValue: Double(exerciseMinutes))
        summary.exerciseTimeGoal = HKQuantity(
            unit: .minute(), doubleValue: profile.exerciseGoal ?? WorkoutProfile.defaultExerciseGoal)
        summary.appleStandHours = HKQuantity(unit: .count(), doubleValue: 0)
        summary.standHoursGoal = HKQuantity(
            unit: .count(), doubleValue: profile.standGoal ?? WorkoutProfile.defaultStandGoal)
        return summary
    }

    /// The calendar the first day predicate names, if any.
    private static func calendar(of predicate: NSPredicate?) -> Calendar? {
        if let days = predicate as? HKActivitySummaryPredicate { return days.first.calendar ?? days.last.calendar }
        if let compound = predicate as? NSCompoundPredicate {
            for part in compound.subpredicates {
                if let calendar = calendar(of: part) { return calendar }
            }
        }
        return nil
    }
}
