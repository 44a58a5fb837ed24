import Foundation

// NSSecureCoding for workouts and what they hold: events, configurations, activities, statistics; and for
// object types and activity summaries. Lists are archived as a count and one key per element ("event.0", …), so
// decoding never needs a collection class.

extension HKObjectType {
    public static var supportsSecureCoding: Bool { true }
}

extension SecureCoding {
    package static func encodeList<T: NSObject & NSSecureCoding>(_ list: [T], _ coder: NSCoder, _ key: String) {
        coder.encode(list.count, forKey: "\(key).count")
        for (index, element) in list.enumerated() { coder.encode(element, forKey: "\(key).\(index)") }
    }

    /// The list, or nil if an element is missing or damaged.
    package static func decodeList<T: NSObject & NSSecureCoding>(
        _ type: T.Type, _ coder: NSCoder, _ key: String
    ) -> [T]? {
        let count = coder.decodeInteger(forKey: "\(key).count")
        guard count >= 0 else { return nil }
        var list: [T] = []
        for index in 0 ..< count {
            guard let element = coder.decodeObject(of: T.self, forKey: "\(key).\(index)") else { return nil }
            list.append(element)
        }
        return list
    }

    package static func encodeStatistics(_ statistics: [HKQuantityType: HKStatistics], _ coder: NSCoder) {
        encodeList(
            statistics.keys.sorted { $0.identifier < $1.identifier }.compactMap { statistics[$0] }, coder, "statistics")
    }

    package static func decodeStatistics(_ coder: NSCoder) -> [HKQuantityType: HKStatistics]? {
        decodeList(HKStatistics.self, coder, "statistics").map { list in
            Dictionary(list.map { ($0.quantityType, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }
}

extension HKWorkoutEvent: NSSecureCoding {
    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(type.rawValue, forKey: "type")
        SecureCoding.encode(dateInterval.start, coder, "start")
        coder.encode(dateInterval.duration, forKey: "duration")
        SecureCoding.encodeMetadata(metadata, coder)
    }

    public convenience init?(coder: NSCoder) {
        guard let type = HKWorkoutEventType(rawValue: coder.decodeInteger(forKey: "type")),
            let start = SecureCoding.decodeDate(coder, "start"),
            case .some(let metadata) = SecureCoding.decodeMetadata(coder)
        else {
            SecureCoding.fail(coder, "an HKWorkoutEvent")
            return nil
        }
        let duration = coder.decodeDouble(forKey: "duration")
        guard duration >= 0 else {
            SecureCoding.fail(coder, "an HKWorkoutEvent")
            return nil
        }
        self.init(type: type, dateInterval: DateInterval(start: start, duration: duration), metadata: metadata)
    }
}

extension HKWorkoutConfiguration: NSSecureCoding {
    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(Int(activityType.rawValue), forKey: "activityType")
        coder.encode(locationType.rawValue, forKey: "locationType")
        coder.encode(swimmingLocationType.rawValue, forKey: "swimmingLocationType")
        if let lapLength { coder.encode(lapLength, forKey: "lapLength") }
    }

    public convenience init?(coder: NSCoder) {
        guard
            let activity = HKWorkoutActivityType(rawValue: UInt(clamping: coder.decodeInteger(forKey: "activityType"))),
            let location = HKWorkoutSessionLocationType(rawValue: coder.decodeInteger(forKey: "locationType")),
            let swimming = HKWorkoutSwimmingLocationType(rawValue: coder.decodeInteger(forKey: "swimmingLocationType"))
        else {
            SecureCoding.fail(coder, "an HKWorkoutConfiguration")
            return nil
        }
        self.init()
        activityType = activity
        locationType = location
        swimmingLocationType = swimming
        lapLength = SecureCoding.decodeOptional(HKQuantity.self, coder, "lapLength")
    }
}

extension HKStatistics: NSSecureCoding {
    public static var supportsSecureCoding: Bool { true }

    private static func encode(_ values: Values, _ coder: NSCoder, _ prefix: String) {
        let numbers: [(String, Double?)] = [
            ("sum", values.sum), ("average", values.average), ("minimum", values.minimum),
            ("maximum", values.maximum), ("mostRecent", values.mostRecent),
            ("duration", values.duration),
        ]
        for (key, value) in numbers { if let value { coder.encode(value, forKey: "\(prefix).\(key)") } }
        if let interval = values.mostRecentInterval {
            SecureCoding.encode(interval.start, coder, "\(prefix).mostRecentStart")
            coder.encode(interval.duration, forKey: "\(prefix).mostRecentDuration")
        }
    }

    private static func decodeValues(_ coder: NSCoder, _ prefix: String) -> Values {
        func number(_ key: String) -> Double? {
            coder.containsValue(forKey: "\(prefix).\(key)") ? coder.decodeDouble(forKey: "\(prefix).\(key)") : nil
        }
        var values = Values(
            sum: number("sum"), average: number("average"), minimum: number("minimum"),
            maximum: number("maximum"), mostRecent: number("mostRecent"), duration: number("duration"))
        if let start = SecureCoding.decodeDate(coder, "\(prefix).mostRecentStart"),
            let duration = number("mostRecentDuration"),
            duration >= 0
        {
            values.mostRecentInterval = DateInterval(start: start, duration: duration)
        }
        return values
    }

    public func encode(with coder: NSCoder) {
        coder.encode(quantityType, forKey: "quantityType")
        SecureCoding.encode(startDate, coder, "startDate")
        SecureCoding.encode(endDate, coder, "endDate")
        Self.encode(merged, coder, "merged")
        let sources = bySource.keys.sorted { $0.bundleIdentifier < $1.bundleIdentifier }
        SecureCoding.encodeList(sources, coder, "source")
        for (index, source) in sources.enumerated() {
            if let values = bySource[source] { Self.encode(values, coder, "values.\(index)") }
        }
        if let options { coder.encode(Int(options.rawValue), forKey: "options") }
    }

    public convenience init?(coder: NSCoder) {
        guard let type = coder.decodeObject(of: HKQuantityType.self, forKey: "quantityType"),
            let start = SecureCoding.decodeDate(coder, "startDate"),
            let end = SecureCoding.decodeDate(coder, "endDate"),
            let sources = SecureCoding.decodeList(HKSource.self, coder, "source")
        else {
            SecureCoding.fail(coder, "an HKStatistics")
            return nil
        }
        var bySource: [HKSource: Values] = [:]
        for (index, source) in sources.enumerated() { bySource[source] = Self.decodeValues(coder, "values.\(index)") }
        let options =
            coder.containsValue(forKey: "options")
            ? HKStatisticsOptions(rawValue: UInt(clamping: coder.decodeInteger(forKey: "options"))) : nil
        self.init(
            quantityType: type, startDate: start, endDate: end, merged: Self.decodeValues(coder, "merged"),
            bySource: bySource, options: options)
    }
}

extension HKWorkoutActivity: NSSecureCoding {
    public static var supportsSecureCoding: Bool { true }

    /// Archives the activity with its events and statistics (not its zone groups).
    public func encode(with coder: NSCoder) {
        coder.encode(uuid.uuidString as NSString, forKey: "uuid")
        coder.encode(configuration, forKey: "configuration")
        SecureCoding.encode(startDate, coder, "startDate")
        SecureCoding.encode(endDate, coder, "endDate")
        SecureCoding.encodeMetadata(metadata, coder)
        SecureCoding.encodeList(workoutEvents, coder, "event")
        SecureCoding.encodeStatistics(allStatistics, coder)
    }

    public convenience init?(coder: NSCoder) {
        guard let uuid = SecureCoding.decodeUUID(coder, "uuid"),
            let configuration = coder.decodeObject(of: HKWorkoutConfiguration.self, forKey: "configuration"),
            let start = SecureCoding.decodeDate(coder, "startDate"),
            case .some(let metadata) = SecureCoding.decodeMetadata(coder),
            let events = SecureCoding.decodeList(HKWorkoutEvent.self, coder, "event"),
            let statistics = SecureCoding.decodeStatistics(coder)
        else {
            SecureCoding.fail(coder, "an HKWorkoutActivity")
            return nil
        }
        self.init(
            uuid: uuid, configuration: configuration, startDate: start,
            endDate: SecureCoding.decodeDate(coder, "endDate"),
            metadata: metadata, parentEvents: events, statistics: statistics)
    }
}

extension HKWorkout {
    package struct ArchivedWorkout {
        package var activityType: HKWorkoutActivityType
        package var duration: TimeInterval
        package var events: [HKWorkoutEvent]
        package var activities: [HKWorkoutActivity]
        package var statistics: [HKQuantityType: HKStatistics]
    }

    /// The workout's own fields. Zone groups are not archived (an archived workout has none): they are values of
    /// the store's zone engine, read back with the workout from the store.
    package func encodeWorkoutFields(_ coder: NSCoder) {
        coder.encode(Int(workoutActivityType.rawValue), forKey: "activityType")
        coder.encode(duration, forKey: "duration")
        SecureCoding.encodeList(workoutEvents ?? [], coder, "event")
        SecureCoding.encodeList(workoutActivities, coder, "activity")
        SecureCoding.encodeStatistics(allStatistics, coder)
    }

    package static func decodeWorkoutFields(_ coder: NSCoder) -> ArchivedWorkout? {
        guard let type = HKWorkoutActivityType(rawValue: UInt(clamping: coder.decodeInteger(forKey: "activityType"))),
            let events = SecureCoding.decodeList(HKWorkoutEvent.self, coder, "event"),
            let activities = SecureCoding.decodeList(HKWorkoutActivity.self, coder, "activity"),
            let statistics = SecureCoding.decodeStatistics(coder)
        else { return nil }
        return ArchivedWorkout(
            activityType: type, duration: coder.decodeDouble(forKey: "duration"), events: events,
            activities: activities, statistics: statistics)
    }
}

extension HKActivitySummary: NSSecureCoding {
    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        SecureCoding.encode(dayStart, coder, "dayStart")
        if let day, let year = day.year, let month = day.month, let dayOfMonth = day.day {
            coder.encode(year, forKey: "year")
            coder.encode(month, forKey: "month")
            coder.encode(dayOfMonth, forKey: "day")
            if let zone = day.calendar?.timeZone.identifier { coder.encode(zone as NSString, forKey: "timeZone") }
        }
        coder.encode(activityMoveMode.rawValue, forKey: "activityMoveMode")
        coder.encode(isPaused, forKey: "isPaused")
        let quantities: [(String, HKQuantity?)] = [
            ("activeEnergyBurned", activeEnergyBurned), ("activeEnergyBurnedGoal", activeEnergyBurnedGoal),
            ("appleMoveTime", appleMoveTime), ("appleMoveTimeGoal", appleMoveTimeGoal),
            ("appleExerciseTime", appleExerciseTime),
            ("exerciseTimeGoal", exerciseTimeGoal), ("appleStandHours", appleStandHours),
            ("standHoursGoal", standHoursGoal),
        ]
        for (key, quantity) in quantities { if let quantity { coder.encode(quantity, forKey: key) } }
    }

    public convenience init?(coder: NSCoder) {
        guard let mode = HKActivityMoveMode(rawValue: coder.decodeInteger(forKey: "activityMoveMode")) else {
            SecureCoding.fail(coder, "an HKActivitySummary")
            return nil
        }
        self.init()
        dayStart = SecureCoding.decodeDate(coder, "dayStart")
        if coder.containsValue(forKey: "year") {
            var calendar = Calendar(identifier: .gregorian)
            if let zone = SecureCoding.decodeString(coder, "timeZone").flatMap(TimeZone.init(identifier:)) {
                calendar.timeZone = zone
            }
            var components = DateComponents(
                year: coder.decodeInteger(forKey: "year"), month: coder.decodeInteger(forKey: "month"),
                day: coder.decodeInteger(forKey: "day"))
            components.calendar = calendar
            day = components
        }
        activityMoveMode = mode
        isPaused = coder.decodeBool(forKey: "isPaused")
        func quantity(_ key: String) -> HKQuantity? { SecureCoding.decodeOptional(HKQuantity.self, coder, key) }
        activeEnergyBurned = quantity("activeEnergyBurned") ?? activeEnergyBurned
        activeEnergyBurnedGoal = quantity("activeEnergyBurnedGoal") ?? activeEnergyBurnedGoal
        appleMoveTime = quantity("appleMoveTime") ?? appleMoveTime
        appleMoveTimeGoal = quantity("appleMoveTimeGoal") ?? appleMoveTimeGoal
        appleExerciseTime = quantity("appleExerciseTime") ?? appleExerciseTime
        exerciseTimeGoal = quantity("exerciseTimeGoal")
        appleStandHours = quantity("appleStandHours") ?? appleStandHours
        standHoursGoal = quantity("standHoursGoal")
    }
}
