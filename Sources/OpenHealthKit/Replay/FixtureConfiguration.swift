import FitnessSensors
import Foundation
import HealthKitModel
import WorkoutEngine

extension HKWorkoutConfiguration {
    /// The configuration a fixture names: an activity as ``HKWorkoutActivityType/name`` (or its case) spells it,
    /// and a location — `indoor`, `outdoor`, `unknown`, or for swimming `pool` or `openWater`. OpenHealthKit.
    ///
    /// - Returns: nil when the activity or location is not a known name, or HealthKit would reject the result.
    static func fixture(
        activity: String, location: String?, swimmingLocation: String? = nil,
        lapLengthMetres: Double? = nil
    ) -> HKWorkoutConfiguration? {
        guard let type = HKWorkoutActivityType(name: activity) else { return nil }
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = type
        for name in [location, swimmingLocation].compactMap({ $0 }) {
            switch name {
            case "indoor": configuration.locationType = .indoor
            case "outdoor": configuration.locationType = .outdoor
            case "unknown": configuration.locationType = .unknown
            case "pool": configuration.swimmingLocationType = .pool
            case "openWater": configuration.swimmingLocationType = .openWater
            default: return nil
            }
        }
        if let lapLengthMetres { configuration.lapLength = HKQuantity(unit: .meter(), doubleValue: lapLengthMetres) }
        if type == .swimming, configuration.swimmingLocationType == .unknown {
            configuration.swimmingLocationType = .openWater
        }
        guard (try? configuration.validate()) != nil else { return nil }
        return configuration
    }

    /// The configuration of a fixture header's session.
    static func fixture(_ session: FixtureHeader.Session) -> HKWorkoutConfiguration? {
        fixture(
            activity: session.activity, location: session.location, swimmingLocation: session.swimmingLocation,
            lapLengthMetres: session.lapLengthMetres)
    }
}

/// What a full pass over a fixture found: the file is readable to its end. OpenHealthKit.
public struct FixtureSummary: Sendable {
    public var header: FixtureHeader
    /// From the start to the `end` action, or to the last event.
    public var duration: TimeInterval
    public var events: Int
    public var notifications: Int

    /// Reads a fixture to its end, in constant memory, checking every line and every activity it names.
    ///
    /// - Throws: `FixtureError` naming the first line that is not right.
    public static func scan(path: String) throws(FixtureError) -> FixtureSummary {
        let reader = try FixtureReader(path: path)
        guard HKWorkoutConfiguration.fixture(reader.header.session) != nil else {
            throw FixtureError(
                file: path, line: 1,
                "expected the session to name a workout activity (running, cycling, swimBikeRun, …) and a location (indoor, outdoor, pool, openWater), not \"\(reader.header.session.activity)\" \(reader.header.session.location.map { "\"\($0)\"" } ?? "")"
            )
        }
        var summary = FixtureSummary(header: reader.header, duration: 0, events: 0, notifications: 0)
        while let event = try reader.next() {
            summary.events += 1
            summary.duration = event.seconds
            switch event.kind {
            case .notification: summary.notifications += 1
            case .connection: break
            case .action(let action):
                if case let .beginActivity(activity, location) = action,
                    HKWorkoutConfiguration.fixture(activity: activity, location: location) == nil
                {
                    throw FixtureError(
                        file: path, line: reader.lineNumber,
                        "expected \"activity\" and \"location\" to name a workout activity and a location, not \"\(activity)\" \(location.map { "\"\($0)\"" } ?? "")"
                    )
                }
            }
        }
        return summary
    }
}
