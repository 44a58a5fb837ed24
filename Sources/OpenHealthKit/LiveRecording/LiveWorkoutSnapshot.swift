import FitnessSensors
import Foundation

/// What a live workout screen shows at one instant, every figure already decided: the one view model the terminal
/// view (`workout record`, `replay`, `watch`) draws, and a browser page (`--serve`) and its JSON API serialise.
/// OpenHealthKit.
///
/// Built from ``LiveWorkoutFigures`` (what the recording's builder holds, and what mirroring carries to a companion)
/// by ``init(figures:at:elapsed:activity:paused:running:zone:zoneBoundaries:)``, with the session's state and zones;
/// a view only formats it. Values older than ``freshness`` are nil (shown as "–"). ``jsonData()`` is the JSON a
/// browser reads (`docs/live-api.md` describes each field).
public struct LiveWorkoutSnapshot: Sendable, Equatable {
    /// A value older than this is not shown, in seconds.
    public static let freshness: TimeInterval = 3

    /// When the snapshot was taken, on the recording's clock; nil for one made by hand.
    public var date: Date? = nil
    /// Wall-clock time since the session started, in seconds.
    public var elapsed: TimeInterval
    /// The builder's `elapsedTime`: time not paused, in seconds.
    public var moving: TimeInterval
    /// The activity, in words (`cycling`).
    public var activity: String
    public var paused: Bool
    /// Heart rate (count/min), power and 3-second power (W), cadence (``cadenceUnit``), speed (m/s): values no older
    /// than ``freshness``.
    public var heartRate: Double?
    public var power: Double?
    public var power3s: Double?
    public var cadence: Double?
    /// What the cadence counts: a ride's `rpm`, or a run's `steps/min` (from its step samples).
    public var cadenceUnit = "rpm"
    /// Metres per second.
    public var speed: Double?
    /// Whether the workout collects these at all (a view leaves them out otherwise).
    public var showsPower: Bool
    public var showsCadence: Bool
    public var showsSpeed: Bool
    /// The heart-rate zone in effect, 0-based.
    public var zone: Int?
    /// Upper thresholds of the heart-rate zones, in count/min.
    public var zoneBoundaries: [Double]
    /// Time in each heart-rate zone so far, in seconds (one more than ``zoneBoundaries``).
    public var zoneTimes: [TimeInterval]
    /// The power zone in effect, 0-based, and the power zones' upper thresholds in W: empty when the workout has no
    /// power zones (no FTP, no zones of the person's own).
    public var powerZone: Int? = nil
    public var powerZoneBoundaries: [Double] = []
    /// Lap events so far; the lap under way is `laps + 1`.
    public var laps: Int
    /// Moving time since the last lap (or the start), in seconds.
    public var lapTime: TimeInterval
    public var sensors: [SensorLine]
    /// The trainers under control (a target power, `+` and `-`): each one's control, as the library keeps it.
    public var machines: [MachineLine] = []
    /// Why a target power asked for is not set (no sensor offers control), when that is so.
    public var trainerNotice: String? = nil
    /// The plan running, when one is: the step, its target, its average power, what is left, the next step.
    public var plan: PlanRunner.Status? = nil

    /// A controlled trainer.
    public struct MachineLine: Sendable, Equatable {
        public var name: String
        public var state: FitnessMachineControl.State

        public init(name: String, state: FitnessMachineControl.State) {
            self.name = name
            self.state = state
        }
    }

    /// One sensor's state, already in words.
    public struct SensorLine: Sendable, Equatable {
        public var name: String
        /// The connection in words: `connecting`, `connected`, `lost 12 s`, `reconnecting (attempt 3)`.
        public var state: String
        /// The last battery level reported, in percent.
        public var battery: Int?
        /// A heart-rate strap's skin contact; nil for other sensors.
        public var skinContact: Bool?
        /// The connection in one word: `connecting`, `connected`, `lost`, `reconnecting`.
        public var connection = "connected"
        /// How many times it was lost after having connected.
        public var dropouts = 0

        package init(
            name: String, state: String, battery: Int?, skinContact: Bool?, connection: String = "connected",
            dropouts: Int = 0
        ) {
            self.name = name
            self.state = state
            self.battery = battery
            self.skinContact = skinContact
            self.connection = connection
            self.dropouts = dropouts
        }

        /// `status` as of `now`.
        public init(_ status: HKSensorStatus, at now: Date) {
            let connection: String
            switch status.connection {
            case .connecting: connection = "connecting"
            case .connected: connection = "connected"
            case .lost: connection = "lost"
            case .reconnecting: connection = "reconnecting"
            }
            self.init(
                name: status.name, state: Self.words(status, at: now), battery: status.batteryPercent,
                skinContact: status.capabilities.contains(.heartRate) ? status.skinContact : nil,
                connection: connection, dropouts: status.dropouts)
        }

        /// A sensor's connection in words: `connecting`, `connected`, `lost 12 s`, `reconnecting (attempt 3)`.
        public static func words(_ status: HKSensorStatus, at now: Date) -> String {
            switch status.connection {
            case .connecting(let attempt):
                let base = attempt > 1 ? "connecting (attempt \(attempt))" : "connecting"
                return status.problem.map { "\(base): \($0)" } ?? base
            case .connected: return "connected"
            case .lost(let since, _): return "lost \(Int(max(0, now.timeIntervalSince(since)).rounded(.down))) s"
            case .reconnecting(_, let attempt): return "reconnecting (attempt \(attempt))"
            }
        }
    }

    package init(
        elapsed: TimeInterval, moving: TimeInterval, activity: String, paused: Bool, heartRate: Double?,
        power: Double?, power3s: Double?, cadence: Double?, cadenceUnit: String = "rpm", speed: Double?,
        showsPower: Bool, showsCadence: Bool, showsSpeed: Bool, zone: Int?, zoneBoundaries: [Double],
        zoneTimes: [TimeInterval], laps: Int, lapTime: TimeInterval, sensors: [SensorLine]
    ) {
        self.elapsed = elapsed
        self.moving = moving
        self.activity = activity
        self.paused = paused
        self.heartRate = heartRate
        self.power = power
        self.power3s = power3s
        self.cadence = cadence
        self.cadenceUnit = cadenceUnit
        self.speed = speed
        self.showsPower = showsPower
        self.showsCadence = showsCadence
        self.showsSpeed = showsSpeed
        self.zone = zone
        self.zoneBoundaries = zoneBoundaries
        self.zoneTimes = zoneTimes
        self.laps = laps
        self.lapTime = lapTime
        self.sensors = sensors
    }

    /// The view of `figures` at `now` (on the clock the figures were read on): values no older than ``freshness``;
    /// the moving time runs on from the figures' while `running`. `zone` is the heart-rate zone in effect (a live
    /// builder's last zone update, or, for a companion, ``LiveWorkoutFigures/heartRateZone(at:maximumAge:)``).
    public init(
        figures: LiveWorkoutFigures, at now: Date, elapsed: TimeInterval, activity: String, paused: Bool,
        running: Bool, zone: Int?, zoneBoundaries: [Double]
    ) {
        let bpm = HKUnit.count().unitDivided(by: .minute())
        let age = Self.freshness
        self.init(
            elapsed: elapsed, moving: figures.elapsedTime(at: now, running: running), activity: activity,
            paused: paused,
            heartRate: figures.mostRecentValue(of: HKQuantityType(.heartRate), in: bpm, at: now, maximumAge: age),
            power: figures.mostRecentValue(of: HKQuantityType(.cyclingPower), in: .watt(), at: now, maximumAge: age),
            power3s: figures.threeSecondPower(at: now, maximumAge: age),
            cadence: figures.cadence(at: now, maximumAge: age),
            cadenceUnit: figures.cadenceIsRunning ? "steps/min" : "rpm",
            speed: figures.speed(at: now, maximumAge: age),
            showsPower: figures.collectsPower, showsCadence: figures.collectsCadence, showsSpeed: figures.collectsSpeed,
            zone: zone, zoneBoundaries: zoneBoundaries,
            zoneTimes: figures.heartRateZoneTimes(orZerosFor: zoneBoundaries),
            laps: figures.laps, lapTime: figures.lapElapsedTime(at: now, running: running),
            sensors: figures.sensors.map { SensorLine($0, at: now) })
        date = now
        plan = figures.plan
    }

    /// The view before any figures came (a companion waiting for the recording's first): nothing elapsed, no value.
    public static func waiting(activity: String, paused: Bool) -> LiveWorkoutSnapshot {
        LiveWorkoutSnapshot(
            elapsed: 0, moving: 0, activity: activity, paused: paused, heartRate: nil, power: nil, power3s: nil,
            cadence: nil, speed: nil, showsPower: false, showsCadence: false, showsSpeed: false, zone: nil,
            zoneBoundaries: [], zoneTimes: [0], laps: 0, lapTime: 0, sensors: [])
    }
}
