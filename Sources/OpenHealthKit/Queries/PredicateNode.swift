import Foundation
import HealthKitModel
import WorkoutEngine

/// What an `HKQuery` predicate means, as a tree the store compiles to SQL.
///
/// `HKQuery.predicateFor…` functions return an ``HKQueryPredicate`` (an `NSPredicate`) carrying one of these;
/// `NSCompoundPredicate`s of them are read back into `.and`/`.or`/`.not`.
indirect enum PredicateNode: Sendable {
    /// Samples are compared with a value of one of their own columns.
    enum Comparison: Sendable {
        case lessThan, lessThanOrEqual, greaterThan, greaterThanOrEqual, equal, notEqual

        init?(_ type: _ComparisonOperator) {
            switch type {
            case .lessThan: self = .lessThan
            case .lessThanOrEqualTo: self = .lessThanOrEqual
            case .greaterThan: self = .greaterThan
            case .greaterThanOrEqualTo: self = .greaterThanOrEqual
            case .equalTo: self = .equal
            case .notEqualTo: self = .notEqual
            default: return nil
            }
        }

        func holds(_ lhs: Double, _ rhs: Double) -> Bool {
            switch self {
            case .lessThan: lhs < rhs
            case .lessThanOrEqual: lhs <= rhs
            case .greaterThan: lhs > rhs
            case .greaterThanOrEqual: lhs >= rhs
            case .equal: lhs == rhs
            case .notEqual: lhs != rhs
            }
        }
    }

    /// Which value of a statistics row a predicate compares.
    enum Statistic: String, Sendable {
        case sum, average, minimum, maximum
    }

    case constant(Bool)
    /// Samples no correlation holds (`HKQuery.predicateForObjectsWithNoCorrelation()`).
    case noCorrelation
    case uuids([UUID])
    case associatedWithWorkout(UUID)
    /// Effort samples related to a workout (activity nil) or to one of its activities (relateWorkoutEffortSample).
    case effortRelated(workout: UUID, activity: UUID?)
    /// Samples in a date range; the options are `HKQueryOptions`.
    case sampleDates(start: Date?, end: Date?, options: HKQueryOptions)
    case workoutActivityType(HKWorkoutActivityType)
    case workoutDuration(Comparison?, TimeInterval)
    /// Quantity samples whose quantity compares with the value (in a unit of the sample's type).
    case quantity(Comparison?, HKQuantity)
    /// A workout statistic of any of the listed types (a deprecated total names several distance types).
    case workoutStatistic(types: [String], Statistic, Comparison?, Double)
    /// Matches workouts with at least one activity matching the inner activity predicate.
    case workoutsWithActivity(PredicateNode)
    case activityType(HKWorkoutActivityType)
    case activityDuration(Comparison?, TimeInterval)
    case activityDates(start: Date?, end: Date?, options: HKQueryOptions)
    case activityStatistic(type: String, Statistic, Comparison?, Double)
    case and([PredicateNode])
    case or([PredicateNode])
    case not(PredicateNode)
    /// Source, device and metadata predicates (ObjectFilter.swift).
    case filter(ObjectFilter)
    /// A predicate OpenHealthKit cannot run as SQL (a block predicate); kept for the error message.
    case foreign(String)
    /// A predicate built from a bad argument (a quantity whose unit does not fit the type): a query using it fails
    /// with `errorInvalidArgument` and this sentence, where HealthKit raises an exception.
    case invalid(String)

    /// Whether the node only makes sense inside `predicateForWorkouts(activityPredicate:)`.
    var isActivityNode: Bool {
        switch self {
        case .activityType, .activityDuration, .activityDates, .activityStatistic, .invalid: true
        case .and(let nodes), .or(let nodes): !nodes.isEmpty && nodes.allSatisfy(\.isActivityNode)
        case .not(let node): node.isActivityNode
        default: false
        }
    }

    /// Whether every match must be a sample associated with a given workout (a conjunct names one).
    var selectsWorkoutSamples: Bool {
        switch self {
        case .associatedWithWorkout, .effortRelated: true
        case .and(let nodes): nodes.contains(where: \.selectsWorkoutSamples)
        default: false
        }
    }

    /// Reads any predicate back into a node: ours carry theirs, compounds are walked, value predicates are constants.
    init(_ predicate: NSPredicate) {
        if let ours = predicate as? HKQueryPredicate {
            self = ours.node
        } else if let compound = predicate as? NSCompoundPredicate {
            let children = compound.subpredicates.map(PredicateNode.init)
            switch compound.compoundPredicateType {
            case .and: self = .and(children)
            case .or: self = .or(children)
            case .not: self = children.count == 1 ? .not(children[0]) : .not(.and(children))
            @unknown default: self = .foreign("a compound predicate of an unknown kind")
            }
        } else if predicate.isEqual(NSPredicate(value: true)) {
            self = .constant(true)
        } else if predicate.isEqual(NSPredicate(value: false)) {
            self = .constant(false)
        } else {
            // Not `predicateFormat`: swift-corelibs-foundation deprecates it (its strings are not predicates there).
            self = .foreign(type(of: predicate) == NSPredicate.self ? "NSPredicate(block:)" : "\(type(of: predicate))")
        }
    }
}

/// An `NSPredicate` made by one of `HKQuery`'s predicate functions; the store runs it as SQL.
///
/// `evaluate(with:)` answers for objects in memory from what the object itself knows; a predicate that needs
/// the store (samples associated with a workout) evaluates to false there.
public final class HKQueryPredicate: NSPredicate {
    let node: PredicateNode

    init(_ node: PredicateNode) {
        self.node = node
        super.init(value: true)
    }

    public required init?(coder: NSCoder) { nil }

    public override var predicateFormat: String { "HKQueryPredicate(\(node))" }

    public override func evaluate(with object: Any?) -> Bool {
        PredicateEvaluator.evaluate(node, object)
    }

    public override func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
        evaluate(with: object)
    }
}
