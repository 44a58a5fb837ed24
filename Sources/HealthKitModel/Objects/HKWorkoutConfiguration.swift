import Foundation

/// Where a workout takes place. Raw values as HealthKit's. HealthKit: HKWorkoutSessionLocationType.
public enum HKWorkoutSessionLocationType: Int, Sendable, Hashable, CaseIterable {
    case unknown = 1
    case indoor = 2
    case outdoor = 3
}

/// What a workout (or one of its activities) is: activity type, location, and for swims the pool.
///
/// The configuration is a mutable value object, as in HealthKit. Sessions and builders check it with the rules
/// HealthKit applies (see ``validate()``) and copy it.
///
/// HealthKit: HKWorkoutConfiguration.
public final class HKWorkoutConfiguration: NSObject, NSCopying, @unchecked Sendable {
    /// The activity type; `.other` until set.
    public var activityType: HKWorkoutActivityType = .other
    /// Indoors or outdoors; `.unknown` until set.
    public var locationType: HKWorkoutSessionLocationType = .unknown
    /// For swims, pool or open water; `.unknown` until set.
    public var swimmingLocationType: HKWorkoutSwimmingLocationType = .unknown
    /// For pool swims, the length of the pool.
    public var lapLength: HKQuantity?

    public override init() { super.init() }

    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = HKWorkoutConfiguration()
        copy.activityType = activityType
        copy.locationType = locationType
        copy.swimmingLocationType = swimmingLocationType
        copy.lapLength = lapLength
        return copy
    }

    /// A copy, typed.
    package func copied() -> HKWorkoutConfiguration { copy() as! HKWorkoutConfiguration }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKWorkoutConfiguration else { return false }
        let lapsEqual: Bool =
            switch (lapLength, other.lapLength) {
            case (nil, nil): true
            case let (a?, b?):
                a.is(compatibleWith: HKUnit.meter()) && b.is(compatibleWith: HKUnit.meter())
                    && a.doubleValue(for: .meter()) == b.doubleValue(for: .meter())
            default: false
            }
        return other.activityType == activityType && other.locationType == locationType
            && other.swimmingLocationType == swimmingLocationType && lapsEqual
    }

    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(activityType)
        hasher.combine(locationType)
        hasher.combine(swimmingLocationType)
        return hasher.finalize()
    }

    public override var description: String {
        var parts = ["activityType: \(activityType.name)", "location: \(locationType)"]
        if activityType == .swimming || swimmingLocationType != .unknown {
            parts.append("swimming: \(swimmingLocationType)")
        }
        if let lapLength { parts.append("lapLength: \(lapLength)") }
        return "<HKWorkoutConfiguration " + parts.joined(separator: ", ") + ">"
    }

    /// Checks the rules HealthKit applies when a session or builder is created with this configuration.
    ///
    /// - Swimming must say pool or open water; a pool swim needs a positive lap length in a length unit;
    ///   an open-water swim has no lap length.
    /// - Other activities (`swimBikeRun` legs aside) must not set a swimming location or a lap length.
    /// - `underwaterDiving` is not allowed for third-party sessions (`errorWorkoutActivityNotAllowed`).
    ///
    /// Throws `HKError` `.errorInvalidArgument` naming the broken rule.
    public func validate() throws {
        if activityType == .underwaterDiving {
            throw HKError(.errorWorkoutActivityNotAllowed, "Underwater diving workouts are not allowed.")
        }
        if let lapLength {
            guard lapLength.is(compatibleWith: .meter()) else {
                throw HKError(.errorInvalidArgument, "The lap length \(lapLength) is not a length.")
            }
        }
        if activityType == .swimming {
            switch swimmingLocationType {
            case .unknown:
                throw HKError(
                    .errorInvalidArgument, "A swimming workout must set swimmingLocationType to .pool or .openWater.")
            case .pool:
                guard let lapLength, lapLength.doubleValue(for: .meter()) > 0 else {
                    throw HKError(.errorInvalidArgument, "A pool swim needs a positive lapLength.")
                }
            case .openWater:
                if lapLength != nil {
                    throw HKError(.errorInvalidArgument, "An open-water swim must not set lapLength.")
                }
            }
        } else if activityType != .swimBikeRun {
            if swimmingLocationType != .unknown {
                throw HKError(.errorInvalidArgument, "Only swimming workouts may set swimmingLocationType.")
            }
            if lapLength != nil {
                throw HKError(.errorInvalidArgument, "Only pool swims may set lapLength.")
            }
        }
    }
}
