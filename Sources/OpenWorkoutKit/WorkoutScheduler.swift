import Foundation
import OpenHealthKit

/// A plan scheduled at a date. WorkoutKit: ScheduledWorkoutPlan.
public struct ScheduledWorkoutPlan: Hashable, Sendable {
    public var plan: WorkoutPlan
    /// When the plan is scheduled.
    public var date: DateComponents
    /// Whether the person did it (``WorkoutScheduler/markComplete(_:at:)``).
    public var complete: Bool

    public init(_ plan: WorkoutPlan, date: DateComponents) {
        self.plan = plan
        self.date = date
        self.complete = false
    }
}

/// Errors of the paired-watch state. WorkoutKit: StateError. On Linux there is no watch to pair; nothing throws
/// them, and they exist so that code written for Apple's devices compiles.
public enum StateError: Error, Hashable {
    case watchNotPaired
    case workoutApplicationNotInstalled
}

/// The schedule of planned workouts. WorkoutKit: WorkoutScheduler.
///
/// Apple's scheduler syncs the plans to the Workout app of a paired watch; OpenHealthKit's keeps them in the health
/// store (``shared`` uses the default store, `HKHealthStore()`), where any app and `workout` read them. At most
/// ``maxAllowedScheduledWorkoutCount`` plans are scheduled: scheduling another is ignored, as scheduling the same
/// plan at the same date again replaces it. Apple's methods do not throw; when the store cannot be reached they do
/// nothing (and ``scheduledWorkouts`` is empty).
public final class WorkoutScheduler: Sendable {
    /// What a scheduler may do. WorkoutKit: WorkoutScheduler.AuthorizationState.
    public enum AuthorizationState: Int, Hashable, Sendable {
        case notDetermined
        case restricted
        case denied
        case authorized
    }

    /// The scheduler of the default store.
    public static let shared = WorkoutScheduler(healthStore: HKHealthStore())

    /// 50, as Apple's.
    public static let maxAllowedScheduledWorkoutCount = 50

    /// Always true: the store can hold a schedule on every machine.
    public static var isSupported: Bool { true }

    let healthStore: HKHealthStore

    /// A scheduler that keeps its schedule in `healthStore`. OpenHealthKit addition (Apple has only ``shared``).
    public init(healthStore: HKHealthStore) {
        self.healthStore = healthStore
    }

    /// Always ``AuthorizationState/authorized``: there is no permission prompt on Linux; the store's file
    /// permissions decide who reads the schedule.
    public var authorizationState: WorkoutScheduler.AuthorizationState {
        get async { .authorized }
    }

    /// Returns ``AuthorizationState/authorized`` (nothing to ask on Linux).
    public func requestAuthorization() async -> WorkoutScheduler.AuthorizationState { .authorized }

    /// The scheduled plans, by date, then in the order they were scheduled.
    public var scheduledWorkouts: [ScheduledWorkoutPlan] {
        get async {
            guard let records = try? await healthStore.scheduledPlanRecords() else { return [] }
            return records.compactMap { record in
                guard let plan = try? WorkoutPlan(from: record.plan),
                    let date = ScheduledPlanDate.components(record.date)
                else { return nil }
                var scheduled = ScheduledWorkoutPlan(plan, date: date)
                scheduled.complete = record.complete
                return scheduled
            }
        }
    }

    /// Schedules `plan` at `date` (replacing the same plan at the same date). Ignored when
    /// ``maxAllowedScheduledWorkoutCount`` plans are scheduled, or when the plan cannot be written as a `.workout`
    /// file.
    public func schedule(_ plan: WorkoutPlan, at date: DateComponents) async {
        guard let data = try? plan.dataRepresentation else { return }
        _ = try? await healthStore.schedulePlanRecord(
            ScheduledPlanRecord(plan: data, planID: plan.id, date: ScheduledPlanDate.key(date), complete: false),
            limit: Self.maxAllowedScheduledWorkoutCount)
    }

    /// Removes `plan` scheduled at `date`.
    public func remove(_ plan: WorkoutPlan, at date: DateComponents) async {
        _ = try? await healthStore.removeScheduledPlanRecord(planID: plan.id, date: ScheduledPlanDate.key(date))
    }

    /// Marks `plan` scheduled at `date` complete.
    public func markComplete(_ plan: WorkoutPlan, at date: DateComponents) async {
        _ = try? await healthStore.markScheduledPlanRecordComplete(planID: plan.id, date: ScheduledPlanDate.key(date))
    }

    /// Removes every scheduled plan.
    public func removeAllWorkouts() async {
        try? await healthStore.removeAllScheduledPlanRecords()
    }
}

/// Date components as the store keeps a schedule's date: the fields that are set, `name=value` joined by `;` in a
/// fixed order, so that equal components give the same text (a plan and a date identify a scheduled workout).
/// The calendar and time zone are kept by identifier.
enum ScheduledPlanDate {
    static let fields: [(String, Calendar.Component)] = [
        ("era", .era), ("year", .year), ("month", .month), ("day", .day), ("hour", .hour), ("minute", .minute),
        ("second", .second), ("nanosecond", .nanosecond), ("weekday", .weekday),
        ("weekdayOrdinal", .weekdayOrdinal), ("quarter", .quarter), ("weekOfMonth", .weekOfMonth),
        ("weekOfYear", .weekOfYear), ("yearForWeekOfYear", .yearForWeekOfYear),
    ]

    static func key(_ components: DateComponents) -> String {
        var parts: [String] = []
        if let calendar = components.calendar { parts.append("calendar=\(calendar.identifier)") }
        if let zone = components.timeZone { parts.append("timeZone=\(zone.identifier)") }
        for (name, component) in fields {
            if let value = components.value(for: component), value != Int(NSDateComponentUndefined) {
                parts.append("\(name)=\(value)")
            }
        }
        return parts.joined(separator: ";")
    }

    static func components(_ key: String) -> DateComponents? {
        var components = DateComponents()
        for part in key.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { return nil }
            switch pair[0] {
            case "calendar":
                guard let identifier = calendarIdentifiers.first(where: { "\($0)" == pair[1] }) else { return nil }
                components.calendar = Calendar(identifier: identifier)
            case "timeZone":
                guard let zone = TimeZone(identifier: pair[1]) else { return nil }
                components.timeZone = zone
            default:
                guard let component = fields.first(where: { $0.0 == pair[0] })?.1, let value = Int(pair[1]) else {
                    return nil
                }
                components.setValue(value, for: component)
            }
        }
        return components
    }

    static let calendarIdentifiers: [Calendar.Identifier] = [
        .gregorian, .buddhist, .chinese, .coptic, .ethiopicAmeteMihret, .ethiopicAmeteAlem, .hebrew, .iso8601, .indian,
        .islamic, .islamicCivil, .japanese, .persian, .republicOfChina, .islamicTabular, .islamicUmmAlQura,
    ]
}
