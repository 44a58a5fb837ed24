import Foundation

/// The kinds of workout events, with HealthKit's raw values. HealthKit: HKWorkoutEventType.
public enum HKWorkoutEventType: Int, Sendable, Hashable, CaseIterable {
    /// The person paused the workout: the elapsed-time clock stops.
    case pause = 1
    /// The person resumed the workout: the elapsed-time clock runs again.
    case resume = 2
    /// A lap: an interval of the workout.
    case lap = 3
    /// A point of interest.
    case marker = 4
    /// The system detected that motion stopped (does not move the elapsed-time clock).
    case motionPaused = 5
    /// The system detected that motion resumed.
    case motionResumed = 6
    /// A period of interest; segments may overlap.
    case segment = 7
    /// The person asked to pause or resume; the app should do so.
    case pauseOrResumeRequest = 8

    /// Whether events of this type may last for a time (HealthKit allows it for laps and segments only).
    package var mayHaveDuration: Bool { self == .lap || self == .segment }

    /// The type's name, as a person reads it.
    public var name: String {
        switch self {
        case .pause: "pause"
        case .resume: "resume"
        case .lap: "lap"
        case .marker: "marker"
        case .motionPaused: "motion paused"
        case .motionResumed: "motion resumed"
        case .segment: "segment"
        case .pauseOrResumeRequest: "pause or resume request"
        }
    }
}

/// Something that happened during a workout at a time or over an interval: a pause, a lap, a marker…
///
/// HealthKit: HKWorkoutEvent.
public final class HKWorkoutEvent: NSObject, NSCopying, Sendable {
    public let type: HKWorkoutEventType
    public let dateInterval: DateInterval
    /// Not checked by the compiler only because Apple's type is `[String: Any]`: its values are property-list values
    /// and quantities, never changed once the object is made.
    nonisolated(unsafe) public let metadata: [String: Any]?

    /// The event's start.
    @available(*, deprecated, message: "Use dateInterval")
    public var date: Date { dateInterval.start }

    /// Creates an event. Only laps and segments may have a duration; giving one to another type is a programmer
    /// error, as in HealthKit.
    public init(type: HKWorkoutEventType, dateInterval: DateInterval, metadata: [String: Any]?) {
        hkPrecondition(
            dateInterval.duration == 0 || type.mayHaveDuration,
            "a workout event of type \(type.name) cannot have a duration")
        self.type = type
        self.dateInterval = dateInterval
        self.metadata = (metadata?.isEmpty ?? true) ? nil : metadata
    }

    @available(*, deprecated, message: "Use init(type:dateInterval:metadata:)")
    public convenience init(type: HKWorkoutEventType, date: Date) {
        self.init(type: type, dateInterval: DateInterval(start: date, duration: 0), metadata: nil)
    }

    @available(*, deprecated, message: "Use init(type:dateInterval:metadata:)")
    public convenience init(type: HKWorkoutEventType, date: Date, metadata: [String: Any]) {
        self.init(type: type, dateInterval: DateInterval(start: date, duration: 0), metadata: metadata)
    }

    /// Creates an event from user input, throwing `errorInvalidArgument` instead of trapping. OpenHealthKit.
    public static func validated(
        type: HKWorkoutEventType, dateInterval: DateInterval,
        metadata: [String: Any]? = nil
    ) throws -> HKWorkoutEvent {
        guard dateInterval.duration == 0 || type.mayHaveDuration else {
            throw HKError(.errorInvalidArgument, "A workout event of type \(type.name) cannot have a duration.")
        }
        try MetadataCoding.validate(metadata)
        return HKWorkoutEvent(type: type, dateInterval: dateInterval, metadata: metadata)
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKWorkoutEvent else { return false }
        return other.type == type && other.dateInterval == dateInterval
    }

    public override var hash: Int { dateInterval.start.hashValue ^ type.rawValue }
    public func copy(with zone: NSZone? = nil) -> Any { self }
    public override var description: String {
        "<HKWorkoutEvent \(type.name) \(dateInterval.start) +\(dateInterval.duration)s>"
    }
}
