import Foundation
import OpenHealthKit

/// Everything an export writes, read from the store through public HealthKit API (sample, series, heartbeat and
/// route queries; the workout's statistics, events, activities and zone groups): the writers for FIT, TCX and GPX
/// are pure functions of it.
public struct WorkoutExportData: Sendable {
    /// One instant of the workout at a whole second (FIT's time resolution): the last reading of each kind in
    /// that second, cumulative distance in metres, and the route location there when the workout has a route.
    public struct Record: Sendable, Hashable {
        public var date: Date
        public var heartRate: Double?
        public var power: Double?
        /// Cycles a minute: a ride's rpm, or a run's strides (two steps) a minute (`RunningCadence`), as FIT and TCX
        /// count them.
        public var cadence: Double?
        /// m/s.
        public var speed: Double?
        /// Metres since the start.
        public var distance: Double?
        public var latitude: Double?
        public var longitude: Double?
        /// Metres.
        public var altitude: Double?
        /// Running dynamics: stride (step) length in metres, vertical oscillation in centimetres, ground contact
        /// time in milliseconds.
        public var strideLength: Double?
        public var verticalOscillation: Double?
        public var groundContactTime: Double?

        public init(date: Date) { self.date = date }
        public var hasPosition: Bool { latitude != nil && longitude != nil }
    }

    /// The figures of a session (a leg of a multisport workout, or the whole workout) or of a lap.
    public struct Summary: Sendable, Hashable {
        public var activityType: HKWorkoutActivityType
        public var locationType: HKWorkoutSessionLocationType
        public var interval: DateInterval
        /// Seconds the timer ran: the interval less its pauses.
        public var timerTime: TimeInterval
        public var distance: Double?
        public var energy: Double?
        public var averageHeartRate: Double?
        public var maximumHeartRate: Double?
        /// Cycles a minute, as ``Record/cadence``.
        public var averageCadence: Double?
        public var maximumCadence: Double?
        /// Whether the cadence is a run's, from its steps (strides a minute), not a ride's (rpm).
        public var isRunningCadence = false
        /// The steps of the span (a cumulative `stepCount` statistic), when it has any.
        public var steps: Double?
        public var averagePower: Double?
        public var maximumPower: Double?
        public var averageSpeed: Double?
        public var maximumSpeed: Double?
        public var normalizedPower: Double?
        /// Seconds in each heart-rate zone, lowest first (the workout's stored zone group).
        public var timeInHeartRateZones: [TimeInterval]?
        /// Seconds in each cycling-power zone, lowest first, when the workout has power zones.
        public var timeInPowerZones: [TimeInterval]?
    }

    public var uuid: UUID
    public var activityType: HKWorkoutActivityType
    public var locationType: HKWorkoutSessionLocationType
    public var start: Date
    public var end: Date
    /// The devices that made the workout and its samples: the workout's own first, then each sensor once.
    public var devices: [HKDevice]
    /// A sensor's battery level in percent, first and last reported during the recording (`HKWorkoutSensor`).
    public struct Battery: Hashable, Sendable {
        public var atStart: Int?
        public var atEnd: Int?

        public init(atStart: Int?, atEnd: Int?) {
            self.atStart = atStart
            self.atEnd = atEnd
        }
    }
    /// Battery levels by index into ``devices``, for the sensors that reported one.
    public var batteries: [Int: Battery] = [:]
    public var records: [Record]
    /// Beat-to-beat intervals in seconds, the first from the workout's start; NaN marks a gap before the next beat.
    public var rrIntervals: [Double]
    /// The workout's pauses (`WorkoutPauses`: its pause and resume events, not its motion pauses).
    public var pauses: [DateInterval]
    /// The laps with their figures (`WorkoutLaps`: the lap events, the time after the last one a lap of its own),
    /// in time order; empty when the workout has no lap events.
    public var laps: [Summary]
    /// One per leg of a multisport workout (transitions included), else one for the whole workout.
    public var sessions: [Summary]
    public var hasRoute: Bool { records.contains(where: \.hasPosition) }

    public init(
        uuid: UUID, activityType: HKWorkoutActivityType, locationType: HKWorkoutSessionLocationType, start: Date,
        end: Date, devices: [HKDevice] = [], records: [Record] = [], rrIntervals: [Double] = [],
        pauses: [DateInterval] = [], laps: [Summary] = [], sessions: [Summary] = []
    ) {
        self.uuid = uuid
        self.activityType = activityType
        self.locationType = locationType
        self.start = start
        self.end = end
        self.devices = devices
        self.records = records
        self.rrIntervals = rrIntervals
        self.pauses = pauses
        self.laps = laps
        self.sessions = sessions
    }

    /// Seconds of `interval` outside the pauses: for the whole workout, its `duration`.
    public func timerTime(within interval: DateInterval) -> TimeInterval {
        WorkoutPauses.runningTime(of: interval, outside: pauses)
    }

    /// The records within `interval`: half-open, so a record at a lap's end belongs to the next lap, except at the
    /// workout's end, which the last lap holds.
    public func records(within interval: DateInterval) -> ArraySlice<Record> {
        let from = records.firstIndex { $0.date >= interval.start } ?? records.endIndex
        let closed = interval.end >= end
        let to =
            records[from...].firstIndex { closed ? $0.date > interval.end : $0.date >= interval.end }
            ?? records.endIndex
        return records[from ..< to]
    }

    /// A summary of `interval` with its timer time and no figures yet: they come from the library's statistics
    /// (`Summary.apply(_:zones:powerZones:)`), never from the records, which keep one reading a second.
    public func summary(
        of interval: DateInterval, activityType: HKWorkoutActivityType,
        locationType: HKWorkoutSessionLocationType
    ) -> Summary {
        Summary(
            activityType: activityType, locationType: locationType, interval: interval,
            timerTime: timerTime(within: interval), distance: nil, energy: nil, averageHeartRate: nil,
            maximumHeartRate: nil, averageCadence: nil, maximumCadence: nil, averagePower: nil, maximumPower: nil,
            averageSpeed: nil, maximumSpeed: nil, normalizedPower: nil, timeInHeartRateZones: nil, timeInPowerZones: nil
        )
    }

    /// The sessions to write: ``sessions``, or one computed from the records over the whole workout.
    public var sessionsOrWhole: [Summary] {
        sessions.isEmpty
            ? [
                summary(
                    of: DateInterval(start: start, end: end), activityType: activityType, locationType: locationType)
            ]
            : sessions
    }

    /// The laps to write, each with the index of its session: the laps inside each session, or the session itself
    /// when it has none.
    public func lapSummaries(_ sessions: [Summary]) -> [(Summary, session: Int)] {
        var laps: [(Summary, session: Int)] = []
        for (index, session) in sessions.enumerated() {
            let inside = self.laps.filter {
                $0.interval.start >= session.interval.start && $0.interval.start < session.interval.end
            }
            if inside.isEmpty {
                laps.append((session, index))
            } else {
                for lap in inside { laps.append((lap, index)) }
            }
        }
        return laps
    }
}
